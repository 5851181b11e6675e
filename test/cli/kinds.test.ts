/**
 * `--kinds MODULE` as a user runs it: the CLI in a child process (from the sources, as `npx reconstruct`
 * after install runs the compiled JavaScript), with the Greeting kind of test/fixtures/kinds as the user's module.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { synthCommand } from '../../cli/synth';
import { capture } from '../support/capture';
import { reconstruct } from '../support/node-ts';

const ROOT = join(__dirname, '../..');
const GREETING = join(ROOT, 'test/fixtures/kinds/greeting.ts');
const MEMCACHED_SAMPLE = join(ROOT, 'samples/memcached.yaml');

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kinds-'));
  writeFileSync(
    join(dir, 'hello.yaml'),
    'apiVersion: greetings.example.com/v1\nkind: Greeting\nmetadata: {name: hello, namespace: ns}\nspec: {}\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string; docs: Obj[] } {
  const run = reconstruct(args, { cwd: dir, timeout: 60_000 });
  const docs = parseAllDocuments(run.stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null);
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, docs };
}

const names = (docs: Obj[]) => docs.map((d) => `${d.kind}/${d.metadata.name}`);

describe('reconstruct synth --kinds', () => {
  it("renders the module's kinds beside the built-in ones", () => {
    const { status, docs, stderr } = cli([
      'synth',
      'hello.yaml',
      MEMCACHED_SAMPLE,
      '--kinds',
      GREETING,
      '-o',
      '-',
    ]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(names(docs)).toEqual([
      'ConfigMap/hello-greeting',
      'Deployment/memcached-sample',
      'Service/memcached-sample',
    ]);
    expect(docs[0]).toMatchObject({ metadata: { namespace: 'ns' }, data: { message: 'hello' } });
  });

  it('with --no-builtin-kinds, knows only the modules kinds: the others pass through, or are errors with --unknown error', () => {
    const args = [
      'synth',
      'hello.yaml',
      MEMCACHED_SAMPLE,
      '--kinds',
      GREETING,
      '--no-builtin-kinds',
      '-o',
      '-',
    ];
    const passed = cli(args);
    expect(names(passed.docs)).toEqual(['ConfigMap/hello-greeting', 'Memcached/memcached-sample']);
    expect(passed.status).toBe(0);

    const { status, docs, stderr } = cli([...args, '--unknown', 'error']);
    expect(names(docs)).toEqual(['ConfigMap/hello-greeting']);
    expect(stderr).toContain(
      'Memcached/memcached-sample: kind: unknown kind cache.example.com/v1alpha1 Memcached (known: greetings.example.com/v1 Greeting)',
    );
    expect(status).toBe(1);
  });

  it.each([
    ['a missing module', 'nope.js', 'nope.js: no such file'],
    [
      'a module that exports no list of kinds',
      'empty.js',
      'export a list of kinds as the default export or as `kinds`',
    ],
    ['a list holding something else', 'wrong.js', 'item 0 of the list is not a kind made with defineKind'],
  ])('refuses %s in one line, exit 2', async (_what, module, message) => {
    // In-process: a JavaScript module loads with node's own require, as in a node of its own.
    writeFileSync(join(dir, 'empty.js'), 'module.exports = { hello: 1 };\n');
    writeFileSync(join(dir, 'wrong.js'), 'module.exports = { kinds: [{ kind: "X" }] };\n');
    const [out, err] = [capture(), capture()];
    const status = await synthCommand([join(dir, 'hello.yaml'), '--kinds', join(dir, module)], out, err);
    expect(err.text().trim().split('\n')).toEqual([expect.stringContaining(message)]);
    expect(err.text()).toMatch(/^reconstruct synth: --kinds /);
    expect(out.text()).toBe('');
    expect(status).toBe(2);
  });

  it('reports a definition defineKind refuses in one line, naming the module and what is missing', () => {
    const kit = JSON.stringify(join(ROOT, 'index'));
    writeFileSync(
      join(dir, 'broken.ts'),
      `import { defineKind, CONFIG_MAP } from ${kit};\n` +
        `export const kinds = [defineKind({ apiVersion: 'x.example.com/v1', kind: 'X', plural: 'xs',\n` +
        `  schema: { description: 'x', spec: { type: 'object' } }, children: [CONFIG_MAP] } as never)];\n`,
    );
    const { status, stderr } = cli(['synth', 'hello.yaml', '--kinds', 'broken.ts']);
    expect(stderr.trim().split('\n')).toEqual([
      'reconstruct synth: --kinds broken.ts: defineKind(X): construct is missing: give the construct class',
    ]);
    expect(status).toBe(2);
  });

  it('refuses a module whose kind is already defined, naming it', () => {
    writeFileSync(
      join(dir, 'twice.ts'),
      `export { kinds as default } from ${JSON.stringify(GREETING.replace(/\.ts$/, ''))};\n`,
    );
    const { status, stderr } = cli(['synth', 'hello.yaml', '--kinds', GREETING, '--kinds', 'twice.ts']);
    expect(stderr).toContain('kind greetings.example.com/v1/Greeting is defined twice');
    expect(status).toBe(2);
  });
});

describe('reconstruct install --kinds', () => {
  type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
  const rulesOf = (docs: Obj[]) =>
    (docs.find((d) => d.kind === 'ClusterRole') as Obj & { rules: Rule[] }).rules;

  it("installs the module's CRD, grants what its kind needs and runs the controller with the same --kinds", () => {
    const { status, docs } = cli(['install', '--kinds', GREETING, '--no-builtin-kinds']);
    expect(status).toBe(0);
    expect(docs.filter((d) => d.kind === 'CustomResourceDefinition').map((d) => d.metadata.name)).toEqual([
      'greetings.greetings.example.com',
    ]);
    const resources = rulesOf(docs).map((r) => `${r.apiGroups[0]}/${r.resources[0]}`);
    expect(resources).toEqual([
      '/configmaps',
      '/events',
      'apiextensions.k8s.io/customresourcedefinitions',
      'greetings.example.com/greetings',
      'greetings.example.com/greetings/finalizers',
      'greetings.example.com/greetings/status',
    ]);
    const deployment = docs.find((d) => d.kind === 'Deployment') as Obj & {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0].args).toEqual(
      expect.arrayContaining([`--kinds=${GREETING}`, '--no-builtin-kinds']),
    );
  });

  it('beside the built-in kinds, adds to what they need', () => {
    const { docs } = cli(['install', '--kinds', GREETING]);
    const crds = docs.filter((d) => d.kind === 'CustomResourceDefinition').map((d) => d.metadata.name);
    expect(crds).toContain('greetings.greetings.example.com');
    expect(crds).toContain('memcacheds.cache.example.com');
    expect(rulesOf(docs).map((r) => r.resources[0])).toEqual(
      expect.arrayContaining(['deployments', 'greetings']),
    );
  });
});

describe('reconstruct install -o', () => {
  it('says in one line that it cannot write the file, without a stack trace', () => {
    const { status, stderr } = cli(['install', '-o', join(dir, 'no-such-folder', 'install.yaml')]);
    expect(status).toBe(1);
    expect(stderr).toBe(
      `reconstruct install: cannot write ${join(dir, 'no-such-folder', 'install.yaml')}: ENOENT\n`,
    );
  });
});
