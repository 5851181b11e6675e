#!/usr/bin/env bash
# Keeps kube-controller-manager, kube-scheduler and the kwok controller running: when one exits, it
# is started again with the command line kwokctl gave it. They exit on their own when they lose
# their leader-election lease, which a paused or overloaded API server makes them do, and nothing
# else would restart them (kwokctl's binary runtime starts daemons and leaves).
#
#   bash supervise.sh <kwok cluster dir>
#
# up.sh starts it in the background, in its own session, and records its pid in
# <project>/.cluster/supervisor.pid; down.sh (cluster_stop) stops it before the components. It
# also ends by itself once the cluster dir is gone. Its log: <project>/.cluster/supervisor.log.
set -uo pipefail

# shellcheck source=scripts/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CLUSTER_DIR="${1:?usage: supervise.sh <kwok cluster dir>}"
COMPONENTS=(kube-controller-manager kube-scheduler kwok-controller)
RECORDS="$CLUSTER_DIR/supervised"   # per component: its command line (NUL-separated) and work dir
mkdir -p "$RECORDS"

say() { printf '%s [supervisor] %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" "$*"; }

pid_of() { tr -dc '0-9' <"$CLUSTER_DIR/pids/$1.pid" 2>/dev/null; }

# What kwokctl ran, read from the live process once (kwok.yaml has the arguments, but not in a form
# a shell loop can replay exactly).
record() {
  local c="$1" pid
  [[ -f "$RECORDS/$c.cmdline" ]] && return 0
  pid="$(pid_of "$c")"
  if [[ -n "$pid" ]] && cluster_proc_alive "$pid"; then
    cat "/proc/$pid/cmdline" >"$RECORDS/$c.cmdline"
    readlink "/proc/$pid/cwd" >"$RECORDS/$c.cwd"
  fi
}

# Starts the component as kwokctl did: in its own session, in its work dir, appending to its log,
# and writes the new pid where kwokctl (and down.sh) look for it.
restart() {
  local c="$1" cmd=() cwd pid
  mapfile -d '' -t cmd <"$RECORDS/$c.cmdline"
  cwd="$(cat "$RECORDS/$c.cwd")"
  # Not a process-group leader (no job control here), so setsid makes the session in place and
  # $! is the component's own pid.
  (cd "$cwd" && exec setsid "${cmd[@]}" >>"$CLUSTER_DIR/logs/$c.log" 2>&1 </dev/null) &
  pid=$!
  printf '%s\n' "$pid" >"$CLUSTER_DIR/pids/$c.pid"
  say "restarted $c (pid $pid)"
}

stopping=0
trap 'stopping=1' TERM INT

for c in "${COMPONENTS[@]}"; do record "$c"; done
say "watching ${COMPONENTS[*]}"

# One that exits again within 10 s of its start waits 1, 2, 4 ... up to 30 s before the next.
declare -A started=() delay=() not_before=()
while ((!stopping)) && [[ -d "$CLUSTER_DIR/pids" ]]; do
  for c in "${COMPONENTS[@]}"; do
    pid="$(pid_of "$c")"
    if [[ -n "$pid" ]] && cluster_proc_alive "$pid"; then continue; fi
    [[ -f "$RECORDS/$c.cmdline" ]] || continue   # never seen running: nothing to replay
    if [[ -z "${not_before[$c]:-}" ]]; then
      say "$c (pid ${pid:-?}) is gone"
      d=0
      if [[ -n "${started[$c]:-}" ]] && ((SECONDS - started[$c] < 10)); then
        d=$((${delay[$c]:-0} == 0 ? 1 : (delay[$c] * 2 > 30 ? 30 : delay[$c] * 2)))
        say "$c exited within 10 s of its start: waiting $d s"
      fi
      delay[$c]=$d
      not_before[$c]=$((SECONDS + d))
    fi
    ((SECONDS >= not_before[$c])) || continue
    restart "$c"
    started[$c]=$SECONDS
    unset "not_before[$c]"
  done
  sleep 1
done
say "stopped"
