#!/usr/bin/env bash
# Builds a Go program of this repository (bench/peer-go, scripts/otel/collector) into a cache folder
# outside the repository keyed by a hash of its go.mod, go.sum, Go sources, its build.sh and this
# script, and prints the binary's path on its last stdout line (logs go to stderr). A second run with
# the binary present builds nothing.
#
#   bash scripts/go-build.sh DIR BINARY PACKAGE NAME WHAT
#   -> ${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/reconstruct}/NAME-<hash>/BINARY
#
# DIR holds go.mod; PACKAGE is what `go build` builds there (`.`, `./cmd`); NAME prefixes the logs, the
# cache folder and the lock; WHAT says what is built, in the line that asks for Go. Needs Go (>= the
# go line of go.mod) and the Go module proxy (the modules are pinned by go.mod and go.sum, which the
# build only reads); without them it fails with one line saying so. As scripts/cluster/build.sh, it
# builds with the local toolchain only (GOTOOLCHAIN=local).
set -euo pipefail

DIR="$(cd "$1" && pwd)"
BINARY_NAME="$2"
PACKAGE="$3"
NAME="$4"
WHAT="$5"
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/go-build.sh"

# shellcheck source=scripts/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"
log() { printf '[%s] %s\n' "$NAME" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$NAME" "$*" >&2; exit 1; }

CACHE_ROOT="$(cluster_cache_root)"

# What the binary is built from, in a stable order: paths relative to DIR.
sources() {
  (cd "$DIR" && { printf '%s\n' go.mod go.sum build.sh; find . -name '*.go' -type f | sed 's|^\./||'; } | LC_ALL=C sort)
}
HASH="$( { cat "$SELF"; cd "$DIR" && sources | while IFS= read -r f; do printf '%s\n' "$f"; cat "$f"; done; } | sha256sum | cut -c1-16)"
OUT_DIR="$CACHE_ROOT/$NAME-$HASH"
BINARY="$OUT_DIR/$BINARY_NAME"

if [[ -x "$BINARY" && -f "$BINARY" ]]; then
  log "already built: $BINARY"
  printf '%s\n' "$BINARY"
  exit 0
fi

GO_MIN_VERSION="$(sed -n 's/^go \([0-9][0-9]*\.[0-9][0-9]*\).*$/\1/p' "$DIR/go.mod")"
[[ -n "$GO_MIN_VERSION" ]] || die "no go line in $DIR/go.mod"
require_go "$GO_MIN_VERSION" "$WHAT"

mkdir -p "$CACHE_ROOT"
# One build at a time per program and cache root (scripts/cluster/build.sh has a lock of its own).
exec 9>"$CACHE_ROOT/.$NAME-build.lock"
flock 9
if [[ -x "$BINARY" && -f "$BINARY" ]]; then   # another build finished while we waited
  printf '%s\n' "$BINARY"
  exit 0
fi

# Built into a temporary file beside the binary and renamed once complete, so that the binary is
# never there half-written.
mkdir -p "$OUT_DIR"
TMP_BINARY="$OUT_DIR/.$BINARY_NAME.$$"
trap 'rm -f "$TMP_BINARY"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

export GOTOOLCHAIN=local CGO_ENABLED=0
START=$SECONDS
log "building $BINARY (Go: $(go version))"
# -mod=readonly: go.mod and go.sum pin every module; a build never changes them.
(cd "$DIR" && go build -mod=readonly -buildvcs=false -trimpath -ldflags "-s -w" -o "$TMP_BINARY" "$PACKAGE") \
  || die "go build failed in $DIR"
mv -f "$TMP_BINARY" "$BINARY"
log "built in $((SECONDS - START))s: $BINARY"
printf '%s\n' "$BINARY"
