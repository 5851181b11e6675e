#!/usr/bin/env bash
# Builds the pinned kustomize (for the KRM function's tests: kubectl's built-in kustomize has no
# --enable-exec) from the Go module proxy, like the control plane's binaries, into the same cache
# root, and prints its path on the last stdout line. A second run builds nothing.
#
#   RECONSTRUCT_KUSTOMIZE=/path/to/kustomize   use that one, build nothing
set -euo pipefail

# shellcheck source=scripts/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"

KUSTOMIZE_VERSION="v5.7.1"

if [[ -n "${RECONSTRUCT_KUSTOMIZE:-}" ]]; then
  [[ -x "$RECONSTRUCT_KUSTOMIZE" ]] || die "RECONSTRUCT_KUSTOMIZE=$RECONSTRUCT_KUSTOMIZE is not an executable"
  printf '%s\n' "$RECONSTRUCT_KUSTOMIZE"
  exit 0
fi

DIR="$(cluster_cache_root)/kustomize-$KUSTOMIZE_VERSION"
if [[ -x "$DIR/kustomize" ]]; then
  printf '%s\n' "$DIR/kustomize"
  exit 0
fi
command -v go >/dev/null || die "Go is needed to build kustomize $KUSTOMIZE_VERSION (or set RECONSTRUCT_KUSTOMIZE)"
mkdir -p "$DIR"
exec 9>"$DIR/.build.lock"
flock 9
if [[ ! -x "$DIR/kustomize" ]]; then
  log "building kustomize $KUSTOMIZE_VERSION from the Go module proxy"
  PARTIAL="$DIR/partial"
  rm -rf "$PARTIAL"
  (cd / && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$PARTIAL" \
    go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION") >&2
  mv "$PARTIAL/kustomize" "$DIR/kustomize"
  rm -rf "$PARTIAL"
fi
printf '%s\n' "$DIR/kustomize"
