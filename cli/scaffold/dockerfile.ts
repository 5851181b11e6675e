/**
 * The Dockerfile `reconstruct init` writes: the operator's image, built as ours is (the repository's
 * Dockerfile): two stages, the bases as build arguments, the OCI labels, nothing the controller does not
 * read, uid 65532. The worked example (examples/static-site/Dockerfile) is this text for its kinds module;
 * a test keeps the two the same.
 */

/** The Dockerfile of a project whose compiled kinds module is KINDS (a path under dist/). */
export function dockerfile(kinds: string): string {
  return `# The operator's image: \`reconstruct controller\` with this project's kinds, as uid 65532, writing nothing
# at runtime (the install manifests set readOnlyRootFilesystem).
#
#   docker build -t <registry>/<name>:0.1.0 .        (or podman build, buildah bud)
#   npm run build && npx reconstruct install --kinds ${kinds} --no-builtin-kinds \\
#     --image <registry>/<name>:0.1.0 | kubectl apply --server-side -f -
#
# The bases are build arguments: NODE_IMAGE builds (a shell and npm), RUNTIME_IMAGE runs (node is enough).
# Keep one C library in both (two Alpine images, or two glibc ones), so that the node_modules built in the
# first run in the second.
ARG NODE_IMAGE=node:20-alpine
ARG RUNTIME_IMAGE=node:20-alpine

# --- build: compile the kinds with the dev dependencies, then drop them --------------------------------
FROM \${NODE_IMAGE} AS build
# Behind a TLS-inspecting proxy, npm needs its CA: mount the file into the build and name it here.
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
# package.json, its lock, and any package tarball it installs from (a "file:x.tgz" dependency).
COPY package.json package-lock.json *.tgz ./
# npm's download cache outlives the build (BuildKit and buildah): a warm build fetches nothing.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund
# Nothing at runtime reads type declarations or the dependencies' source maps and docs.
RUN find /app/node_modules /app/dist -type f \\( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \\) -delete \\
 && find /app/node_modules -type f \\( -name '*.map' -o -name '*.md' -o -name '*.markdown' \\) -delete

# --- runtime: node, the compiled kinds and the production dependencies --------------------------------
FROM \${RUNTIME_IMAGE}
# The OCI annotations; pass the version, the commit and its time as build arguments.
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
ARG SOURCE=
LABEL org.opencontainers.image.version="\${VERSION}" \\
      org.opencontainers.image.revision="\${REVISION}" \\
      org.opencontainers.image.created="\${CREATED}" \\
      org.opencontainers.image.source="\${SOURCE}"
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and only readable by the process: it cannot change its own code.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# 65532 is the "nonroot" uid of distroless images, and what the install manifests' securityContext asks for.
USER 65532:65532
# /healthz and /readyz, and Prometheus metrics (/metrics): the install manifests pass
# --health-addr=0.0.0.0:8081 --metrics-addr=0.0.0.0:8080.
EXPOSE 8080 8081
ENTRYPOINT ["node", "node_modules/cdk8s-reconstruct/dist/cli/main.js"]
# \`reconstruct install --kinds ${kinds} --no-builtin-kinds\` gives the Deployment these arguments too.
CMD ["controller", "--kinds", "${kinds}", "--no-builtin-kinds"]
`;
}
