#!/usr/bin/env bash
# Shared settings for the local control plane scripts (sourced, not run).
# Pinned versions: change them here only; the binary cache folder is keyed by them.
#
# Whose cluster it is:
#   RECONSTRUCT_PROJECT_DIR=/some/dir  the project the cluster belongs to: its state goes to
#                                      <dir>/.cluster/, its CRDs come from <dir>/crds/ (default:
#                                      this repository, two folders above the scripts).
#                                      `reconstruct cluster` sets it to the current folder, so a
#                                      project with the package installed gets its own cluster.
#   RECONSTRUCT_CRDS_DIR=/some/dir     the CRDs to install (default: <project>/crds/, if it exists)

# shellcheck disable=SC2034  # variables are used by the scripts that source this file
CLUSTER_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$CLUSTER_SCRIPTS_DIR/../.." && pwd)"

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { printf '[cluster] ERROR: %s\n' "$*" >&2; exit 1; }

if [[ -n "${RECONSTRUCT_PROJECT_DIR:-}" ]]; then
  [[ -d "$RECONSTRUCT_PROJECT_DIR" ]] || die "RECONSTRUCT_PROJECT_DIR=$RECONSTRUCT_PROJECT_DIR is not a folder"
  PROJECT_DIR="$(cd "$RECONSTRUCT_PROJECT_DIR" && pwd)"
else
  PROJECT_DIR="$REPO_ROOT"
fi
CLUSTER_CRDS_DIR="${RECONSTRUCT_CRDS_DIR:-$PROJECT_DIR/crds}"

# How users run these scripts, for the hints in messages: `reconstruct cluster` sets
# RECONSTRUCT_CLUSTER_CLI (say "npx reconstruct cluster"); else our own npm scripts.
cluster_hint() {
  if [[ -n "${RECONSTRUCT_CLUSTER_CLI:-}" ]]; then
    printf '%s %s' "$RECONSTRUCT_CLUSTER_CLI" "$1"
  else
    printf 'npm run cluster:%s' "$1"
  fi
}

K8S_VERSION="v1.36.3"        # kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
K8S_STAGING_VERSION="v0.36.3" # published versions of the k8s.io staging modules
ETCD_VERSION="v3.6.10"
KWOK_VERSION="v0.8.0"

# Everything the cluster needs, by binary name.
CLUSTER_BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl)

# Feature gates and API groups beyond Kubernetes' defaults, for every component (kwokctl's
# kubeFeatureGates and kubeRuntimeConfig). By default what reconstruct uses where a cluster has it:
# the API server's StorageVersionMigration (reconstruct migrate) and sharded list and watch (the
# controller's --sharding). RECONSTRUCT_CLUSTER_FEATURE_GATES / _RUNTIME_CONFIG set them (empty:
# none); a cluster that is up with others is not reused.
CLUSTER_FEATURE_GATES="${RECONSTRUCT_CLUSTER_FEATURE_GATES-StorageVersionMigrator=true,ShardedListAndWatch=true}"
CLUSTER_RUNTIME_CONFIG="${RECONSTRUCT_CLUSTER_RUNTIME_CONFIG-storagemigration.k8s.io/v1beta1=true}"
# Service IPs: the API server's default /24 holds 254 Services, fewer than the benchmarks and the
# sharding tests make (a Memcached has one).
CLUSTER_SERVICE_RANGE="10.96.0.0/16"

# The cluster's state (kwokctl work dir, kubeconfig, logs) lives here, git-ignored.
CLUSTER_STATE_DIR="$PROJECT_DIR/.cluster"
CLUSTER_NAME="reconstruct"
CLUSTER_KUBECONFIG="$CLUSTER_STATE_DIR/kubeconfig"

# The feature gates and runtime config, as one line: what a started cluster records in its state.
cluster_features() {
  printf 'gates [%s], runtime config [%s], services %s\n' "$CLUSTER_FEATURE_GATES" "$CLUSTER_RUNTIME_CONFIG" "$CLUSTER_SERVICE_RANGE"
}

cluster_cache_root() {
  printf '%s\n' "${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/reconstruct}"
}

# Fails with one line, not a wall of go errors, unless Go $1 or newer is on PATH: "Go $1 or newer is
# needed to $2, and <why>", then the rest of the arguments (a hint).
require_go() {
  local min="$1" purpose="$2" why="" found=""
  shift 2
  if ! command -v go >/dev/null; then
    why="go is not on PATH"
  else
    # GOVERSION is go1.26.0, go1.27rc1 or "devel ..." (a development build: let it try). Asked outside
    # any module and of the local toolchain only, as the builds run with GOTOOLCHAIN=local.
    found="$(cd / && GOTOOLCHAIN=local go env GOVERSION 2>/dev/null)" || found=""
    if [[ "$found" =~ ^go([0-9]+)\.([0-9]+) ]]; then
      local major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[2]}"
      if ((major < ${min%%.*} || (major == ${min%%.*} && minor < ${min#*.}))); then
        why="$(command -v go) is $found"
      fi
    fi
  fi
  [[ -z "$why" ]] || die "Go $min or newer is needed to $purpose, and $why" "$@"
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
      || die "binaries not built yet in $dir: run '$(cluster_hint build)' (bash $CLUSTER_SCRIPTS_DIR/build.sh)"
  fi
  (cd "$dir" && pwd)
}

# Builds if needed (build.sh prints the bin dir on its last stdout line) and prints the bin dir.
cluster_ensure_bin_dir() {
  bash "$CLUSTER_SCRIPTS_DIR/build.sh" | tail -n 1
}

# kwokctl keeps its whole work space (config, clusters/<name>/, pids, logs, pki) under
# KWOK_WORKDIR; pointing it into .cluster/ means ~/.kwok is never touched.
KWOK_WORKDIR_PATH="$CLUSTER_STATE_DIR/kwok"
KWOK_CLUSTER_DIR="$KWOK_WORKDIR_PATH/clusters/$CLUSTER_NAME"

# Runs kwokctl against our work dir. It starts daemons that outlive it: they must not inherit
# the lock file descriptors (7, 8), or they would hold the locks forever.
kwokctl_run() {
  local bin_dir="$1"; shift
  KWOK_WORKDIR="$KWOK_WORKDIR_PATH" PATH="$bin_dir:$PATH" "$bin_dir/kwokctl" "$@" 7>&- 8>&-
}

# Several runs in one project (work tree) share .cluster/, so they coordinate through two lock
# files outside it (it gets deleted), named after the project folder:
#   <base>.start  exclusive while a cluster is being started or stopped (fd 8)
#   <base>.users  held shared by every with-cluster.sh run while its command runs (fd 7); the
#                 last one out (exclusive lock granted) tears a cluster it started down.
CLUSTER_LOCK_BASE="${TMPDIR:-/tmp}/reconstruct-cluster-$(printf '%s' "$PROJECT_DIR" | cksum | cut -d' ' -f1)"

cluster_lock_start() {
  exec 8>"$CLUSTER_LOCK_BASE.start"
  if ! flock -n 8; then
    log "waiting for another run to finish starting or stopping the cluster ..."
    flock 8
  fi
}

# True when the API server behind KUBECONFIG answers /readyz.
cluster_api_ready() {
  local kubectl_bin="$1" kubeconfig="$2"
  [[ -f "$kubeconfig" ]] || return 1
  "$kubectl_bin" --kubeconfig "$kubeconfig" --request-timeout=5s get --raw /readyz >/dev/null 2>&1
}

# Fails when RECONSTRUCT_CRDS_DIR was given but is not a folder (a missing <project>/crds/ just
# means no CRDs). Call it before starting anything.
cluster_check_crds_dir() {
  if [[ -n "${RECONSTRUCT_CRDS_DIR:-}" && ! -d "$RECONSTRUCT_CRDS_DIR" ]]; then
    die "RECONSTRUCT_CRDS_DIR=$RECONSTRUCT_CRDS_DIR is not a folder"
  fi
}

# Applies every $CLUSTER_CRDS_DIR/*.yaml (server-side: large CRDs exceed the client-side
# annotation limit) and waits until each CRD is Established. Uses KUBECONFIG from the environment.
cluster_install_crds() {
  local kubectl_bin="${1:-kubectl}" crd_dir="$CLUSTER_CRDS_DIR" files=() f
  if [[ -d "$crd_dir" ]]; then
    while IFS= read -r -d '' f; do files+=("$f"); done \
      < <(find "$crd_dir" -maxdepth 1 -type f \( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z)
  fi
  if ((${#files[@]} == 0)); then
    log "no CRDs in $crd_dir: nothing to install"
    return 0
  fi
  log "installing ${#files[@]} CRD file(s) from $crd_dir"
  local out
  for f in "${files[@]}"; do
    if ! out="$("$kubectl_bin" apply --server-side --force-conflicts --field-manager=reconstruct-cluster -f "$f" 2>&1)"; then
      # A controller run killed before it could point a CRD's conversion back at its Service left its
      # own URL there, and an apply cannot remove a field another manager set: replace the CRD as the
      # file has it (the next controller run puts its caBundle back).
      if [[ "$out" == *"exactly one of url or service"* ]]; then
        log "$(basename "$f"): a killed controller run left its URL in the conversion webhook; replacing the CRD"
        "$kubectl_bin" replace -f "$f" >&2
      else
        printf '%s\n' "$out" >&2
        return 1
      fi
    else
      printf '%s\n' "$out" >&2
    fi
  done
  for f in "${files[@]}"; do
    "$kubectl_bin" wait --for=condition=Established --timeout=60s -f "$f" >&2
  done
}

# Lists "address:port process" for every TCP listener of the given pids that is not on loopback.
cluster_nonloopback_listeners() {
  local pids=("$@") p
  ((${#pids[@]})) || return 0
  command -v ss >/dev/null || { log "ss not found (iproute2): cannot check listeners"; return 0; }
  local line addr
  while IFS= read -r line; do
    for p in "${pids[@]}"; do
      if [[ "$line" == *"pid=$p,"* ]]; then
        addr="$(awk '{print $4}' <<<"$line")"
        case "$addr" in
          127.*|\[::1\]:*|localhost:*) ;;
          *) printf '%s %s\n' "$addr" "$(awk '{print $6}' <<<"$line")" ;;
        esac
      fi
    done
  done < <(ss -Hltnp 2>/dev/null)
}

# The pids of the cluster's components (kwokctl's binary runtime writes them under pids/).
cluster_component_pids() {
  local f pid
  [[ -d "$KWOK_CLUSTER_DIR/pids" ]] || return 0
  for f in "$KWOK_CLUSTER_DIR"/pids/*.pid; do
    [[ -f "$f" ]] || continue
    pid="$(tr -dc '0-9' <"$f")"
    if [[ -n "$pid" ]] && cluster_proc_alive "$pid"; then printf '%s\n' "$pid"; fi
  done
}

# The supervisor (supervise.sh) restarts kube-controller-manager, kube-scheduler and the kwok
# controller when they exit. Started once per cluster, in its own session, without our lock fds.
CLUSTER_SUPERVISOR_PID="$CLUSTER_STATE_DIR/supervisor.pid"

cluster_supervisor_running() {
  local pid
  [[ -f "$CLUSTER_SUPERVISOR_PID" ]] || return 1
  pid="$(tr -dc '0-9' <"$CLUSTER_SUPERVISOR_PID")" || return 1
  [[ -n "$pid" ]] && cluster_proc_alive "$pid" && cluster_pid_is_ours "$pid"
}

cluster_start_supervisor() {
  cluster_supervisor_running && return 0
  RECONSTRUCT_PROJECT_DIR="$PROJECT_DIR" setsid bash "$CLUSTER_SCRIPTS_DIR/supervise.sh" "$KWOK_CLUSTER_DIR/" \
    </dev/null >>"$CLUSTER_STATE_DIR/supervisor.log" 2>&1 7>&- 8>&- &
  printf '%s\n' "$!" >"$CLUSTER_SUPERVISOR_PID"
  log "supervisor started (pid $!): restarts kube-controller-manager, kube-scheduler and kwok-controller when they exit"
}

# Stops the supervisor and waits (up to 3 s) until it has, so that it restarts nothing while the
# components are being stopped.
cluster_stop_supervisor() {
  local pid _
  cluster_supervisor_running || return 0
  pid="$(tr -dc '0-9' <"$CLUSTER_SUPERVISOR_PID")"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 30); do
    cluster_proc_alive "$pid" || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Stops every process of the cluster and removes .cluster/. Call with the start lock held.
cluster_stop() {
  if [[ ! -e "$CLUSTER_STATE_DIR" ]]; then
    log "no cluster state in $CLUSTER_STATE_DIR: nothing to stop"
    return 0
  fi
  # Only processes whose command line points into our state dir count as ours (a pid in a stale
  # pid file could have been reused by an unrelated process).
  local pids=() left=() alive=() pid bin_dir="" _
  while IFS= read -r pid; do
    if cluster_pid_is_ours "$pid"; then pids+=("$pid"); fi
  done < <(cluster_component_pids)

  # 1. Nothing restarts a component from now on.
  cluster_stop_supervisor

  # 2. kwokctl stops its components (daemons in their own sessions: they outlive kwokctl).
  [[ -f "$CLUSTER_STATE_DIR/bin-dir" ]] && bin_dir="$(cat "$CLUSTER_STATE_DIR/bin-dir")"
  if [[ -d "$KWOK_CLUSTER_DIR" && -n "$bin_dir" && -x "$bin_dir/kwokctl" ]]; then
    # (unlike create, delete refuses --kubeconfig "": it gets a throwaway file to edit instead)
    kwokctl_run "$bin_dir" delete cluster --name "$CLUSTER_NAME" \
      --kubeconfig "$CLUSTER_STATE_DIR/throwaway-kubeconfig" >&2 \
      || log "kwokctl delete cluster failed: stopping the processes by pid"
  fi

  # 3. Whatever of ours is still alive: TERM, then KILL after 10 s.
  for pid in "${pids[@]}"; do
    if cluster_proc_alive "$pid" && cluster_pid_is_ours "$pid"; then
      kill -TERM "$pid" 2>/dev/null && left+=("$pid")
    fi
  done
  for _ in $(seq 1 50); do
    alive=()
    for pid in "${left[@]}"; do
      if cluster_proc_alive "$pid"; then alive+=("$pid"); fi
    done
    ((${#alive[@]} == 0)) && break
    sleep 0.2
  done
  for pid in "${left[@]}"; do
    if cluster_proc_alive "$pid" && cluster_pid_is_ours "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done

  rm -rf "$CLUSTER_STATE_DIR"
  log "cluster stopped, $CLUSTER_STATE_DIR removed"
}

cluster_pid_is_ours() {
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF "$CLUSTER_STATE_DIR/"
}

# True when the process exists and is not a zombie (kill -0 succeeds on zombies, and the
# components' parent, kwokctl, is gone before they are).
cluster_proc_alive() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ -n "$stat" && "${stat%% *}" != Z ]]
}

# Prints N distinct random TCP ports in 20000-29999 that nothing on 127.0.0.1 accepts on.
# (kwokctl would pick the free ports counting down from 32767, so concurrent clusters on one
# machine, say of two work trees, race for the same ports.)
cluster_pick_ports() {
  local n="$1" port picked=" "
  while ((n > 0)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 10000))
    [[ "$picked" == *" $port "* ]] && continue
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    picked+="$port "
    printf '%s\n' "$port"
    n=$((n - 1))
  done
}
