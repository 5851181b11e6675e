#!/usr/bin/env bash
# The worked example (examples/static-site/) as an operator author runs it: a project of its own,
# outside this repository, that installs the PACKED package next to its own (old) cdk8s versions.
#
#   1. build and pack this package (npm pack; prepack builds it)
#   2. copy examples/static-site/ to a temporary folder (never its node_modules/, .cluster/, dist/)
#   3. npm install there, then npm install the packed tarball
#   4. check cdk8s and constructs are single copies (npm ls): the package uses the project's ones
#   5. npm test (tsc --noEmit, reconstruct gen --check, unit and offline tests)
#   6. npx reconstruct cluster run -- npm run test:cluster (install, controller, a site's lifecycle)
#   7. its image, from its own Dockerfile (scripts/image/build.sh --context), run as the install's pod
#      would run it by the repository's image test (test/image/controller.image.test.ts): a StaticSite
#      becomes Ready. RECONSTRUCT_EXAMPLE_IMAGE=0 leaves this step out (say so where you do).
#
# and then a project `reconstruct init` makes, as a new author starts one, with the same tarball:
#
#   8. reconstruct init (the packed package's CLI, as `npx cdk8s-reconstruct init` runs it)
#   9. npm install of the packed tarball there, then `npx reconstruct create kind` for a second kind
#  10. npm test; npm run build (the image's build step) and install --kinds dist/kinds.js (the image's
#      kinds module, without tsx); npm run test:cluster
#  11. npm run dev in a terminal (tmux), edited as an author edits (scripts/dev-session.sh)
#
# The temporary folder goes away on exit (keep it with RECONSTRUCT_EXAMPLE_KEEP=1). The cluster
# binaries come from RECONSTRUCT_BIN_DIR / RECONSTRUCT_CACHE_DIR as for the repository's own tests.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXAMPLE_SRC="$ROOT/examples/static-site"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/reconstruct-example.XXXXXX")"
PROJECT="$WORK/static-site"
INIT_PROJECT="$WORK/my-operator"
mkdir -p "$WORK/tmp"

log() { printf '[example] %s\n' "$*" >&2; }

# The example's cluster is its own: settings meant for another project's cluster must not leak in.
# (RECONSTRUCT_USE_EXISTING_CLUSTER=1 keeps KUBECONFIG: the in-cluster tests then also need
# RECONSTRUCT_EXAMPLE_CLUSTER=1 to agree to run against that cluster.)
unset RECONSTRUCT_PROJECT_DIR RECONSTRUCT_CRDS_DIR
if [[ "${RECONSTRUCT_USE_EXISTING_CLUSTER:-}" != 1 ]]; then unset KUBECONFIG; fi

# shellcheck disable=SC2317  # invoked through the EXIT trap
cleanup() {
  local rc=$?
  trap '' INT TERM
  # `cluster run` tears its cluster down itself; this is for an interrupted run.
  local project
  for project in "$PROJECT" "$INIT_PROJECT"; do
    if [[ -d "$project/.cluster" && -x "$project/node_modules/.bin/reconstruct" ]]; then
      (cd "$project" && TMPDIR="$WORK/tmp" ./node_modules/.bin/reconstruct cluster down) ||
        log "cluster down failed in $project"
    fi
  done
  if [[ "${RECONSTRUCT_EXAMPLE_KEEP:-}" == 1 ]]; then
    log "kept $WORK"
  else
    rm -rf "$WORK"
  fi
  if ((rc == 0)); then log "passed"; else log "FAILED (exit $rc)"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

TIMES=()
step() {
  local name="$1" start=$SECONDS
  shift
  log "== $name"
  "$@"
  TIMES+=("$(printf '%-38s %4ds' "$name" $((SECONDS - start)))")
}

pack() {
  mkdir -p "$WORK/pack"
  (cd "$ROOT" && npm pack --pack-destination "$WORK/pack" >&2)
  local tarballs=("$WORK"/pack/cdk8s-reconstruct-*.tgz)
  if ((${#tarballs[@]} != 1)) || [[ ! -f "${tarballs[0]}" ]]; then
    log "expected one cdk8s-reconstruct-*.tgz in $WORK/pack"
    return 1
  fi
  TARBALL="${tarballs[0]}"
}

copy() {
  mkdir -p "$PROJECT"
  tar -C "$EXAMPLE_SRC" --exclude=./node_modules --exclude=./.cluster --exclude=./dist \
    --exclude=./package-lock.json -cf - . | tar -C "$PROJECT" -xf -
}

install() {
  cd "$PROJECT"
  npm install --no-audit --no-fund
  # From a copy in the project, so that its image's build context holds the package too (the
  # Dockerfile copies the *.tgz that package.json names).
  cp "$TARBALL" .
  npm install --no-audit --no-fund "./$(basename "$TARBALL")"
}

# One version of each, which is the project's own: the package brings no copy of its own.
single_copies() {
  cd "$PROJECT"
  npm ls cdk8s constructs --all
  # shellcheck disable=SC2016  # JavaScript, not shell
  npm ls cdk8s constructs --all --json | node -e '
    const tree = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const want = require("./package.json").dependencies;
    const seen = {};
    (function walk(node) {
      for (const [name, dep] of Object.entries(node.dependencies ?? {})) {
        if (name in want && dep.version) (seen[name] ??= new Set()).add(dep.version);
        walk(dep);
      }
    })(tree);
    let ok = true;
    for (const name of ["cdk8s", "constructs"]) {
      const versions = [...(seen[name] ?? [])];
      if (versions.length !== 1 || versions[0] !== want[name]) {
        console.error(`${name}: expected only ${want[name]}, found ${versions.join(", ") || "none"}`);
        ok = false;
      }
    }
    process.exit(ok ? 0 : 1);
  '
}

unit_tests() {
  cd "$PROJECT"
  npm test
}

cluster_tests() {
  cd "$PROJECT"
  # TMPDIR: the cluster's lock files (named after the project folder) go away with the folder.
  TMPDIR="$WORK/tmp" npx reconstruct cluster run -- npm run test:cluster
}

# The example's image, from its own Dockerfile, with whatever engine the machine has.
image_build() {
  cd "$PROJECT"
  npm run build   # dist/index.js: what `reconstruct install --kinds` reads on this side
  EXAMPLE_IMAGE="$(bash "$ROOT/scripts/image/build.sh" --context "$PROJECT" | tail -n 1)"
}

# The repository's image test, against the example's image and its install (its kinds only).
image_test() {
  cd "$ROOT"
  TMPDIR="$WORK/tmp" RECONSTRUCT_IMAGE="$EXAMPLE_IMAGE" RECONSTRUCT_IMAGE_PROJECT="$PROJECT" \
    RECONSTRUCT_IMAGE_INSTALL_ARGS="--kinds dist/index.js --no-builtin-kinds" \
    bash scripts/cluster/with-cluster.sh npx jest --selectProjects image --runInBand
}

# A project `reconstruct init` makes: the CLI of the package the example installed from the tarball.
init_project() {
  cd "$WORK"
  "$PROJECT/node_modules/.bin/reconstruct" init "$(basename "$INIT_PROJECT")" --group shop.example.com
}

init_install() {
  cd "$INIT_PROJECT"
  # One install: the tarball takes the place of the cdk8s-reconstruct version that package.json names.
  npm install --no-audit --no-fund "$TARBALL"
}

init_create_kind() {
  cd "$INIT_PROJECT"
  npx reconstruct create kind Cache
}

init_unit_tests() {
  cd "$INIT_PROJECT"
  # The first run writes the snapshots, as an author's first run does, also where CI is set.
  npm test -- --ci=false
}

# What the project's Dockerfile runs: the kinds compiled to dist/, and loaded from there without tsx.
init_build() {
  cd "$INIT_PROJECT"
  npm run build
  npx reconstruct install --kinds dist/kinds.js --no-builtin-kinds -o - >"$WORK/install.yaml"
  grep -q '^  name: caches.shop.example.com$' "$WORK/install.yaml"
}

init_cluster_tests() {
  cd "$INIT_PROJECT"
  TMPDIR="$WORK/tmp" npm run test:cluster
}

# The author's loop, driven from a terminal: edits, a type error, a schema change (scripts/dev-session.sh).
init_dev_loop() {
  TMPDIR="$WORK/tmp" bash "$ROOT/scripts/dev-session.sh" "$INIT_PROJECT"
}

log "working in $WORK"
step "npm pack (build)" pack
step "copy examples/static-site" copy
step "npm install + packed package" install
step "npm ls cdk8s constructs" single_copies
step "npm test" unit_tests
step "reconstruct cluster run test:cluster" cluster_tests
if [[ "${RECONSTRUCT_EXAMPLE_IMAGE:-1}" == 0 ]]; then
  log "NOT RUN: the example's image (RECONSTRUCT_EXAMPLE_IMAGE=0)"
else
  step "image: build (its Dockerfile)" image_build
  step "image: run as the install's pod" image_test
fi
step "reconstruct init" init_project
step "init: npm install packed package" init_install
step "init: reconstruct create kind" init_create_kind
step "init: npm test" init_unit_tests
step "init: npm run build + install" init_build
step "init: npm run test:cluster" init_cluster_tests
step "init: npm run dev (a terminal session)" init_dev_loop

log "timings:"
for t in "${TIMES[@]}"; do log "  $t"; done
