#!/usr/bin/env bash
# Renders test/upgrade/samples/ with a released version of the package, into test/upgrade/<version>/:
# what upgrade.test.ts holds main's rendering against. Run once per release, when it is cut:
#
#   bash test/upgrade/record-release.sh 0.2.0 fff6dd2
#
# The release's commit is checked out in a temporary worktree, installed (npm ci) and built; its own
# CLI renders the samples, with the authors' kinds of kinds.ts imported from that build.
set -euo pipefail
cd "$(dirname "$0")/../.."

(($# == 2)) || { echo "usage: $0 VERSION COMMIT" >&2; exit 2; }
version="$1"
commit="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/reconstruct-release.XXXXXX")"
cleanup() { git worktree remove --force "$work/package" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

git worktree add --detach "$work/package" "$commit" >/dev/null
released="$(node -p "require('$work/package/package.json').version")"
[[ "$released" == "$version" ]] || { echo "$commit is $released, not $version" >&2; exit 1; }
(cd "$work/package" && npm ci --no-audit --no-fund --loglevel=error && npm run build >/dev/null)

# A project of its own in which `cdk8s-reconstruct` is the release.
mkdir -p "$work/project/node_modules"
ln -s "$work/package" "$work/project/node_modules/cdk8s-reconstruct"
for dep in cdk8s cdk8s-plus-27 constructs tsx; do
  ln -s "$work/package/node_modules/$dep" "$work/project/node_modules/$dep"
done
sed "s#from '../../index'#from 'cdk8s-reconstruct'#" test/upgrade/kinds.ts >"$work/project/kinds.ts"

rm -rf "test/upgrade/$version"
(cd "$work/project" && node "$work/package/dist/cli/main.js" synth --kinds ./kinds.ts \
  "$OLDPWD/test/upgrade/samples" -o "$OLDPWD/test/upgrade/$version")
rm -f "test/upgrade/$version/.reconstruct-rendered"
# The files name their source by absolute path: keep it relative to the repository.
sed -i "s#^\# Source: $PWD/#\# Source: #" "test/upgrade/$version"/*.yaml
