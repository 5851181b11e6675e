#!/usr/bin/env bash
# Builds the minimal OpenTelemetry Collector of this folder (main.go: OTLP receiver, batch processor,
# file exporter; see README.md), cached outside the repository, and prints the binary's path on its
# last stdout line (scripts/go-build.sh):
#
#   ${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/reconstruct}/otelcol-<hash>/otelcol
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$HERE/../../go-build.sh" "$HERE" otelcol . otelcol "build the OpenTelemetry Collector (scripts/otel/collector)"
