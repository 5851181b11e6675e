#!/usr/bin/env bash
# Shared settings for the local control plane scripts (sourced, not run).
# Pinned versions: change them here only; the binary cache folder is keyed by them.

# shellcheck disable=SC2034  # variables are used by the scripts that source this file
CLUSTER_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$CLUSTER_SCRIPTS_DIR/../.." && pwd)"

K8S_VERSION="v1.36.3"        # kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
K8S_STAGING_VERSION="v0.36.3" # published versions of the k8s.io staging modules
ETCD_VERSION="v3.6.10"
KWOK_VERSION="v0.8.0"

# Everything the cluster needs, by binary name.
CLUSTER_BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl)

# The cluster's state (kwokctl work dir, kubeconfig, logs) lives here, git-ignored.
CLUSTER_STATE_DIR="$REPO_ROOT/.cluster"
CLUSTER_NAME="reconstruct"
CLUSTER_KUBECONFIG="$CLUSTER_STATE_DIR/kubeconfig"

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { printf '[cluster] ERROR: %s\n' "$*" >&2; exit 1; }

cluster_cache_root() {
  printf '%s\n' "${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/reconstruct}"
}

# The folder the built binaries go to, keyed by the version tuple.
cluster_cache_bin_dir() {
  printf '%s/bin-k8s-%s-etcd-%s-kwok-%s\n' "$(cluster_cache_root)" "$K8S_VERSION" "$ETCD_VERSION" "$KWOK_VERSION"
}

# True when DIR holds every binary, executable.
cluster_binaries_present() {
  local dir="$1" b
  for b in "${CLUSTER_BINARIES[@]}"; do
    [[ -x "$dir/$b" && -f "$dir/$b" ]] || return 1
  done
}

# Prints the bin dir to use, without building: RECONSTRUCT_BIN_DIR if set, else the cache
# folder. Fails when the binaries are not all there (run build.sh first).
cluster_bin_dir() {
  local dir
  if [[ -n "${RECONSTRUCT_BIN_DIR:-}" ]]; then
    dir="$RECONSTRUCT_BIN_DIR"
    cluster_binaries_present "$dir" \
      || die "RECONSTRUCT_BIN_DIR=$dir does not hold all of: ${CLUSTER_BINARIES[*]}"
  else
    dir="$(cluster_cache_bin_dir)"
    cluster_binaries_present "$dir" \
      || die "binaries not built yet in $dir: run 'npm run cluster:build' (bash scripts/cluster/build.sh)"
  fi
  (cd "$dir" && pwd)
}

# Builds if needed (build.sh prints the bin dir on its last stdout line) and prints the bin dir.
cluster_ensure_bin_dir() {
  bash "$CLUSTER_SCRIPTS_DIR/build.sh" | tail -n 1
}
