/**
 * Three projects: `unit` needs nothing but Node; `cluster` needs a real API server (see scripts/cluster);
 * `image` also needs the operator image and a container engine (npm run test:image).
 */
const common = {
  testEnvironment: 'node',
  // Transpile only (test/support/swc.js): `npm run lint` type-checks the tests with tsc.
  transform: { '^.+\\.ts$': ['@swc/jest', { ...require('./test/support/swc'), sourceMaps: 'inline' }] },
  roots: ['<rootDir>/test'],
};

/** @type {import('jest').Config} */
module.exports = {
  // Every core. Jest's default, one fewer, is one worker on a two-core machine: the unit suite then runs in
  // band, a file at a time on one core, and the other core idles while a file waits for the CLI it spawns.
  maxWorkers: '100%',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['\\.cluster\\.test\\.ts$', '\\.image\\.test\\.ts$'],
      // The package's own name, for what imports it as a user would (the docs' code blocks, test/docs).
      moduleNameMapper: {
        '^cdk8s-reconstruct$': '<rootDir>/index.ts',
        '^cdk8s-reconstruct/testing$': '<rootDir>/testing/index.ts',
      },
    },
    {
      ...common,
      displayName: 'cluster',
      testMatch: ['**/*.cluster.test.ts'],
      // Every controller runs with the install's derived RBAC; a 403 fails the test (test/support/forbidden.ts).
      setupFilesAfterEnv: ['<rootDir>/test/support/forbidden.ts'],
      slowTestThreshold: 60,
    },
    {
      ...common,
      displayName: 'image',
      testMatch: ['**/*.image.test.ts'],
      slowTestThreshold: 120,
    },
  ],
};
