import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { synthCommand } from '../../cli/synth';
import { capture } from '../support/capture';

const ROOT = join(__dirname, '../..');

interface Deployment {
  kind: string;
  metadata: { name: string };
  spec: { template: { spec: { containers: { image: string; env?: unknown[] }[] } } };
}

interface Sample {
  kind: string;
  metadata: { name: string };
}
const SAMPLES = join(ROOT, 'samples');

async function run(
  args: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = capture();
  const err = capture();
  const code = await synthCommand(args, out, err, stdin === undefined ? undefined : () => stdin);
  return { code, stdout: out.text(), stderr: err.text() };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'synth-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const BAD_BALANCER = `apiVersion: exposer.hliangzhao.io/v1alpha1
kind: Balancer
metadata: {name: zero, namespace: shop}
spec:
  ports: [{name: http, port: 80}]
  selector: {app: shop}
  backends: [{name: v1, weight: 0}]
`;

describe('reconstruct synth', () => {
  it('renders a folder with every kind into one file per resource', async () => {
    const out = join(dir, 'out');
    const { code, stderr } = await run([SAMPLES, '-o', out]);
    expect(stderr).toBe(
      `${SAMPLES}/mysql-cluster.yaml: Cluster/mysql: left out Secret mysql-root-password: the controller ` +
        'generates /stringData/password when it creates it in the cluster; --include-generated renders one ' +
        'with a fresh value, or name a Secret of your own (key "password") in spec.rootPasswordSecret\n' +
        `${SAMPLES}/mysql-database.yaml: MysqlDatabase/shop: renders no Kubernetes object: its work is ` +
        'outside Kubernetes (MySQL database shop), done by the controller\n' +
        `${SAMPLES}/mysql-user.yaml: MysqlUser/shop-app: left out Secret shop-app-mysql: it waits for input ` +
        'host (Secret mysql-admin key host), port (Secret mysql-admin key port); --inputs FILE gives values, ' +
        '--placeholders renders it marked\n' +
        `rendered 7 resource(s) into ${out}/\n`,
    );
    expect(code).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      '.reconstruct-rendered',
      'balancer.balancer-sample.yaml',
      'cluster.mysql.yaml',
      'databasemanager.example-mysql.yaml',
      'memcached.memcached-sample.yaml',
      'mysqldatabase.shop.yaml',
      'mysqluser.shop-app.yaml',
      'nodepool.master.yaml',
    ]);
    const kinds = parseAllDocuments(readFileSync(join(out, 'balancer.balancer-sample.yaml'), 'utf8')).map(
      (d) => (d.toJS() as { kind: string }).kind,
    );
    expect(kinds).toEqual(['Service', 'ConfigMap', 'Deployment', 'Service', 'Service', 'Service']);
  });

  it('writes one YAML stream to standard output with -o -, with no ownerReferences', async () => {
    const { code, stdout } = await run([join(SAMPLES, 'memcached.yaml'), '-o', '-']);
    expect(code).toBe(0);
    const docs = parseAllDocuments(stdout).map((d) => d.toJS() as { kind: string; metadata: object });
    expect(docs.map((d) => d.kind)).toEqual(['Deployment', 'Service']);
    expect(stdout).not.toContain('ownerReferences');
  });

  it('reports each bad resource as FILE: KIND/NAME: FIELD: message, renders the good ones, exits 1', async () => {
    const input = join(dir, 'in');
    mkdirSync(input);
    writeFileSync(join(input, 'a-good.yaml'), readFileSync(join(SAMPLES, 'memcached.yaml')));
    writeFileSync(
      join(input, 'b-mixed.yaml'),
      `${BAD_BALANCER}---\napiVersion: exposer.hliangzhao.io/v1alpha1\nkind: Balancr\nmetadata: {name: what}\n---\n${readFileSync(join(SAMPLES, 'balancer.yaml'), 'utf8')}`,
    );
    writeFileSync(join(input, 'c-broken.yaml'), 'apiVersion: v1\nkind: [\n');
    const out = join(dir, 'out');
    const { code, stderr } = await run([input, '-o', out, '-n', 'shop']);
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toContain(
      `${join(input, 'b-mixed.yaml')}: Balancer/shop/zero: spec.backends[0].weight: Invalid value: 0: spec.backends[0].weight in body should be greater than or equal to 1`,
    );
    expect(
      lines.some((l) =>
        l.startsWith(
          `${join(input, 'b-mixed.yaml')}: Balancr/what: kind: unknown kind exposer.hliangzhao.io/v1alpha1 Balancr`,
        ),
      ),
    ).toBe(true);
    expect(
      lines.some((l) => l.startsWith(`${join(input, 'c-broken.yaml')}: document 1: invalid YAML at line`)),
    ).toBe(true);
    // The good resources, before and after the bad ones, are still rendered.
    expect(readdirSync(out).sort()).toEqual([
      '.reconstruct-rendered',
      'shop.balancer.balancer-sample.yaml',
      'shop.memcached.memcached-sample.yaml',
    ]);
  });

  it('reports a spec the construct cannot synthesize, naming the field', async () => {
    const file = join(dir, 'no-selector.yaml');
    writeFileSync(
      file,
      BAD_BALANCER.replace('weight: 0', 'weight: 1').replace('  selector: {app: shop}\n', ''),
    );
    const { code, stderr } = await run([file, '-o', '-']);
    expect(code).toBe(1);
    expect(stderr).toContain(`${file}: Balancer/shop/zero: spec.backends[0].selector: Required value`);
  });

  it('reports two resources with the same kind and name instead of overwriting one with the other', async () => {
    writeFileSync(join(dir, 'one.yaml'), readFileSync(join(SAMPLES, 'memcached.yaml')));
    writeFileSync(join(dir, 'two.yaml'), readFileSync(join(SAMPLES, 'memcached.yaml')));
    const { code, stderr } = await run([join(dir, 'one.yaml'), join(dir, 'two.yaml'), '-o', '-']);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${join(dir, 'two.yaml')}: Memcached/memcached-sample: duplicate of the resource in ${join(dir, 'one.yaml')}`,
    );
  });

  it('writes strings that YAML 1.1 readers would take for something else quoted', async () => {
    const file = join(dir, 'lookalikes.yaml');
    writeFileSync(
      file,
      'apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: on}\nspec: {size: 1, image: "on"}\n',
    );
    const { code, stdout } = await run([file, join(SAMPLES, 'database-manager.yaml'), '-o', '-']);
    expect(code).toBe(0);
    const docs = parseAllDocuments(stdout, { version: '1.1' }).map((d) => d.toJS() as Deployment);
    const memcached = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'on');
    expect(memcached?.spec.template.spec.containers[0].image).toBe('on');
    const mysql = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'mysql');
    expect(mysql?.spec.template.spec.containers[0].env).toContainEqual({
      name: 'MYSQL_RANDOM_ROOT_PASSWORD',
      value: 'yes',
    });
  });

  it('explains itself with --help and rejects a call without a path', async () => {
    expect(await run(['--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('FILE: KIND/NAME: FIELD: message') as string,
    });
    expect(await run([])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no PATH given') as string,
    });
  });
});

describe('cdk8s synth (cdk8s.yaml)', () => {
  it('renders samples into one file per resource', () => {
    // --no-check-upgrade: no look on the network for a newer cdk8s-cli.
    const res = spawnSync(
      join(ROOT, 'node_modules/.bin/cdk8s'),
      ['synth', '--output', dir, '--no-check-upgrade'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(res.status).toBe(0);
    const samples = readdirSync(SAMPLES).map(
      (f) => parseAllDocuments(readFileSync(join(SAMPLES, f), 'utf8'))[0].toJS() as Sample,
    );
    expect(readdirSync(dir).sort()).toEqual(
      samples.map((r) => `${r.kind.toLowerCase()}-${r.metadata.name}.k8s.yaml`).sort(),
    );
  }, 120_000);

  it('writes beside the compiled package, never over it (cdk8s synth empties its output folder)', () => {
    const config = parseAllDocuments(readFileSync(join(ROOT, 'cdk8s.yaml'), 'utf8'))[0].toJS() as {
      output: string;
    };
    const outDir = (
      JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { outDir: string } }
    ).compilerOptions.outDir;
    expect(join(ROOT, config.output)).not.toBe(join(ROOT, outDir));
    expect(join(ROOT, outDir).startsWith(join(ROOT, config.output) + '/')).toBe(false);
  });
});

describe('reconstruct synth in a pipeline', () => {
  const CONFIG_MAP =
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\ndata: {mode: "on"}\n';
  const memcached = readFileSync(join(SAMPLES, 'memcached.yaml'), 'utf8');
  const kindsAndNames = (stdout: string) =>
    parseAllDocuments(stdout).map((d) => {
      const o = d.toJS() as { kind: string; metadata: { name: string } };
      return `${o.kind}/${o.metadata.name}`;
    });

  it('reads - from standard input, and passes other manifests through unchanged and in order', async () => {
    const { code, stdout, stderr } = await run(['-', '-o', '-'], `${CONFIG_MAP}---\n${memcached}`);
    expect([code, stderr]).toEqual([0, '']);
    expect(kindsAndNames(stdout)).toEqual([
      'ConfigMap/settings',
      'Deployment/memcached-sample',
      'Service/memcached-sample',
    ]);
    expect(parseAllDocuments(stdout)[0].toJS()).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop' },
      data: { mode: 'on' },
    });
    expect(stdout).toContain('# Source: <stdin> ConfigMap/settings');
  });

  it('with --unknown error, reports them instead; a bad --unknown is a usage error', async () => {
    const refused = await run(['-', '-o', '-', '--unknown', 'error'], CONFIG_MAP);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('<stdin>: ConfigMap/shop/settings: kind: unknown kind v1 ConfigMap');
    expect((await run(['-', '--unknown', 'maybe'], CONFIG_MAP)).code).toBe(2);
  });

  it('re-rendering into a folder removes what the earlier render wrote and no longer writes, and nothing else', async () => {
    const input = join(dir, 'in.yaml');
    const out = join(dir, 'out');
    writeFileSync(input, `${CONFIG_MAP}---\n${memcached}`);
    expect((await run([input, '-o', out])).stderr).toBe(
      `rendered 1 resource(s) and passed 1 document(s) through into ${out}/\n`,
    );
    writeFileSync(join(out, 'kustomization.yaml'), 'resources: []\n'); // the user's own file
    expect(readdirSync(out).sort()).toEqual([
      '.reconstruct-rendered',
      'kustomization.yaml',
      'memcached.memcached-sample.yaml',
      'shop.configmap.settings.yaml',
    ]);

    writeFileSync(input, memcached.replace('memcached-sample', 'renamed'));
    const { code, stderr } = await run([input, '-o', out]);
    expect(code).toBe(0);
    expect(stderr).toBe(`rendered 1 resource(s) into ${out}/, removed 2 file(s) of an earlier render\n`);
    expect(readdirSync(out).sort()).toEqual([
      '.reconstruct-rendered',
      'kustomization.yaml',
      'memcached.renamed.yaml',
    ]);
    expect(readFileSync(join(out, '.reconstruct-rendered'), 'utf8')).toBe('memcached.renamed.yaml\n');
  });

  it('reports two outputs that would be written to the same file, and writes the first', async () => {
    const { code, stderr } = await run(['-', '-o', join(dir, 'out')], `${CONFIG_MAP}---\n${CONFIG_MAP}`);
    expect(code).toBe(1);
    expect(stderr).toContain('ConfigMap/shop/settings: ');
    expect(stderr).toContain(
      'shop.configmap.settings.yaml is also written for ConfigMap/shop/settings of <stdin>',
    );
  });
});

describe('reconstruct synth, one document at a time', () => {
  const memcached = (i: number) =>
    `apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: cache-${i}}\nspec: {size: 1}\n`;
  const BOMB = [
    'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
    'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    'f: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n',
  ].join('\n');

  it('renders many documents of one file in order, and reports a bad one in the middle by file and index', async () => {
    const docs = Array.from({ length: 200 }, (_, i) => (i === 99 ? 'kind: a: b\n' : memcached(i + 1)));
    const file = join(dir, 'many.yaml');
    writeFileSync(file, docs.join('---\n'));
    const { code, stdout, stderr } = await run([file, '-o', '-']);
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^${file}: document 100: invalid YAML at line 496, column 7: .*\n$`));
    const names = parseAllDocuments(stdout).map((d) => (d.toJS() as Sample).metadata.name);
    const expected = docs.flatMap((_, i) => (i === 99 ? [] : [`cache-${i + 1}`, `cache-${i + 1}`]));
    expect(names).toEqual(expected);
    expect(stdout.split('\n').filter((l) => l.startsWith('# Source:'))[0]).toBe(
      `# Source: ${file} Memcached/cache-1`,
    );
  }, 30_000); // 200 documents rendered: seconds on a busy machine

  it('writes each output before it reads further: at most two documents are read ahead of the output', async () => {
    const written: number[] = [];
    const out = capture();
    const count = () => out.text().split('# Source:').length - 1;
    async function* lazyStdin() {
      for (let i = 1; i <= 50; i++) {
        written.push(count()); // how many outputs exist when document i is about to be read
        await Promise.resolve();
        yield `${i > 1 ? '---\n' : ''}${memcached(i)}`;
      }
    }
    const err = capture();
    expect(await synthCommand(['-', '-o', '-'], out, err, lazyStdin)).toBe(0);
    expect(count()).toBe(50);
    written.forEach((outputs, i) => expect(outputs).toBeGreaterThanOrEqual(i - 1));
  });

  it('reports an alias bomb and a document over 3 MiB as problems of their documents, and renders the rest', async () => {
    const big = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {x: "${'y'.repeat(3 * 2 ** 20)}"}\n`;
    const file = join(dir, 'hostile.yaml');
    writeFileSync(file, [memcached(1), BOMB, memcached(2), big, memcached(3)].join('---\n'));
    const out = join(dir, 'out');
    const { code, stderr } = await run([file, '-o', out]);
    expect(code).toBe(1);
    expect(stderr.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${file}: document 2: cannot be read: .*alias`, 'i')) as string,
      `${file}: document 4: is 3.0 MiB; the API server takes at most 3 MiB in one object, so it is not read`,
      `rendered 3 resource(s) into ${out}/`,
      '',
    ]);
    expect(readdirSync(out).sort()).toEqual([
      '.reconstruct-rendered',
      'memcached.cache-1.yaml',
      'memcached.cache-2.yaml',
      'memcached.cache-3.yaml',
    ]);
  });

  it('does not echo a 1 MB name: not in a refused resource, nor in a document passed through', async () => {
    const name = 'n'.repeat(1_000_000);
    const file = join(dir, 'long.yaml');
    writeFileSync(
      file,
      `${memcached(1).replace('cache-1', name)}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n---\n${memcached(2)}`,
    );
    const { code, stderr } = await run([file, '-o', join(dir, 'out')]);
    expect(code).toBe(1);
    expect(stderr.length).toBeLessThan(3_000);
    expect(stderr).toContain('characters left out');
    expect(stderr).toContain('its file name would be 1000015 bytes; file systems take at most 255');
    expect(readdirSync(join(dir, 'out'))).toContain('memcached.cache-2.yaml');
  });
});
