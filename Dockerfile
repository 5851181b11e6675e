# The controller image: `reconstruct controller` as uid 65532, nothing written at runtime (it runs with
# readOnlyRootFilesystem, see controller/install/install.ts).
#
#   docker build -t reconstruct:0.2.0 .
#   reconstruct install --image reconstruct:0.2.0 | kubectl apply -f -
#
# For your own kinds, start from this file: copy your project (its kinds module and its package.json with
# cdk8s-reconstruct as a dependency) instead of ours, and run `controller --kinds <your module>`.
#
# Both stages use the same base, so the node_modules built in the first run in the second (no native
# modules today, but a glibc build would not load on musl).

# --- build: compile with the dev dependencies, then drop them ---------------------------------------
FROM node:20-alpine AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json index.ts ./
COPY cli ./cli
COPY constructs ./constructs
COPY controller ./controller
COPY crds ./crds
COPY synth ./synth
RUN npm run build && npm prune --omit=dev --no-audit --no-fund
# cdk8s, constructs and cdk8s-plus-27 are peer dependencies (a cdk8s app brings its own), pinned for us as
# dev dependencies, so the pruned tree lacks them: installed apart at those versions and added.
RUN mkdir /peers && cd /peers && npm init -y >/dev/null \
 && npm install --no-audit --no-fund $(node -p "const d = require('/app/package.json').devDependencies; \
      ['cdk8s', 'constructs', 'cdk8s-plus-27'].map((n) => n + '@' + d[n]).join(' ')") \
 && cp -rn /peers/node_modules/. /app/node_modules/

# --- runtime: node, the compiled code and the production dependencies -------------------------------
FROM node:20-alpine
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
