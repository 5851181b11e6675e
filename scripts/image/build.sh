#!/usr/bin/env bash
# `npm run image`: builds an operator image from a project's Dockerfile with whatever engine is present
# (docker, podman or buildah; RECONSTRUCT_IMAGE_ENGINE picks one), labelled with the OCI annotations.
#
#   scripts/image/build.sh [--context DIR] [--tag NAME:TAG] [--base auto|public|local]
#
#   --context  the project to build (default: this repository); its Dockerfile takes the build arguments
#              NODE_IMAGE and RUNTIME_IMAGE (the bases), VERSION, REVISION, CREATED and SOURCE
#   --tag      default: reconstruct:<package.json version> for this repository, else <name>:<version>
#   --base     public: the Dockerfile's own base (node:20-alpine, pulled from Docker Hub);
#              local: the bases scripts/image/base.sh makes from Debian packages (for machines that reach
#              no container registry); auto (default): public when it is present or can be pulled
#
# Prints the image's size and how long the build took; the last line of stdout is the image's name.
set -euo pipefail
# shellcheck source=scripts/image/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

CONTEXT="$ROOT" TAG="" BASE="${RECONSTRUCT_IMAGE_BASE:-auto}"
while (($# > 0)); do
  case "$1" in
    --context) CONTEXT="$(cd "$2" && pwd)"; shift 2 ;;
    --tag) TAG="$2"; shift 2 ;;
    --base) BASE="$2"; shift 2 ;;
    -h | --help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) image_die "unknown argument $1 (see --help)" ;;
  esac
done
[[ -f "$CONTEXT/Dockerfile" ]] || image_die "$CONTEXT has no Dockerfile"
[[ -f "$CONTEXT/package.json" ]] || image_die "$CONTEXT has no package.json"
ENGINE="$(image_engine)"

pkg() { node -p "const p = require('$CONTEXT/package.json'); $1"; }
VERSION="$(pkg 'p.version')"
if [[ -z "$TAG" ]]; then
  if [[ "$CONTEXT" == "$ROOT" ]]; then TAG="reconstruct:$VERSION"; else TAG="$(pkg 'p.name.replace(/^@[^/]+\//, "")'):$VERSION"; fi
fi
SOURCE="$(pkg '(typeof p.repository === "string" ? p.repository : p.repository?.url) ?? ""' | sed -e 's/^git+//' -e 's/\.git$//')"
REVISION="unknown" CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
if git -C "$CONTEXT" rev-parse HEAD >/dev/null 2>&1; then
  REVISION="$(git -C "$CONTEXT" rev-parse HEAD)"
  [[ -z "$(git -C "$CONTEXT" status --porcelain -- . 2>/dev/null)" ]] || REVISION="$REVISION-dirty"
  # The commit's time, not the build's: two builds of one commit carry the same labels.
  CREATED="$(TZ=UTC git -C "$CONTEXT" log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)"
fi

case "$BASE" in
  public | local) ;;
  auto)
    if image_exists "$ENGINE" "$IMAGE_PUBLIC_BASE" || "$ENGINE" pull -q "docker.io/library/$IMAGE_PUBLIC_BASE" >/dev/null 2>&1; then
      BASE=public
    else
      image_log "$IMAGE_PUBLIC_BASE cannot be pulled (no registry reachable?): using the local bases made from Debian packages"
      BASE=local
    fi ;;
  *) image_die "--base must be auto, public or local, not $BASE" ;;
esac
ARGS=(--build-arg "VERSION=$VERSION" --build-arg "REVISION=$REVISION" --build-arg "CREATED=$CREATED")
[[ -n "$SOURCE" ]] && ARGS+=(--build-arg "SOURCE=$SOURCE")
if [[ "$BASE" == local ]]; then
  "$(dirname "${BASH_SOURCE[0]}")/base.sh"
  ARGS+=(--build-arg "NODE_IMAGE=$IMAGE_LOCAL_BUILD" --build-arg "RUNTIME_IMAGE=$IMAGE_LOCAL_RUNTIME")
fi

# A TLS-inspecting proxy's CA (the host's NODE_EXTRA_CA_CERTS) for npm in the build stage: mounted for the
# RUN steps, never copied into a layer.
BUILD_MOUNTS=()
if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
  case "$ENGINE" in
    podman | buildah)
      BUILD_MOUNTS+=(--volume "$NODE_EXTRA_CA_CERTS:/run/reconstruct/extra-ca.crt:ro")
      ARGS+=(--build-arg "NODE_EXTRA_CA_CERTS=/run/reconstruct/extra-ca.crt") ;;
    docker) image_log "NODE_EXTRA_CA_CERTS is set: docker builds cannot mount it, so npm in the build trusts Node's own CAs only" ;;
  esac
fi

START=$SECONDS
image_log "building $TAG from $CONTEXT/Dockerfile with $ENGINE ($BASE base)"
case "$ENGINE" in
  docker) docker build "${ARGS[@]}" -t "$TAG" "$CONTEXT" >&2 ;;
  # The RUN steps reach the npm registry through the host's network (no bridge network is needed).
  podman) podman build --network=host --layers "${BUILD_MOUNTS[@]}" "${ARGS[@]}" -t "$TAG" "$CONTEXT" >&2 ;;
  buildah) buildah bud --network=host --layers "${BUILD_MOUNTS[@]}" "${ARGS[@]}" -t "$TAG" "$CONTEXT" >&2 ;;
esac
SIZE="$("$ENGINE" image inspect --format '{{.Size}}' "$TAG")"
image_log "built $TAG in $((SECONDS - START))s: $((SIZE / 1000000)) MB"
printf '%s\n' "$TAG"
