#!/usr/bin/env bash
# Stops every process up.sh started and removes <project>/.cluster/ (RECONSTRUCT_PROJECT_DIR, by
# default this repository: see lib.sh). Fine to run when nothing is up.
# (It stops the cluster even while a with-cluster.sh run is using it: that is what it is for.)
set -euo pipefail

# shellcheck source=scripts/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cluster_lock_start
cluster_stop
