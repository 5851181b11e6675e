/**
 * The files of a new operator project besides its kinds: package.json, TypeScript and jest settings, the
 * kinds module (src/kinds.ts), the in-cluster tests' helpers, a Dockerfile, a CI script and a README.
 * The versions written into package.json are this package's own and the ones it is built and tested with.
 */
import { version, devDependencies, peerDependencies } from '../../package.json';
import { sampleName, CRDS_DIR, TYPES_PATTERN } from './kind';
import type { KindNames } from './names';

/** The module every command of the project gives to `--kinds`; `create kind` adds to its list. */
export const KINDS_MODULE = 'src/kinds.ts';
/** Where the in-cluster tests' helpers live; `create kind` writes it when it is missing. */
export const CLUSTER_SUPPORT = 'test/support/cluster.ts';

const KINDS = `--kinds ${KINDS_MODULE}`;
const GEN = `reconstruct gen ${KINDS} --crds ${CRDS_DIR} --types ${TYPES_PATTERN}`;

/** `^x.y.z` of the version this package is developed with (`~` for TypeScript: 5.9, not 6). */
function pinned(name: keyof typeof devDependencies, range = '^'): string {
  return `${range}${devDependencies[name]}`;
}

/** What `create kind` reads back: the group and version a new kind defaults to. */
export interface ProjectSettings {
  readonly group: string;
  readonly version: string;
}

function packageJson(name: string, n: KindNames): string {
  const peers = Object.keys(peerDependencies) as (keyof typeof peerDependencies &
    keyof typeof devDependencies)[];
  const json = {
    name,
    version: '0.1.0',
    description: 'A Kubernetes operator written as cdk8s constructs (cdk8s-reconstruct).',
    private: true,
    scripts: {
      gen: GEN,
      build: 'tsc -p tsconfig.build.json',
      synth: `reconstruct synth samples/ ${KINDS} --no-builtin-kinds -o dist/manifests`,
      test: `tsc --noEmit && ${GEN} --check && jest --selectProjects unit`,
      'test:cluster': 'reconstruct cluster run -- jest --selectProjects cluster --runInBand',
    },
    dependencies: {
      'cdk8s-reconstruct': `^${version}`,
      ...Object.fromEntries(peers.sort().map((peer) => [peer, pinned(peer)])),
    },
    devDependencies: {
      '@types/jest': pinned('@types/jest'),
      '@types/node': pinned('@types/node'),
      jest: pinned('jest'),
      'ts-jest': pinned('ts-jest'),
      tsx: pinned('tsx'),
      typescript: pinned('typescript', '~'),
    },
    engines: { node: '>=20.19' },
    // Read by `reconstruct create kind`: the API group and version of the kinds it adds.
    reconstruct: { group: n.group, version: n.version } satisfies ProjectSettings,
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "commonjs",
    "moduleResolution": "node",
    "lib": ["ES2022"],
    "types": ["node", "jest"],
    "strict": true,
    "noImplicitOverride": true,
    "noFallthroughCasesInSwitch": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "esModuleInterop": true,
    "resolveJsonModule": true,
    "isolatedModules": true,
    "skipLibCheck": true,
    "forceConsistentCasingInFileNames": true,
    "noEmit": true
  },
  "include": ["src", "test"],
  "exclude": ["node_modules", "dist", ".cluster"]
}
`;

/** The compiled kinds for the image: src/ to dist/ (dist/kinds.js is what its controller loads). */
const TSCONFIG_BUILD = `{
  "extends": "./tsconfig.json",
  "compilerOptions": { "noEmit": false, "rootDir": "src", "outDir": "dist", "types": ["node"] },
  "include": ["src"]
}
`;

const JEST_CONFIG = `/**
 * Two projects: \`unit\` (npm test) needs nothing but Node; \`cluster\` (npm run test:cluster) runs in the
 * local control plane that \`reconstruct cluster run\` starts around it.
 */
const transform = { '^.+\\\\.ts$': 'ts-jest' };

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['\\\\.cluster\\\\.test\\\\.ts$'],
    },
    {
      displayName: 'cluster',
      testEnvironment: 'node',
      transform,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.cluster.test.ts'],
    },
  ],
};
`;

const GITIGNORE = `node_modules/
dist/
.cluster/
coverage/
`;

const DOCKERIGNORE = `node_modules
dist
.cluster
.git
coverage
test
`;

const DOCKERFILE = `# The operator's image: \`reconstruct controller\` with this project's kinds, as uid 65532, writing nothing
# at runtime (the install manifests set readOnlyRootFilesystem).
#
#   docker build -t <registry>/<name>:0.1.0 .
#   npm run build && npx reconstruct install --kinds dist/kinds.js --no-builtin-kinds \\
#     --image <registry>/<name>:0.1.0 | kubectl apply --server-side -f -
#
# Both stages use the same base (NODE_IMAGE), so the node_modules built in the first run in the second.
ARG NODE_IMAGE=node:20-alpine

# --- build: compile the kinds with the dev dependencies, then drop them --------------------------------
FROM \${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# --- runtime: node, the compiled kinds and the production dependencies --------------------------------
FROM \${NODE_IMAGE}
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
# \`reconstruct install --kinds dist/kinds.js --no-builtin-kinds\` gives the Deployment these arguments too.
CMD ["controller", "--kinds", "dist/kinds.js", "--no-builtin-kinds"]
`;

const CI_RUN = `#!/usr/bin/env bash
# CI: on a fresh clone, install, then the unit tests (snapshots must be committed: --ci writes none) and
# the in-cluster tests. The local control plane is built once from Go modules (Go 1.26 or newer) into
# ~/.cache/reconstruct; RECONSTRUCT_BIN_DIR points at binaries you have instead.
set -euo pipefail
cd "$(dirname "$0")/.."

node --version
npm ci --no-audit --no-fund
npm test -- --ci
npm run test:cluster -- --ci
`;

function kindsModule(n: KindNames): string {
  return `/**
 * The kinds of this operator: what every command's \`--kinds ${KINDS_MODULE}\` loads (gen, synth, controller,
 * install). \`npx reconstruct create kind NAME\` adds one here.
 */
import { ${n.variable}Kind } from './${n.folder}';

export const kinds = [${n.variable}Kind];
`;
}

const CLUSTER_HELPERS = `/**
 * Helpers of the in-cluster tests (*.cluster.test.ts): kubectl, polling, and the controller of this
 * project's kinds as a child process. They run in the local control plane \`npm run test:cluster\` starts
 * (\`reconstruct cluster run\`), and refuse any other cluster unless RECONSTRUCT_TEST_CLUSTER=1 says so:
 * they create and delete objects.
 */
import { spawn, spawnSync } from 'child_process';
import { join, resolve } from 'path';

export const PROJECT = resolve(__dirname, '../..');
/** How long each step gets. */
const BOUND_MS = 60_000;

export function checkCluster(): void {
  const kubeconfig = process.env.KUBECONFIG ? resolve(process.env.KUBECONFIG) : '';
  const ours = kubeconfig === join(PROJECT, '.cluster', 'kubeconfig');
  if (!ours && process.env.RECONSTRUCT_TEST_CLUSTER !== '1') {
    throw new Error(
      'These tests create and delete objects in a cluster: run them with \`npm run test:cluster\` ' +
        '(a local control plane of their own), or set RECONSTRUCT_TEST_CLUSTER=1 to use the cluster of ' +
        \`KUBECONFIG (\${process.env.KUBECONFIG ?? '~/.kube/config'}).\`,
    );
  }
}

export function kubectl(args: string[], input?: string): string {
  checkCluster();
  const result = spawnSync('kubectl', args, { cwd: PROJECT, encoding: 'utf8', input });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(\`kubectl \${args.join(' ')} failed: \${result.stderr}\`);
  return result.stdout;
}

/** \`kubectl get ARGS -o json\`, or undefined when there is no such object. */
export function getJson(args: string[]): any {
  checkCluster();
  const result = spawnSync('kubectl', ['get', ...args, '-o', 'json'], { cwd: PROJECT, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (/NotFound|not found/.test(result.stderr)) return undefined;
    throw new Error(\`kubectl get \${args.join(' ')} failed: \${result.stderr}\`);
  }
  return JSON.parse(result.stdout);
}

/** A resource's Ready condition. */
export function readyCondition(resource: any): { status: string; reason: string; message: string } | undefined {
  return (resource?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
}

/** Polls \`check\` until it returns something truthy, for at most \`timeoutMs\`; a timeout shows \`state()\`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false,
  state: () => unknown,
  timeoutMs = BOUND_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(\`timed out after \${timeoutMs / 1000}s waiting for \${what}; state:\\n\${JSON.stringify(state(), null, 2)}\`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

export interface Controller {
  /** Its log lines so far. */
  logs(): string[];
  /** SIGTERM, then SIGKILL if it has not exited within 15 s. */
  stop(): Promise<void>;
}

/** Starts \`reconstruct controller --kinds ${KINDS_MODULE}\`; resolves once its caches have synced. */
export async function startController(): Promise<Controller> {
  checkCluster();
  const args = ['controller', '--kinds', '${KINDS_MODULE}', '--no-builtin-kinds'];
  // Any free port for health, no metrics: nothing here polls them.
  args.push('--health-addr', '127.0.0.1:0', '--metrics-addr', '0', '--log-format', 'json');
  // The bin itself rather than npx: one process, which SIGTERM reaches.
  const proc = spawn(join(PROJECT, 'node_modules', '.bin', 'reconstruct'), args, {
    cwd: PROJECT,
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  // Whatever happens to the tests, the controller does not outlive them.
  const kill = () => proc.kill('SIGKILL');
  process.once('exit', kill);
  const lines: string[] = [];
  let partial = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const split = text.split('\\n');
    partial = split.pop() ?? '';
    lines.push(...split);
  });
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  await waitFor(
    'the controller to sync its caches',
    () => {
      if (exited()) throw new Error(\`the controller exited (\${proc.exitCode ?? proc.signalCode}):\\n\${lines.join('\\n')}\`);
      return lines.some((l) => l.includes('caches synced'));
    },
    () => lines.slice(-30),
  );
  return {
    logs: () => lines,
    async stop() {
      process.off('exit', kill);
      if (exited()) return;
      const done = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const timer = setTimeout(kill, 15_000);
      await done;
      clearTimeout(timer);
    },
  };
}
`;

function readme(name: string, n: KindNames): string {
  return `# ${name}

A Kubernetes operator written as [cdk8s](https://cdk8s.io) constructs with
[cdk8s-reconstruct](https://www.npmjs.com/package/cdk8s-reconstruct): each kind is one \`defineKind\`
definition (a CRD schema and the construct that makes a resource's children), rendered offline or
reconciled in a cluster by \`reconstruct controller\`. Made by \`reconstruct init\`.

\`\`\`sh
npm install
npm test                  # tsc --noEmit, reconstruct gen --check, unit and in-memory reconcile tests
npm run test:cluster      # the in-cluster tests, in a local control plane (Linux; see below)
\`\`\`

The first \`npm test\` writes the snapshots (\`test/**/__snapshots__/\`): commit them; \`npm test -- --ci\`
(as \`.ci/run\` runs it) fails when one is missing.

## Layout

| path | what |
| --- | --- |
| \`src/${n.folder}/schema.ts\` | the CRD schema of ${n.kind}, with its defaults (once) |
| \`src/${n.folder}/${n.folder}.ts\` | the construct: a Deployment and a Service selecting this resource's pods |
| \`src/${n.folder}/index.ts\` | \`defineKind\`: schema, construct, children, status; \`${n.kind}Resource\` |
| \`src/${n.folder}/types.generated.ts\`, \`crds/\` | written by \`npm run gen\` from the definitions; \`npm test\` fails when they drift |
| \`${KINDS_MODULE}\` | the list of kinds every command loads with \`--kinds ${KINDS_MODULE}\` |
| \`samples/${n.folder}.yaml\` | a ${n.kind} (\`${sampleName(n)}\`) |
| \`test/${n.folder}/\` | snapshot and construct tests, in-memory reconcile tests, the in-cluster test |
| \`test/support/cluster.ts\` | the in-cluster tests' helpers (kubectl, polling, the controller) |
| \`Dockerfile\`, \`.ci/run\` | the operator's image; what CI runs |

Edit the schema, then \`npm run gen\`. Everything else a kind can say (its own Ready rule, child policies,
watches, work behind a finalizer) is in the guide that comes with the package,
[node_modules/cdk8s-reconstruct/docs/GUIDE.md](node_modules/cdk8s-reconstruct/docs/GUIDE.md), beside a
worked example (\`examples/static-site/\` there); and in \`npx reconstruct COMMAND --help\`.

## Another kind

\`\`\`sh
npx reconstruct create kind Cache      # src/cache/, samples/cache.yaml, test/cache/, registered in ${KINDS_MODULE}
npm run gen && npm test
\`\`\`

It takes \`--group\` and \`--version\` (default: \`reconstruct.group\` and \`reconstruct.version\` in package.json,
here \`${n.group}\` and \`${n.version}\`), and refuses to overwrite a file unless \`--force\`.

## Offline, and in a cluster

\`\`\`sh
npx reconstruct synth samples/ ${KINDS} --no-builtin-kinds -o -   # the samples' children
npm run synth                                                          # the same, into dist/manifests/

npx reconstruct cluster up && export KUBECONFIG=$(npx reconstruct cluster kubeconfig)
npx reconstruct controller ${KINDS} --no-builtin-kinds &
kubectl apply -f samples/ && kubectl get ${n.plural}
npx reconstruct cluster down
\`\`\`

The local control plane (kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok's fake nodes)
is built once from Go modules: it needs Go 1.26 or newer and a few minutes the first time, then it is
cached in \`~/.cache/reconstruct\` (\`RECONSTRUCT_BIN_DIR\` points at binaries you have). Without Go and
without those binaries, \`npm run test:cluster\` fails saying so; \`npm test\` does not need them.

## The image

\`Dockerfile\` builds the operator: \`npm ci\`, the kinds compiled to \`dist/\` (\`npm run build\`), the
production dependencies, run as uid 65532 on \`node:20-alpine\` (\`--build-arg NODE_IMAGE=...\` for another
base). No CI has built it yet (there is no container engine in cdk8s-reconstruct's CI, and \`.ci/run\`
has no image step): build it and try it once by hand:

\`\`\`sh
docker build -t <registry>/${name}:0.1.0 . && docker push <registry>/${name}:0.1.0
npm run build
npx reconstruct install --kinds dist/kinds.js --no-builtin-kinds --image <registry>/${name}:0.1.0 \\
  | kubectl apply --server-side -f -
\`\`\`

\`install\` renders the CRDs, a Namespace, a ServiceAccount with exactly the RBAC these kinds need, and a
Deployment running \`reconstruct controller --kinds dist/kinds.js --no-builtin-kinds\` in the image.
`;
}

/** The project's own files, by path, for a project whose first kind is `n`. */
export function projectFiles(name: string, n: KindNames): Map<string, string> {
  return new Map([
    ['package.json', packageJson(name, n)],
    ['tsconfig.json', TSCONFIG],
    ['tsconfig.build.json', TSCONFIG_BUILD],
    ['jest.config.js', JEST_CONFIG],
    ['.gitignore', GITIGNORE],
    ['.dockerignore', DOCKERIGNORE],
    ['Dockerfile', DOCKERFILE],
    ['.ci/run', CI_RUN],
    ['README.md', readme(name, n)],
    [KINDS_MODULE, kindsModule(n)],
    [CLUSTER_SUPPORT, CLUSTER_HELPERS],
  ]);
}

/** The files written executable. */
export const EXECUTABLE = new Set(['.ci/run']);

/** The helpers `create kind` writes when a project has none. */
export const SHARED_KIND_FILES = new Map([[CLUSTER_SUPPORT, CLUSTER_HELPERS]]);
