/**
 * Two projects: `unit` (npm test) needs nothing but Node; `cluster` (npm run test:cluster) needs the
 * local control plane: `npx reconstruct cluster run -- npm run test:cluster`.
 */
const transform = { '^.+\\.tsx?$': 'ts-jest' };

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/cluster\\.test\\.ts$'],
    },
    {
      displayName: 'cluster',
      testEnvironment: 'node',
      transform,
      roots: ['<rootDir>/test'],
      testMatch: ['**/cluster.test.ts'],
    },
  ],
};
