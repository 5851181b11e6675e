#!/usr/bin/env bash
# Builds health-verdicts (main.go: Argo CD's and kstatus's verdicts on objects, with their own Go code;
# see README.md), cached outside the repository, and prints the binary's path on its last stdout line
# (scripts/go-build.sh):
#
#   ${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/reconstruct}/health-verdicts-<hash>/health-verdicts
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$HERE/../go-build.sh" "$HERE" health-verdicts . health-verdicts \
  "build Argo CD's and kstatus's health verdicts (scripts/health)"
