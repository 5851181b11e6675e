#!/usr/bin/env bash
# Starts a local Kubernetes control plane bound to 127.0.0.1 only: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and a kwok controller (fake kubelets) with three fake
# nodes, all run by kwokctl's binary runtime from the binaries build.sh made. Then installs
# <project>/crds/*.yaml (or RECONSTRUCT_CRDS_DIR's) and waits until they are Established.
# A supervisor (supervise.sh) then restarts kube-controller-manager, kube-scheduler and the kwok
# controller whenever they exit; down.sh stops it first.
#
# State: <project>/.cluster/ (git-ignored). Kubeconfig: <project>/.cluster/kubeconfig.
# <project> is RECONSTRUCT_PROJECT_DIR, by default this repository (see lib.sh).
# Already up and healthy: reuses it (re-applies the CRDs). A failed start cleans up after itself.
set -euo pipefail

# shellcheck source=scripts/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cluster_check_crds_dir

START=$SECONDS
BIN_DIR="$(cluster_ensure_bin_dir)"
if [[ -z "$BIN_DIR" ]] || ! cluster_binaries_present "$BIN_DIR"; then
  die "no binaries (build.sh failed?)"
fi
KUBECTL="$BIN_DIR/kubectl"
export PATH="$BIN_DIR:$PATH"

cluster_lock_start   # one start at a time; a second concurrent run then finds it up and reuses it

if [[ -d "$CLUSTER_STATE_DIR" ]]; then
  if cluster_api_ready "$KUBECTL" "$CLUSTER_KUBECONFIG"; then
    running="$(cat "$CLUSTER_STATE_DIR/features" 2>/dev/null || printf 'unknown (started before they were recorded)')"
    if [[ "$running" != "$(cluster_features)" ]]; then
      die "a cluster is up with $running; asked for: $(cluster_features). Stop it first ($(cluster_hint down))"
    fi
    log "a cluster is already up (KUBECONFIG=$CLUSTER_KUBECONFIG): reusing it"
    # Asked for by hand (npm run cluster:up, reconstruct cluster up): it now stays up after the
    # test runs end.
    if [[ "${RECONSTRUCT_CLUSTER_EPHEMERAL:-}" != 1 ]]; then rm -f "$CLUSTER_STATE_DIR/ephemeral"; fi
    cluster_start_supervisor
    KUBECONFIG="$CLUSTER_KUBECONFIG" cluster_install_crds "$KUBECTL"
    exit 0
  fi
  log "found a stale $CLUSTER_STATE_DIR (API server not answering): cleaning it up first"
  cluster_stop
fi

cleanup_on_failure() {
  local rc=$?
  trap '' INT TERM   # a second Ctrl-C must not interrupt the teardown
  if ((rc != 0)); then
    log "cluster up failed (exit $rc); logs were in $KWOK_CLUSTER_DIR/logs — tearing down"
    if [[ -d "$KWOK_CLUSTER_DIR/logs" ]]; then
      local f
      for f in "$KWOK_CLUSTER_DIR"/logs/*.log; do
        [[ -f "$f" ]] || continue
        printf -- '--- last lines of %s ---\n' "${f##*/}" >&2
        tail -n 15 "$f" >&2 || true
      done
    fi
    cluster_stop || true
  fi
  exit "$rc"
}
trap cleanup_on_failure EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$KWOK_WORKDIR_PATH"
printf '%s\n' "$BIN_DIR" > "$CLUSTER_STATE_DIR/bin-dir"   # down.sh finds kwokctl through it
cluster_features > "$CLUSTER_STATE_DIR/features"           # what a reuse must match
# with-cluster.sh marks the clusters it starts: those it tears down when the last run ends.
if [[ "${RECONSTRUCT_CLUSTER_EPHEMERAL:-}" == 1 ]]; then touch "$CLUSTER_STATE_DIR/ephemeral"; fi

mapfile -t ports < <(cluster_pick_ports 6)
# kwokctl reads <KWOK_WORKDIR>/kwok.yaml by default. bindAddress can only be set here (it
# defaults to 0.0.0.0); the binaries are ours so kwokctl downloads nothing.
cat > "$KWOK_WORKDIR_PATH/kwok.yaml" <<YAML
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  runtime: binary
  bindAddress: 127.0.0.1
  kubeVersion: $K8S_VERSION
  etcdVersion: ${ETCD_VERSION#v}
  kwokVersion: $KWOK_VERSION
  kubeFeatureGates: "$CLUSTER_FEATURE_GATES"
  kubeRuntimeConfig: "$CLUSTER_RUNTIME_CONFIG"
  kubeApiserverBinary: $BIN_DIR/kube-apiserver
  kubeControllerManagerBinary: $BIN_DIR/kube-controller-manager
  kubeSchedulerBinary: $BIN_DIR/kube-scheduler
  kubectlBinary: $BIN_DIR/kubectl
  kwokControllerBinary: $BIN_DIR/kwok
  etcdBinary: $BIN_DIR/etcd
  # Real authorization (RBAC) and admission, as on a real cluster.
  kubeAuthorization: true
  kubeAdmission: true
  # Our own random ports (see cluster_pick_ports).
  kubeApiserverPort: ${ports[0]}
  etcdPort: ${ports[1]}
  etcdPeerPort: ${ports[2]}
  kubeControllerManagerPort: ${ports[3]}
  kubeSchedulerPort: ${ports[4]}
  kwokControllerPort: ${ports[5]}
componentsPatches:
  # As on clusters that enable it (OpenShift does): setting blockOwnerDeletion on an ownerReference
  # needs update on the owner's finalizers, so the cluster tests check that the operator's role has it.
  - name: kube-apiserver
    extraArgs:
      - key: enable-admission-plugins
        value: OwnerReferencesPermissionEnforcement
      - key: service-cluster-ip-range
        value: $CLUSTER_SERVICE_RANGE
  # One instance each: leader election only makes them exit when the API server stalls longer
  # than their renew deadline (10 s). The supervisor restarts them after any exit.
  - name: kube-controller-manager
    extraArgs:
      - key: leader-elect
        value: "false"
  - name: kube-scheduler
    extraArgs:
      - key: leader-elect
        value: "false"
YAML

log "starting the control plane (kwokctl binary runtime, $K8S_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION; $(cluster_features))"
# kwokctl starts the components as daemons and returns; its own --wait only logs a timeout and
# still exits 0, so we wait ourselves, failing fast when a component process dies.
kwokctl_run "$BIN_DIR" create cluster --name "$CLUSTER_NAME" --kubeconfig "" >&2
# Self-contained (certificates embedded) so that it can be copied or mounted elsewhere.
(umask 077 && "$KUBECTL" config view --raw --flatten --kubeconfig "$KWOK_CLUSTER_DIR/kubeconfig.yaml" \
  > "$CLUSTER_KUBECONFIG")
export KUBECONFIG="$CLUSTER_KUBECONFIG"

components=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok-controller)
deadline=$((SECONDS + ${RECONSTRUCT_CLUSTER_START_TIMEOUT:-120}))
until cluster_api_ready "$KUBECTL" "$KUBECONFIG"; do
  for c in "${components[@]}"; do
    pid="$(tr -dc '0-9' <"$KWOK_CLUSTER_DIR/pids/$c.pid" 2>/dev/null || true)"
    if [[ -z "$pid" ]] || ! cluster_proc_alive "$pid"; then
      die "$c exited during start-up (log: $KWOK_CLUSTER_DIR/logs/$c.log)"
    fi
  done
  ((SECONDS < deadline)) || die "the API server did not become ready in time"
  sleep 0.5
done

# Three fake nodes, managed by the kwok controller: Ready, and pods bound to them go Running.
# No taints, so ordinary workloads schedule on them without tolerations.
nodes_yaml=""
for i in 0 1 2; do
  role_label=""
  [[ $i == 0 ]] && role_label='    node-role.kubernetes.io/worker: ""'
  nodes_yaml+="---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: \"0\"
  labels:
    kubernetes.io/hostname: kwok-node-$i
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
$role_label
status:
  allocatable: {cpu: \"32\", memory: 256Gi, pods: \"110\"}
  capacity: {cpu: \"32\", memory: 256Gi, pods: \"110\"}
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    kubeletVersion: fake
    kubeProxyVersion: fake
"
done
"$KUBECTL" apply -f - >&2 <<<"$nodes_yaml"
"$KUBECTL" wait --for=condition=Ready node --all --timeout=60s >&2

# Nothing of ours may listen beyond loopback.
mapfile -t pids < <(cluster_component_pids)
((${#pids[@]} >= 5)) || die "expected 5 component processes, found ${#pids[@]}"
exposed="$(cluster_nonloopback_listeners "${pids[@]}")"
[[ -z "$exposed" ]] || die "components listen beyond loopback:
$exposed"

# kube-controller-manager and kube-scheduler exit when they lose their lease (an API server paused
# or overloaded for longer than their renew deadline): from now on they are restarted.
cluster_start_supervisor

cluster_install_crds "$KUBECTL"

log "cluster up in $((SECONDS - START))s: export KUBECONFIG=$CLUSTER_KUBECONFIG PATH=$BIN_DIR:\$PATH"
