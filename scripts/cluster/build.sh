#!/usr/bin/env bash
# Builds the local control plane's binaries from their Go modules (no release downloads):
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok, kwokctl
# into a cache folder outside the repository keyed by the pinned versions, and prints that
# folder on its last stdout line. A second run with every binary present builds nothing.
#
#   RECONSTRUCT_BIN_DIR=/some/dir   use the binaries there, build nothing
#   RECONSTRUCT_CACHE_DIR=/some/dir cache root (default: ${XDG_CACHE_HOME:-~/.cache}/reconstruct)
#
# Needs Go (>= the version the pinned modules ask for: 1.26) and the Go module proxy; without
# them (and without the binaries) it fails with one line saying so.
set -euo pipefail

# shellcheck source=scripts/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GO_MIN_VERSION="1.26"   # what the pinned modules' go.mod files ask for

if [[ -n "${RECONSTRUCT_BIN_DIR:-}" ]]; then
  cluster_bin_dir   # validates and prints
  exit 0
fi

BIN_DIR="$(cluster_cache_bin_dir)"
if cluster_binaries_present "$BIN_DIR"; then
  log "binaries already built in $BIN_DIR"
  printf '%s\n' "$BIN_DIR"
  exit 0
fi

binaries="${CLUSTER_BINARIES[*]}"
require_go "$GO_MIN_VERSION" "build the local control plane" \
  "(or set RECONSTRUCT_BIN_DIR to a folder with ${binaries// /, })"

CACHE_ROOT="$(cluster_cache_root)"
mkdir -p "$CACHE_ROOT"
# One build at a time per cache root.
exec 9>"$CACHE_ROOT/.build.lock"
flock 9
if cluster_binaries_present "$BIN_DIR"; then   # another build finished while we waited
  printf '%s\n' "$BIN_DIR"
  exit 0
fi

# Binaries are built into PARTIAL_DIR, each one renamed there only once complete, so an
# interrupted build resumes where it stopped; the whole folder is renamed to BIN_DIR only when
# every binary is in it. BIN_DIR therefore never exists half-filled.
PARTIAL_DIR="$BIN_DIR.partial"
mkdir -p "$PARTIAL_DIR"
WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/reconstruct-build.XXXXXX")"
trap 'rm -rf "$WORK_DIR"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
GO_VERSION_LINE="1.26.0"

missing() { local b; for b in "$@"; do [[ -x "$PARTIAL_DIR/$b" ]] || return 0; done; return 1; }

# go build OUT_NAMES... into WORK_DIR/out, then move each into PARTIAL_DIR.
install_built() {
  local b
  for b in "$@"; do
    [[ -x "$WORK_DIR/out/$b" ]] || die "go build did not produce $b"
    mv -f "$WORK_DIR/out/$b" "$PARTIAL_DIR/$b.tmp"
    mv -f "$PARTIAL_DIR/$b.tmp" "$PARTIAL_DIR/$b"
  done
}

timed() {
  local what="$1" start=$SECONDS; shift
  log "building $what ..."
  "$@"
  log "built $what in $((SECONDS - start))s"
}

# ---------------------------------------------------------------------------------------------
# Kubernetes. k8s.io/kubernetes replaces its staging modules (k8s.io/api, ...) with ./staging
# paths, so `go install` refuses it; a wrapper module that requires it and replaces each staging
# module with its published version builds it. The list comes from its own go.mod.
build_k8s() {
  local dir="$WORK_DIR/k8s" kmod mods m
  mkdir -p "$dir" "$WORK_DIR/out"
  kmod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
  [[ -f "$kmod" ]] || die "could not download k8s.io/kubernetes@$K8S_VERSION"
  mods="$(awk '/^replace \($/ {inb=1; next} inb && /^\)/ {inb=0} inb && $2 == "=>" && $3 ~ /^\.\/staging\// {print $1}' "$kmod")"
  [[ -n "$mods" ]] || die "no staging replace block found in $kmod"
  {
    printf 'module reconstruct.local/k8s-binaries\n\ngo %s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$GO_VERSION_LINE" "$K8S_VERSION"
    for m in $mods; do printf '\t%s => %s %s\n' "$m" "$m" "$K8S_STAGING_VERSION"; done
    printf ')\n'
  } > "$dir/go.mod"
  cat > "$dir/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  local minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  local date="2000-01-01T00:00:00Z" ldflags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
  done
  (
    cd "$dir"
    go mod tidy
    go build -trimpath -ldflags "$ldflags" -o "$WORK_DIR/out/" \
      k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
  )
  install_built kube-apiserver kube-controller-manager kube-scheduler kubectl
}

# etcd: the server module has a main package but replace directives, so wrap it too.
build_etcd() {
  local dir="$WORK_DIR/etcd"
  mkdir -p "$dir" "$WORK_DIR/out"
  printf 'module reconstruct.local/etcd-binary\n\ngo %s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' \
    "$GO_VERSION_LINE" "$ETCD_VERSION" > "$dir/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > "$dir/tools.go"
  (
    cd "$dir"
    go mod tidy
    go build -trimpath -ldflags "-s -w" -o "$WORK_DIR/out/etcd" go.etcd.io/etcd/server/v3
  )
  install_built etcd
}

# kwok (the fake kubelet controller) and kwokctl (the orchestrator).
build_kwok() {
  local dir="$WORK_DIR/kwok"
  mkdir -p "$dir" "$WORK_DIR/out"
  printf 'module reconstruct.local/kwok-binaries\n\ngo %s\n\nrequire sigs.k8s.io/kwok %s\n' \
    "$GO_VERSION_LINE" "$KWOK_VERSION" > "$dir/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "sigs.k8s.io/kwok/cmd/kwok"\n\t_ "sigs.k8s.io/kwok/cmd/kwokctl"\n)\n' > "$dir/tools.go"
  (
    cd "$dir"
    go mod tidy
    go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" \
      -o "$WORK_DIR/out/" sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok/cmd/kwokctl
  )
  install_built kwok kwokctl
}

START=$SECONDS
log "building into $PARTIAL_DIR (Go: $(go version))"
if missing etcd; then timed "etcd $ETCD_VERSION" build_etcd; fi
if missing kwok kwokctl; then timed "kwok $KWOK_VERSION" build_kwok; fi
if missing kube-apiserver kube-controller-manager kube-scheduler kubectl; then
  timed "kubernetes $K8S_VERSION" build_k8s
fi

cluster_binaries_present "$PARTIAL_DIR" || die "build incomplete in $PARTIAL_DIR"
rm -f "$PARTIAL_DIR"/*.tmp
rm -rf "$BIN_DIR"
mv "$PARTIAL_DIR" "$BIN_DIR"
log "all binaries built in $((SECONDS - START))s into $BIN_DIR"
printf '%s\n' "$BIN_DIR"
