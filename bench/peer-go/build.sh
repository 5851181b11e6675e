#!/usr/bin/env bash
# Builds the Go peer of the benchmark (the controller-runtime memcached-operator in this folder), cached
# outside the repository, and prints the binary's path on its last stdout line (scripts/go-build.sh):
#
#   ${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/reconstruct}/peer-go-<hash>/memcached-operator
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$HERE/../../scripts/go-build.sh" "$HERE" memcached-operator ./cmd peer-go "build the Go peer (bench/peer-go)"
