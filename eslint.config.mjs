import js from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import tseslint from 'typescript-eslint';

/**
 * What each layer must not import: the data flow runs one way (a resource -> a construct -> synth or the
 * controller), and inside the controller the client knows nothing of the reconcile, the reconcile nothing
 * of the runtime that calls it, and neither anything of the install. `from` names the importing files.
 */
const LAYERS = [
  {
    from: ['constructs/**/*.ts'],
    forbid: '^(\\.\\./)+(controller|synth|cli|testing)(/|$)',
    why: 'constructs are pure: no controller, renderer, CLI or test harness',
  },
  {
    from: ['synth/**/*.ts'],
    forbid: '^(\\.\\./)+(controller|cli)(/|$)',
    why: 'the offline renderer does not depend on the controller or the CLI',
  },
  {
    from: ['controller/kube/**/*.ts', 'controller/*.ts'],
    forbid:
      '^\\.\\./(reconcile|runtime|install)(/|$)|^\\./(reconcile|runtime|install)(/|$)|^(\\.\\./)+(cli|synth)(/|$)',
    why: 'the Kubernetes client is the bottom of the controller: it knows no reconcile, runtime or install',
  },
  {
    from: ['controller/reconcile/**/*.ts'],
    forbid: '^\\.\\./(runtime|install)(/|$)|^(\\.\\./)+(cli|synth)(/|$)',
    why: 'a reconcile is called by the runtime and knows nothing of it (nor of the install)',
  },
  {
    from: ['controller/runtime/**/*.ts'],
    forbid: '^\\.\\./install(/|$)|^(\\.\\./)+(cli|synth)(/|$)',
    why: 'the runtime runs reconciles; the install is a tool of the CLI',
  },
  {
    from: ['controller/install/**/*.ts'],
    forbid: '^\\.\\./(reconcile|runtime)(/|$)|^(\\.\\./)+cli(/|$)',
    why: "the install renders the operator's manifests from the kinds, without running anything",
  },
  {
    from: ['testing/**/*.ts'],
    forbid: '^(\\.\\./)+cli(/|$)',
    why: 'the test harness is the reconciler on an in-memory cluster, without the CLI',
  },
];

export default tseslint.config(
  {
    // examples/ are projects of their own (own tsconfig and dependencies), checked by scripts/example.sh.
    ignores: ['dist/', 'node_modules/', '.cluster/', 'coverage/', 'examples/', '**/*.js', '**/*.mjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  comments.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Files by concern, a few hundred lines at most: a longer one says why at its top, as
      // `/* eslint-disable max-lines -- why */` (a disable without a reason is an error).
      'max-lines': ['error', { max: 400 }],
      '@eslint-community/eslint-comments/require-description': 'error',
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
    },
  },
  {
    // Generated from the kinds' schemas and the API server's OpenAPI: as long as what they describe.
    files: ['**/*.generated.ts'],
    rules: { 'max-lines': 'off' },
  },
  {
    // The reconcile reads as its phases: a function that does not fit a screen is two phases.
    files: ['controller/reconcile/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    // Seams are small interfaces: a test's fake implements the one it stands in for, so the compiler checks
    // what the code under test calls on it. `x as unknown as T` (or `as any as T`) turns that check off.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "TSAsExpression[expression.type='TSAsExpression'][expression.typeAnnotation.type=/^TS(Unknown|Any)Keyword$/]",
          message:
            'No `as unknown as T` in tests: implement the interface the code takes (a KubeClient: test/support/answering-client.ts; a Writer or a ClusterView: the InMemoryCluster of testing/, or a recording writer), type the value where it is made (getJson<T>(), a generic helper, JSON.parse(...) as T for what a type cannot say), or narrow with one cast to a subtype (`as Manifest & { spec: ... }`).',
        },
      ],
    },
  },
  ...LAYERS.map(({ from, forbid, why }) => ({
    files: from,
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: forbid, message: why }] }] },
  })),
);
