#!/usr/bin/env bash
# Builds kro's controller (github.com/kubernetes-sigs/kro, the peer of bench:peer that does our job with
# a kind defined as data) from its Go module, at the version pinned below, into a cache folder outside
# the repository, with kro's own CRDs beside it; prints the binary's path on its last stdout line (logs
# go to stderr). A second run with the binary present builds nothing.
#
#   ${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/reconstruct}/peer-kro-<version>-<hash>/kro-controller
#                                                                                           .../crds/*.yaml
#
# The module comes from the Go module proxy; its hash is checked against the one pinned here (and the
# go command checks every module it builds with against kro's go.sum). Needs Go (>= the go line of
# kro's go.mod); without it or the proxy it fails with one line saying so. As scripts/cluster/build.sh,
# it builds with the local toolchain only (GOTOOLCHAIN=local).
set -euo pipefail

KRO_MODULE="github.com/kubernetes-sigs/kro"
KRO_VERSION="v0.9.4"
KRO_SUM="h1:gynhldCLYW5x+M0c2Bf1ihoQTpNE68SKiXl1f6aX1kk="
KRO_GO="1.26"
BINARY_NAME="kro-controller"

PEER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/cluster/lib.sh
source "$PEER_DIR/../../scripts/cluster/lib.sh"
log() { printf '[peer-kro] %s\n' "$*" >&2; }
die() { printf '[peer-kro] ERROR: %s\n' "$*" >&2; exit 1; }

CACHE_ROOT="$(cluster_cache_root)"
HASH="$(sha256sum "$PEER_DIR/build.sh" | cut -c1-12)"
OUT_DIR="$CACHE_ROOT/peer-kro-$KRO_VERSION-$HASH"
BINARY="$OUT_DIR/$BINARY_NAME"

if [[ -x "$BINARY" && -f "$BINARY" && -d "$OUT_DIR/crds" ]]; then
  log "already built: $BINARY"
  printf '%s\n' "$BINARY"
  exit 0
fi

require_go "$KRO_GO" "build kro for bench:peer (bench/peer-kro)"

mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.peer-kro-build.lock"
flock 9
if [[ -x "$BINARY" && -f "$BINARY" && -d "$OUT_DIR/crds" ]]; then   # another build finished while we waited
  printf '%s\n' "$BINARY"
  exit 0
fi

export GOTOOLCHAIN=local CGO_ENABLED=0
START=$SECONDS
log "downloading $KRO_MODULE@$KRO_VERSION from the Go module proxy"
INFO="$(cd "$CACHE_ROOT" && go mod download -json "$KRO_MODULE@$KRO_VERSION")" \
  || die "go mod download $KRO_MODULE@$KRO_VERSION failed (it needs the Go module proxy)"
SUM="$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p' <<<"$INFO")"
DIR="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' <<<"$INFO")"
[[ "$SUM" == "$KRO_SUM" ]] || die "$KRO_MODULE@$KRO_VERSION has hash '$SUM', not the pinned $KRO_SUM"
[[ -d "$DIR/helm/crds" ]] || die "no helm/crds in $DIR"

mkdir -p "$OUT_DIR"
TMP_DIR="$(mktemp -d "$OUT_DIR/.build.XXXXXX")"
trap 'rm -rf "$TMP_DIR"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "building $BINARY (Go: $(go version))"
# `go install module/cmd@version` builds with kro's own go.mod and go.sum, nothing of ours.
(cd "$TMP_DIR" && GOBIN="$TMP_DIR" go install -trimpath -ldflags "-s -w" "$KRO_MODULE/cmd/controller@$KRO_VERSION") \
  || die "go install $KRO_MODULE/cmd/controller@$KRO_VERSION failed"
rm -rf "$OUT_DIR/crds"
mkdir -p "$OUT_DIR/crds"
cp "$DIR"/helm/crds/*.yaml "$OUT_DIR/crds/"
mv -f "$TMP_DIR/controller" "$BINARY"
log "built in $((SECONDS - START))s: $BINARY"
printf '%s\n' "$BINARY"
