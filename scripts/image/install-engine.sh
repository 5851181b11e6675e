#!/usr/bin/env bash
# For CI on a fresh Debian machine: installs what `npm run image` and `npm run test:image` need, podman
# with runc and mmdebstrap (for the local bases, where no registry is reachable), and configures podman
# for a machine like this one:
#
#   - runc, not crun: crun refuses a host with hybrid cgroups (v1 and v2 mounted together);
#   - no default ulimits: the engine's defaults raise limits a container in a sandbox cannot raise
#     ("error setting rlimit type 7: operation not permitted").
#
# Idempotent; does nothing that is already done. Needs root (apt-get).
set -euo pipefail
# shellcheck source=scripts/image/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
if ((${#missing[@]} > 0)); then
  ((EUID == 0)) || image_die "missing ${missing[*]}: run as root, or apt-get install ${missing[*]}"
  image_log "installing ${missing[*]} (and runc, so that podman does not take crun)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman runc mmdebstrap >/dev/null ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman runc mmdebstrap >/dev/null; }
fi

CONF=/etc/containers/containers.conf.d/50-reconstruct.conf
if [[ ! -f "$CONF" ]]; then
  mkdir -p "$(dirname "$CONF")"
  cat >"$CONF" <<'CONF'
# Written by cdk8s-reconstruct's scripts/image/install-engine.sh (CI): see the reasons there.
[containers]
default_ulimits = []

[engine]
runtime = "runc"
CONF
  image_log "wrote $CONF"
fi
podman --version
