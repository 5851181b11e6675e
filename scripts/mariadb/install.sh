#!/usr/bin/env bash
# For CI on a fresh Debian machine: installs the MariaDB server and client that the MysqlDatabase and
# MysqlUser tests run (demo/mariadb.ts starts a throwaway server of its own per test file, and one for `npm run demo`).
#
# Idempotent: does nothing when `mariadbd` is already there. Starts no service: the package's own server
# is never used, and a policy-rc.d that refuses every start is in place for the install (kept if the
# machine already had one). Needs root (apt-get).
set -euo pipefail

log() { printf '[mariadb] %s\n' "$*" >&2; }

# Debian installs the server in /usr/sbin, which is not on every user's PATH.
if command -v mariadbd >/dev/null || [[ -x /usr/sbin/mariadbd ]]; then
  exit 0
fi
((EUID == 0)) || { log "error: mariadbd is missing: run as root, or apt-get install mariadb-server mariadb-client"; exit 1; }

POLICY=/usr/sbin/policy-rc.d
if [[ ! -e "$POLICY" ]]; then
  printf '#!/bin/sh\n# Written by scripts/mariadb/install.sh for the install only: start no service.\nexit 101\n' >"$POLICY"
  chmod 755 "$POLICY"
  trap 'rm -f "$POLICY"' EXIT
fi

log "installing mariadb-server and mariadb-client"
install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=300 mariadb-server mariadb-client >/dev/null
}
install || { apt-get update -q -o DPkg::Lock::Timeout=300 >/dev/null && install; }
/usr/sbin/mariadbd --version
