#!/usr/bin/env bash
# Builds the Go peer of the benchmark (the controller-runtime memcached-operator in this folder) into
# a cache folder outside the repository keyed by a hash of its go.mod, go.sum, Go sources and this
# script, and prints the binary's path on its last stdout line (logs go to stderr). A second run with
# the binary present builds nothing.
#
#   ${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/reconstruct}/peer-go-<hash>/memcached-operator
#
# Needs Go (>= the go line of go.mod) and the Go module proxy (the modules are pinned by go.mod and
# go.sum, which the build only reads); without them it fails with one line saying so. As
# scripts/cluster/build.sh, it builds with the local toolchain only (GOTOOLCHAIN=local).
set -euo pipefail

PEER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BINARY_NAME="memcached-operator"

# shellcheck source=scripts/cluster/lib.sh
source "$PEER_DIR/../../scripts/cluster/lib.sh"
log() { printf '[peer-go] %s\n' "$*" >&2; }
die() { printf '[peer-go] ERROR: %s\n' "$*" >&2; exit 1; }

CACHE_ROOT="$(cluster_cache_root)"

# What the binary is built from, in a stable order: paths relative to PEER_DIR.
sources() {
  (cd "$PEER_DIR" && { printf '%s\n' go.mod go.sum build.sh; find . -name '*.go' -type f | sed 's|^\./||'; } | LC_ALL=C sort)
}
HASH="$(cd "$PEER_DIR" && sources | while IFS= read -r f; do printf '%s\n' "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
OUT_DIR="$CACHE_ROOT/peer-go-$HASH"
BINARY="$OUT_DIR/$BINARY_NAME"

if [[ -x "$BINARY" && -f "$BINARY" ]]; then
  log "already built: $BINARY"
  printf '%s\n' "$BINARY"
  exit 0
fi

GO_MIN_VERSION="$(sed -n 's/^go \([0-9][0-9]*\.[0-9][0-9]*\).*$/\1/p' "$PEER_DIR/go.mod")"
[[ -n "$GO_MIN_VERSION" ]] || die "no go line in $PEER_DIR/go.mod"
require_go "$GO_MIN_VERSION" "build the Go peer (bench/peer-go)"

mkdir -p "$CACHE_ROOT"
# One build at a time per cache root (the lock of scripts/cluster/build.sh is another file).
exec 9>"$CACHE_ROOT/.peer-go-build.lock"
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
(cd "$PEER_DIR" && go build -mod=readonly -buildvcs=false -trimpath -ldflags "-s -w" -o "$TMP_BINARY" ./cmd) \
  || die "go build failed in $PEER_DIR"
mv -f "$TMP_BINARY" "$BINARY"
log "built in $((SECONDS - START))s: $BINARY"
printf '%s\n' "$BINARY"
