/**
 * `reconstruct init` and `reconstruct create kind`, in-process on temporary folders: the files they write,
 * what they refuse (a folder with files in it, files they would overwrite, bad names) and the registration
 * of a new kind in src/kinds.ts. That the new project installs and passes its own tests is
 * scripts/example.sh's part (CI), on the packed package.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runInThisContext } from 'node:vm';
import { transpileModule } from 'typescript';
import { createCommand, initCommand, registerKind } from '../../cli/init';
import { dockerfile } from '../../cli/scaffold/dockerfile';
import { kindSchema } from '../../cli/scaffold/kind';
import { kindNames } from '../../cli/scaffold/names';
import { version, devDependencies } from '../../package.json';
import { capture } from '../support/capture';
import { reconstruct } from '../support/node-ts';

// The types' generator formats with prettier, which imports itself dynamically: jest's module loader cannot
// (without --experimental-vm-modules). Its output is gen's concern (gen.test.ts); the test of the generated
// types below runs `reconstruct gen --check` on a new project in a node of its own.
jest.mock('json-schema-to-typescript', () => ({
  compile: (_schema: unknown, name: string) => Promise.resolve(`export interface ${name} {}\n`),
}));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'init-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(
  command: typeof initCommand | typeof createCommand,
  args: string[],
  cwd = dir,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = capture();
  const err = capture();
  const code = await command(args, { out, err }, cwd);
  return { code, stdout: out.text(), stderr: err.text() };
}
const init = (...args: string[]) => run(initCommand, args);
const create = (...args: string[]) => run(createCommand, args);

/** Every file under `root`, relative, sorted. */
function files(root: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((e) => (statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : [join(d, e)]));
  return walk(root)
    .map((f) => relative(root, f))
    .sort();
}
const read = (path: string) => readFileSync(join(dir, path), 'utf8');

interface PackageJson {
  name: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
const packageJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as PackageJson;

const KIND_FILES = (folder: string, crd: string) => [
  `crds/${crd}.yaml`,
  `samples/${folder}.yaml`,
  `src/${folder}/${folder}.ts`,
  `src/${folder}/index.ts`,
  `src/${folder}/schema.ts`,
  `src/${folder}/types.generated.ts`,
  `test/${folder}/${folder}.cluster.test.ts`,
  `test/${folder}/${folder}.test.ts`,
  `test/${folder}/reconcile.test.ts`,
];

describe('reconstruct init DIR', () => {
  it('writes the project and its first kind, and says what to run next', async () => {
    const { code, stdout, stderr } = await init(join(dir, 'shop'), '--kind', 'WebApp');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(files(join(dir, 'shop'))).toEqual(
      [
        '.ci/run',
        '.dockerignore',
        '.gitignore',
        'Dockerfile',
        'README.md',
        'jest.config.js',
        'package.json',
        'src/kinds.ts',
        'test/support/cluster.ts',
        'tsconfig.build.json',
        'tsconfig.json',
        ...KIND_FILES('web-app', 'example.com_webapps'),
      ].sort(),
    );
    expect(stdout).toContain('wrote 20 files');
    expect(stdout).toMatch(/next: cd .*shop && npm install && npm test\n$/);
    expect(statSync(join(dir, 'shop', '.ci/run')).mode & 0o111).not.toBe(0);
  });

  it('writes the Dockerfile the worked example builds its image with (its kinds module aside)', async () => {
    await init(join(dir, 'shop'));
    const written = readFileSync(join(dir, 'shop', 'Dockerfile'), 'utf8');
    expect(written).toBe(dockerfile('dist/kinds.js'));
    expect(written).toContain('CMD ["controller", "--kinds", "dist/kinds.js", "--no-builtin-kinds"]');
    const example = readFileSync(join(__dirname, '../../examples/static-site/Dockerfile'), 'utf8');
    expect(example).toBe(dockerfile('dist/index.js'));
  });

  it('names the package after the folder, with this version of cdk8s-reconstruct and TypeScript 5.9', async () => {
    await init(join(dir, 'My Operator'));
    const pkg = packageJson(join(dir, 'My Operator', 'package.json'));
    expect(pkg.name).toBe('my-operator');
    expect(pkg.dependencies).toEqual({
      'cdk8s-reconstruct': `^${version}`,
      cdk8s: `^${devDependencies.cdk8s}`,
      'cdk8s-plus-27': `^${devDependencies['cdk8s-plus-27']}`,
      constructs: `^${devDependencies.constructs}`,
    });
    expect(pkg.devDependencies.typescript).toMatch(/^~5\.9\./);
    expect(Object.keys(pkg.devDependencies).sort()).toEqual([
      '@types/jest',
      '@types/node',
      'jest',
      'ts-jest',
      'tsx',
      'typescript',
    ]);
    // npm test needs nothing but Node; the in-cluster tests run in a cluster of their own.
    expect(pkg.scripts.test).toContain('--check');
    expect(pkg.scripts.test).toContain('--selectProjects unit');
    expect(pkg.scripts['test:cluster']).toMatch(/^reconstruct cluster run -- jest --selectProjects cluster/);
  });

  it('writes the schema so that it evaluates to the schema the CRD and types were generated from', async () => {
    await init(dir, '--kind', 'WebApp', '--group', 'shop.example.org', '--version', 'v1beta1');
    const exports: Record<string, unknown> = {};
    const js = transpileModule(read('src/web-app/schema.ts'), { compilerOptions: { module: 1 } }).outputText;
    // As node's module wrapper runs it; its one import is a type, which compiles to nothing.
    const module = runInThisContext(`(function (exports, require) {${js}\n})`) as (
      exports: object,
      require: () => object,
    ) => void;
    module(exports, () => ({}));
    expect(exports.webAppSchema).toEqual(kindSchema(kindNames('WebApp', 'shop.example.org', 'v1beta1')));
    expect(read('crds/shop.example.org_webapps.yaml')).toContain('name: webapps.shop.example.org');
    expect(read('src/web-app/types.generated.ts')).toContain('export interface WebAppSpecWithDefaults');
    expect(read('src/web-app/index.ts')).toContain("apiVersion: 'shop.example.org/v1beta1'");
  });

  it('writes into the current folder by default, when it holds nothing but .git', async () => {
    mkdirSync(join(dir, '.git'));
    const { code, stdout } = await init();
    expect(code).toBe(0);
    expect(stdout).toMatch(/^wrote 20 files in \.:\n/);
    expect(stdout).toMatch(/next: npm install && npm test\n$/);
    expect(existsSync(join(dir, 'package.json'))).toBe(true);
  });

  it('refuses a folder that is not empty, naming what is there, and writes nothing', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const { code, stderr } = await init(dir);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^reconstruct init: .* is not empty \(notes\.txt\): .*create kind NAME.*--force/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(files(dir)).toEqual(['notes.txt']);
  });

  it('with --force, writes into it, over files of the same names, and leaves the others', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    writeFileSync(join(dir, 'README.md'), 'old');
    expect((await init(dir, '--force')).code).toBe(0);
    expect(read('notes.txt')).toBe('mine');
    expect(read('README.md')).toContain('reconstruct init');
  });

  it.each([
    [['--kind', 'webApp'], 'kind "webApp": a kind is UpperCamelCase'],
    [['--kind', 'Web-App'], 'kind "Web-App": a kind is UpperCamelCase'],
    [['--kind', 'Map'], 'kind "Map": a class of that name would hide JavaScript\'s global Map'],
    [
      ['--kind', 'Testing'],
      'kind "Testing": a class of that name would clash with the Testing the generated code imports',
    ],
    [['--kind', 'Schema'], 'kind "Schema": its folder "schema" would clash'],
    [['--kind', `A${'b'.repeat(40)}`], 'too long; at most 40 characters as "abbbb'],
    [['--kind', 'AbAbAbAbAbAbAbAbAbAbAbAbAbAbAb'], 'too long; at most 40 characters as "ab-ab-ab'],
    [
      ['--group', 'example'],
      '--group "example": an API group is a lower-case DNS name with at least one dot',
    ],
    [['--group', 'Example.com'], '--group "Example.com"'],
    [['--version', 'v1.0'], '--version "v1.0": a Kubernetes API version'],
    [['--version', 'alpha1'], '--version "alpha1"'],
    [['--kinds', 'src/kinds.ts'], '--kinds and --no-builtin-kinds are not options of this command'],
    [['a', 'b'], 'one folder at most'],
  ])('refuses %j in one line, exit status 2, writing nothing', async (args, message) => {
    const { code, stderr } = await init(...args.map((a) => (a === 'a' || a === 'b' ? join(dir, a) : a)));
    expect(stderr).toContain(message);
    expect(stderr).toMatch(/^reconstruct init: [^\n]*\n$/);
    expect(code).toBe(2);
    expect(files(dir)).toEqual([]);
  });

  it('prints its help with --help, and a usage error for an unknown option', async () => {
    const help = await init('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: reconstruct init \[DIR\]/);
    const wrong = await init('--kid', 'X');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^reconstruct init: Unknown option '--kid'/);
  });
});

describe('reconstruct create kind NAME', () => {
  beforeEach(async () => {
    expect((await init(dir, '--group', 'shop.example.org')).code).toBe(0);
  });

  it("adds the kind's files, in the project's group, and registers it in src/kinds.ts", async () => {
    const before = files(dir);
    const { code, stdout, stderr } = await create('kind', 'Cache');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const added = files(dir).filter((f) => !before.includes(f));
    expect(added).toEqual(KIND_FILES('cache', 'shop.example.org_caches'));
    expect(stdout).toContain('src/kinds.ts');
    expect(read('src/kinds.ts')).toContain(
      "import { webAppKind } from './web-app';\nimport { cacheKind } from './cache';\n\nexport const kinds = [webAppKind, cacheKind];",
    );
    expect(read('src/cache/index.ts')).toContain("apiVersion: 'shop.example.org/v1alpha1'");
  });

  it('takes --group and --version over the project’s', async () => {
    expect((await create('kind', 'Policy', '--group', 'policy.example.org', '--version', 'v2')).code).toBe(0);
    expect(read('src/policy/index.ts')).toContain("apiVersion: 'policy.example.org/v2'");
    expect(read('src/policy/index.ts')).toContain("plural: 'policies'");
  });

  it('refuses to overwrite a kind, naming the files, and changes nothing; --force overwrites, registering once', async () => {
    writeFileSync(join(dir, 'src/web-app/schema.ts'), 'edited');
    const kinds = read('src/kinds.ts');
    const { code, stderr } = await create('kind', 'WebApp');
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^reconstruct create: would overwrite src\/web-app\/schema\.ts, .* and \d+ more; --force/,
    );
    expect(read('src/web-app/schema.ts')).toBe('edited');

    expect((await create('kind', 'WebApp', '--force')).code).toBe(0);
    expect(read('src/web-app/schema.ts')).toContain('webAppSchema');
    expect(read('src/kinds.ts')).toBe(kinds);
  });

  it.each([
    [['kind', 'cache'], 2, 'kind "cache": a kind is UpperCamelCase'],
    [['kind'], 2, 'give the kind'],
    [['api', 'Cache'], 2, 'create what?'],
    [['kind', 'A', 'B'], 2, 'one kind at a time'],
  ])('refuses %j in one line', async (args, status, message) => {
    const before = files(dir);
    const { code, stderr } = await create(...args);
    expect(stderr).toContain(message);
    expect(stderr).toMatch(/^reconstruct create: [^\n]*\n$/);
    expect(code).toBe(status);
    expect(files(dir)).toEqual(before);
  });

  it("writes the in-cluster tests' helpers when the project has none, and no more than the kind otherwise", async () => {
    rmSync(join(dir, 'test/support/cluster.ts'));
    const { stdout } = await create('kind', 'Cache');
    expect(stdout).toContain('  test/support/cluster.ts\n');
    expect(existsSync(join(dir, 'test/support/cluster.ts'))).toBe(true);
    expect((await create('kind', 'Queue')).stdout).not.toContain('test/support/cluster.ts');
  });

  it("says so when package.json's group is what is wrong", async () => {
    const pkg = packageJson(join(dir, 'package.json'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, reconstruct: { group: 'shop' } }));
    const { code, stderr } = await create('kind', 'Cache');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^reconstruct create: package\.json reconstruct\.group "shop": an API group is/);
  });

  it('refuses a folder that is not a project', async () => {
    const elsewhere = join(dir, 'src/web-app');
    const { code, stderr } = await run(createCommand, ['kind', 'Cache'], elsewhere);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'reconstruct create: no src/kinds.ts here: run it at the root of a project that `reconstruct init` made\n',
    );
  });
});

describe('the generated CRDs and types', () => {
  const ROOT = join(__dirname, '../..');
  /** The CLI from the sources, in a node of its own; `cdk8s-reconstruct` is this repository's index.ts. */
  const cli = (args: string[], cwd: string) => {
    const stub = join(dir, 'stub', 'cdk8s-reconstruct');
    mkdirSync(stub, { recursive: true });
    writeFileSync(
      join(stub, 'index.js'),
      `module.exports = require(${JSON.stringify(join(ROOT, 'index.ts'))});\n`,
    );
    const env = { ...process.env, NODE_PATH: [join(dir, 'stub'), join(ROOT, 'node_modules')].join(':') };
    const result = reconstruct(args, { cwd, env });
    return { status: result.status, stderr: result.stderr };
  };

  it("are what the project's own `npm run gen -- --check` finds: up to date, for both kinds", () => {
    const project = join(dir, 'shop');
    expect(cli(['init', 'shop', '--kind', 'WebApp'], dir)).toEqual({ status: 0, stderr: '' });
    expect(cli(['create', 'kind', 'Cache'], project)).toEqual({ status: 0, stderr: '' });
    const gen = packageJson(join(project, 'package.json')).scripts.gen;
    const [command, ...args] = gen.split(' ');
    expect(command).toBe('reconstruct');
    expect(cli([...args, '--check'], project)).toEqual({ status: 0, stderr: '' });
  }, 60_000);
});

describe('registerKind (src/kinds.ts)', () => {
  const cache = kindNames('Cache', 'example.com', 'v1');

  it('adds the import after the last one and the kind at the end of the list, over lines when long', () => {
    const source = `import { aKind } from './a';\n\nexport const kinds = [\n  aLongKindNameThatFillsTheLine,\n  anotherLongKindNameToo,\n];\n`;
    expect(registerKind(source, cache)).toBe(
      `import { aKind } from './a';\nimport { cacheKind } from './cache';\n\nexport const kinds = [\n  aLongKindNameThatFillsTheLine,\n  anotherLongKindNameToo,\n  cacheKind,\n];\n`,
    );
  });

  it('leaves a module that imports the kind already as it is, in either quotes', () => {
    const source = `import { cacheKind } from './cache';\nexport const kinds = [cacheKind];\n`;
    expect(registerKind(source, cache)).toBe(source);
    expect(registerKind(source.replace(/'/g, '"'), cache)).toBe(source.replace(/'/g, '"'));
  });

  it('adds after imports in double quotes too', () => {
    expect(registerKind(`import { aKind } from "./a";\n\nexport const kinds = [aKind];\n`, cache)).toBe(
      `import { aKind } from "./a";\nimport { cacheKind } from './cache';\n\nexport const kinds = [aKind, cacheKind];\n`,
    );
  });

  it('adds to an empty list with a type, and refuses a module without a list', () => {
    expect(registerKind('export const kinds: Kind[] = [];\n', cache)).toBe(
      "import { cacheKind } from './cache';\n\nexport const kinds: Kind[] = [cacheKind];\n",
    );
    expect(() => registerKind('export default [];\n', cache)).toThrow(
      'src/kinds.ts has no `export const kinds = [...]` to add cacheKind to: add it there by hand',
    );
  });
});
