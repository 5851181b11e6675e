#!/usr/bin/env bash
# Runs CMD against a local control plane:  bash scripts/cluster/with-cluster.sh CMD [ARGS...]
#
# Brings a cluster up (scripts/cluster/up.sh), exports KUBECONFIG=<project>/.cluster/kubeconfig
# and PATH with the pinned binaries first (so `kubectl` is the pinned one), runs CMD, and tears
# the cluster down afterwards, also on failure or Ctrl-C. Exits with CMD's status.
# <project> is RECONSTRUCT_PROJECT_DIR, by default this repository; the CRDs come from
# RECONSTRUCT_CRDS_DIR, by default <project>/crds/ (see lib.sh). `reconstruct cluster run` is
# this script for projects that have the package installed.
#
# Runs in the same project (work tree) share one cluster: a cluster that is already up is
# reused, and the one a with-cluster run started is torn down when the last run using it ends. A
# cluster started by hand (npm run cluster:up, reconstruct cluster up) is left running.
#
# RECONSTRUCT_USE_EXISTING_CLUSTER=1: use the cluster KUBECONFIG points at (or ~/.kube/config);
# start and stop nothing, only apply the CRDs and wait for them.
set -euo pipefail

# shellcheck source=scripts/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

(($# > 0)) || die "usage: $0 CMD [ARGS...]"
cluster_check_crds_dir

child=""
managed=0

# shellcheck disable=SC2317  # invoked through the EXIT trap
finish() {
  local rc=$?
  trap '' INT   # a second Ctrl-C must not interrupt the teardown
  trap - EXIT TERM
  if [[ -n "$child" ]] && kill -0 "$child" 2>/dev/null; then
    kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  if ((managed)) && [[ -d "$CLUSTER_STATE_DIR" ]]; then
    if flock -x -n 7; then   # nobody else is using the cluster
      if [[ -f "$CLUSTER_STATE_DIR/ephemeral" ]]; then
        bash "$CLUSTER_SCRIPTS_DIR/down.sh" 7>&- || log "tearing the cluster down failed"
      else
        log "leaving the cluster up: it was started by '$(cluster_hint up)' (stop it with '$(cluster_hint down)')"
      fi
    else
      log "leaving the cluster up: another run in this project is still using it"
    fi
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ "${RECONSTRUCT_USE_EXISTING_CLUSTER:-}" == 1 ]]; then
  export KUBECONFIG="${KUBECONFIG:-$HOME/.kube/config}"
  if bin_dir="$(cluster_bin_dir 2>/dev/null)"; then
    export PATH="$bin_dir:$PATH"
  fi
  command -v kubectl >/dev/null || die "kubectl not found: build the binaries or put kubectl on PATH"
  log "using the existing cluster of KUBECONFIG=$KUBECONFIG (context: $(kubectl config current-context 2>/dev/null || echo '?'))"
  kubectl --request-timeout=10s get --raw /readyz >/dev/null || die "that cluster's API server is not ready"
  cluster_install_crds kubectl
else
  bin_dir="$(cluster_ensure_bin_dir)"
  exec 7>"$CLUSTER_LOCK_BASE.users"
  flock -s 7   # waits while another run tears the cluster down
  managed=1
  RECONSTRUCT_BIN_DIR="$bin_dir" RECONSTRUCT_CLUSTER_EPHEMERAL=1 bash "$CLUSTER_SCRIPTS_DIR/up.sh" 7>&-
  export KUBECONFIG="$CLUSTER_KUBECONFIG"
  export PATH="$bin_dir:$PATH"
fi

# CMD runs in the background so that a signal to this script is handled at once (a foreground
# child would delay the trap until it exits); its standard input stays ours.
exec 3<&0
"$@" <&3 3<&- 7>&- &
child=$!
set +e
wait "$child"
rc=$?
set -e
child=""
exit "$rc"
