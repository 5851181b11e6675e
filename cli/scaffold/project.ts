/**
 * The files of a new operator project besides its kinds: package.json, TypeScript and jest settings, the
 * kinds module (src/kinds.ts), the in-cluster tests' helpers (./cluster-helpers), a Dockerfile, a CI script
 * and a README (./project-readme).
 * The versions written into package.json are this package's own and the ones it is built and tested with.
 */
import { version, devDependencies, peerDependencies } from '../../package.json';
import { CLUSTER_HELPERS } from './cluster-helpers';
import { CLUSTER_SUPPORT, CRDS_DIR, KINDS_MODULE, KINDS_OPTION as KINDS, TYPES_PATTERN } from './layout';
import type { KindNames } from './names';
import { dockerfile } from './dockerfile';
import { readme } from './project-readme';

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
      dev: 'reconstruct dev',
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

/** The project's own files, by path, for a project whose first kind is `n`. */
export function projectFiles(name: string, n: KindNames): Map<string, string> {
  return new Map([
    ['package.json', packageJson(name, n)],
    ['tsconfig.json', TSCONFIG],
    ['tsconfig.build.json', TSCONFIG_BUILD],
    ['jest.config.js', JEST_CONFIG],
    ['.gitignore', GITIGNORE],
    ['.dockerignore', DOCKERIGNORE],
    ['Dockerfile', dockerfile('dist/kinds.js')],
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
