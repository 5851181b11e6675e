#!/usr/bin/env bash
# The dev loop as an author drives it from a terminal: `npm run dev` (reconstruct dev) in a tmux session,
# in a project `reconstruct init` made (its first kind, WebApp, and its sample web-app-sample), then:
#
#   1. an edit of the construct (a label on the Deployment): the time from the save to the label on the
#      live Deployment, printed (docs/GUIDE.md, "The dev loop", has the figure of this machine)
#   2. an edit with a type error: the error shown with its file and line, and the build before it still
#      running (the Deployment, deleted, comes back with the label of step 1)
#   3. a schema change (a new optional field, used by the construct) and a sample that sets it: gen writes
#      the types and the CRD, the CRD is installed, and the sample's Deployment has the field's label
#   4. Ctrl-C: the controller stops, the cluster stays up (stopped here after)
#
#   bash scripts/dev-session.sh PROJECT_DIR
#
# Each step waits for what it checks at most STEP_TIMEOUT seconds (default 60: a busy machine); the
# figures are printed, not asserted. Needs tmux.
set -euo pipefail

PROJECT="$(cd "$1" && pwd)"
STEP_TIMEOUT="${STEP_TIMEOUT:-60}"
SESSION="reconstruct-dev-$$"
OUT="$(mktemp "${TMPDIR:-/tmp}/reconstruct-dev-session.XXXXXX")"
CONSTRUCT="$PROJECT/src/web-app/web-app.ts"
SCHEMA="$PROJECT/src/web-app/schema.ts"

log() { printf '[dev-session] %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  log "--- the terminal's output ---"
  cat "$OUT" >&2 || true
  exit 1
}

command -v tmux >/dev/null || die "tmux is needed (apt-get install tmux)"
cd "$PROJECT"

# shellcheck disable=SC2317  # invoked through the EXIT trap
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  npx reconstruct cluster down >/dev/null 2>&1 || true
  rm -f "$OUT"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }

# Waits until the terminal's output has a line matching $1 (an extended regex) after line $2.
wait_output() {
  local pattern="$1" after="${2:-0}" deadline=$((SECONDS + STEP_TIMEOUT))
  until tail -n +"$((after + 1))" "$OUT" | grep -aqE "$pattern"; do
    ((SECONDS < deadline)) || die "no line matching /$pattern/ within ${STEP_TIMEOUT}s"
    sleep 0.1
  done
}

lines() { wc -l <"$OUT"; }

# Waits until `kubectl get $1 -o jsonpath=$2` prints $3; echoes the milliseconds since $4.
wait_live() {
  local object="$1" path="$2" want="$3" since="$4" deadline=$((SECONDS + STEP_TIMEOUT))
  until [[ "$(kubectl get "$object" -o "jsonpath=$path" 2>/dev/null)" == "$want" ]]; do
    ((SECONDS < deadline)) || die "$object: $path is not \"$want\" within ${STEP_TIMEOUT}s"
    sleep 0.05
  done
  echo $(($(now_ms) - since))
}

# Replaces the first $2 in file $1 with $3 (a save, as an editor's: the whole file written at once).
edit() {
  node -e '
    const fs = require("fs");
    const [file, from, to] = process.argv.slice(1);
    const text = fs.readFileSync(file, "utf8");
    if (!text.includes(from)) { console.error(`${file}: no "${from}"`); process.exit(1); }
    fs.writeFileSync(file, text.replace(from, to));
  ' "$1" "$2" "$3"
}

log "npm run dev in tmux session $SESSION"
tmux new-session -d -s "$SESSION" -x 200 -y 50
tmux pipe-pane -t "$SESSION" -o "cat >> '$OUT'"
tmux send-keys -t "$SESSION" "cd '$PROJECT' && npm run dev" Enter
wait_output '✓ build 1 running'
wait_output 'Ready=True'
export KUBECONFIG="$PROJECT/.cluster/kubeconfig"
PATH="$(cat "$PROJECT/.cluster/bin-dir"):$PATH"

log "1. a label on the Deployment"
mark=$(lines)
start=$(now_ms)
edit "$CONSTRUCT" 'metadata: { name },' "metadata: { name, labels: { edited: 'yes' } },"
ms=$(wait_live deploy/web-app-sample '{.metadata.labels.edited}' yes "$start")
wait_output '✓ build 2 running' "$mark"
log "   the label on the live Deployment ${ms} ms after the save"
SAVE_TO_CHILD_MS=$ms

log "2. a type error"
mark=$(lines)
edit "$CONSTRUCT" 'replicas: spec.replicas,' "replicas: spec.replicas + 'x',"
wait_output 'web-app\.ts:[0-9]+:[0-9]+ - error TS2322' "$mark"
wait_output 'build 2 keeps running' "$mark"
kubectl delete deploy web-app-sample --wait=true >/dev/null
start=$(now_ms)
ms=$(wait_live deploy/web-app-sample '{.metadata.labels.edited}' yes "$start")
log "   error shown; build 2 recreated the deleted Deployment in ${ms} ms"
mark=$(lines)
edit "$CONSTRUCT" "replicas: spec.replicas + 'x'," 'replicas: spec.replicas,'
wait_output '✓ no errors; build 2' "$mark"

log "3. a new optional field, and a sample that sets it"
mark=$(lines)
edit "$SCHEMA" '      port: {' "      team: { type: 'string', description: 'The team that owns it.' },
      port: {"
edit "$CONSTRUCT" "labels: { edited: 'yes' }" "labels: { edited: 'yes', ...(spec.team ? { team: spec.team } : {}) }"
wait_output 'gen: wrote .*types\.generated\.ts' "$mark"
wait_output 'crd: installed webapps\.' "$mark"
wait_output '✓ build 3 running' "$mark"
start=$(now_ms)
cat >samples/team.yaml <<EOF
$(grep -m1 '^apiVersion:' samples/web-app.yaml)
kind: WebApp
metadata:
  name: team-sample
spec:
  team: payments
EOF
ms=$(wait_live deploy/team-sample '{.metadata.labels.team}' payments "$start")
log "   the new sample's Deployment has team=payments ${ms} ms after the sample's save"
grep -q 'team:' crds/*webapps*.yaml || die "the CRD file has no team field"

log "4. Ctrl-C"
mark=$(lines)
tmux send-keys -t "$SESSION" C-c
wait_output 'the cluster stays up' "$mark"
kubectl get --raw /readyz >/dev/null || die "the cluster is not up after Ctrl-C"

log "passed: save to changed child ${SAVE_TO_CHILD_MS} ms"
