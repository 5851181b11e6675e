/**
 * How the tests' TypeScript is transpiled, by jest (jest.config.js) and in a node of its own
 * (register-ts.js): as tsc emits it for tsconfig.json (CommonJS, ES2022), without type-checking, which is
 * `npm run lint`'s part.
 */
module.exports = {
  jsc: {
    parser: { syntax: 'typescript' },
    target: 'es2022',
    // tsc's default for target ES2022.
    transform: { useDefineForClassFields: true },
  },
  module: { type: 'commonjs' },
};
