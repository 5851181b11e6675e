# The controller image: `reconstruct controller` as uid 65532, nothing written at runtime (it runs with
# readOnlyRootFilesystem, see controller/install/controller-deployment.ts).
#
#   npm run image                  (any of docker, podman, buildah; labels, tag and base: scripts/image/build.sh)
#   docker build -t reconstruct:0.2.0 .
#   reconstruct install --image reconstruct:0.2.0 | kubectl apply -f -
#
# For your own kinds, start from this file: copy your project (its kinds module and its package.json with
# cdk8s-reconstruct as a dependency) instead of ours, and run `controller --kinds <your module>`.
#
# The bases are build arguments: NODE_IMAGE builds (it needs a shell and npm), RUNTIME_IMAGE runs (node
# alone is enough). Keep one C library in both (two Alpine images, or two glibc ones), so that the
# node_modules built in the first run in the second (no native modules today, but a glibc build would not
# load on musl). Where no registry is reachable, scripts/image/base.sh makes both from Debian packages.
ARG NODE_IMAGE=node:20-alpine
ARG RUNTIME_IMAGE=node:20-alpine

# --- build: compile with the dev dependencies, then drop them ---------------------------------------
FROM ${NODE_IMAGE} AS build
# Behind a TLS-inspecting proxy, npm needs its CA: scripts/image/build.sh mounts the host's
# NODE_EXTRA_CA_CERTS file into the build and names it here (this stage only, not in the image).
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
COPY package.json package-lock.json ./
# npm's download cache outlives the build (BuildKit and buildah): a warm build fetches nothing.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json index.ts ./
COPY cli ./cli
COPY constructs ./constructs
COPY controller ./controller
COPY crds ./crds
COPY synth ./synth
RUN npm run build && npm prune --omit=dev --no-audit --no-fund
# cdk8s, constructs and cdk8s-plus-27 are peer dependencies (a cdk8s app brings its own), pinned for us as
# dev dependencies, so the pruned tree lacks them: installed apart at those versions and added.
RUN --mount=type=cache,target=/root/.npm mkdir /peers && cd /peers && npm init -y >/dev/null \
 && npm install --no-audit --no-fund $(node -p "const d = require('/app/package.json').devDependencies; \
      ['cdk8s', 'constructs', 'cdk8s-plus-27'].map((n) => n + '@' + d[n]).join(' ')") \
 && cp -rn /peers/node_modules/. /app/node_modules/
# Nothing at runtime reads type declarations or the dependencies' source maps and docs: ~57 MB less.
# (Our own source maps stay, for NODE_OPTIONS=--enable-source-maps.)
RUN find /app/node_modules /app/dist -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete \
 && find /app/node_modules -type f \( -name '*.map' -o -name '*.md' -o -name '*.markdown' \) -delete

# --- runtime: node, the compiled code and the production dependencies -------------------------------
FROM ${RUNTIME_IMAGE}
# The OCI annotations (https://github.com/opencontainers/image-spec/blob/main/annotations.md);
# scripts/image/build.sh passes the version, the commit and the time.
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
ARG SOURCE=https://www.npmjs.com/package/cdk8s-reconstruct
LABEL org.opencontainers.image.title="reconstruct controller" \
      org.opencontainers.image.description="Kubernetes operators written as cdk8s constructs: the controller of cdk8s-reconstruct" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
# A smaller young generation: ~25 MB less RSS under bursts, for ~10% more CPU in them (docs/BENCHMARKS.md).
ENV NODE_OPTIONS=--max-semi-space-size=4
WORKDIR /app
# Owned by root and only readable by the process: it cannot change its own code.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# 65532 is the "nonroot" uid of distroless images, and what the install manifests' securityContext asks for.
USER 65532:65532
# Health and readiness (/healthz, /readyz) and Prometheus metrics (/metrics); the install manifests
# pass --health-addr=0.0.0.0:8081 --metrics-addr=0.0.0.0:8080.
EXPOSE 8080 8081
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["controller"]
