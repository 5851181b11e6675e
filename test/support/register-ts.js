/**
 * `node --require` this: the repository's TypeScript sources then load as CommonJS, transpiled as jest
 * transpiles them (swc.js). For what a test runs in a node of its own (test/support/node-ts.ts). No source
 * maps: node would then parse every loaded file's map, cdk8s's inline ones included.
 */
const { addHook } = require('pirates');
const { transformSync } = require('@swc/core');
const options = require('./swc');

addHook((code, filename) => transformSync(code, { ...options, filename }).code, { exts: ['.ts'] });
