/**
 * `reconstruct migrate` on the local control plane: a CRD of our own with two versions of the same schema
 * (`conversion: None`), objects stored in v1alpha1, then v1beta1 made the storage version. Migrate rewrites
 * every object (its resourceVersion changes), sets storedVersions to [v1beta1], and a second run writes
 * nothing; an object an admission refuses to rewrite is named, and storedVersions stays until it is gone.
 * The local control plane serves StorageVersionMigration (its default feature gates): `--client-side` has
 * the command's own pass do the work in the tests of the pass, the last test has the API server's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateCommand } from '../../cli/migrate';
import { loadClient, type ClientOptions, type KubeClient } from '../../controller/kube/client';
import type { KubeRequest } from '../../controller/kube/http';
import { capture } from '../support/capture';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(300_000);

const DEPRECATION = 'widgets v1alpha1 is on its way out';
const crds: string[] = [];
let ns: string;
let scratch: string;

beforeAll(() => {
  ns = createNamespace('migrate');
  scratch = mkdtempSync(join(tmpdir(), 'migrate-'));
});
afterAll(() => {
  if (crds.length > 0)
    kubectl(['delete', 'crd', ...crds, '--ignore-not-found', '--wait=false'], { allowFail: true });
  if (ns) deleteNamespace(ns);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/**
 * The CRD of a group of our own: v1alpha1 and v1beta1 with one schema, `storage` stored. An object whose
 * spec says `frozen` refuses every update (a CEL transition rule), its rewrite too.
 */
function widgetCrd(group: string, storage: 'v1alpha1' | 'v1beta1') {
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { size: { type: 'integer' }, frozen: { type: 'boolean' } },
          'x-kubernetes-validations': [
            { rule: '!has(oldSelf.frozen) || !oldSelf.frozen', message: 'frozen: no update is allowed' },
          ],
        },
      },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      conversion: { strategy: 'None' },
      versions: ['v1alpha1', 'v1beta1'].map((name) => ({
        name,
        served: true,
        storage: name === storage,
        // Deprecated with the storage change: its warning says when the API server serves the new CRD.
        ...(name === 'v1alpha1' && storage === 'v1beta1'
          ? { deprecated: true, deprecationWarning: DEPRECATION }
          : {}),
        schema,
      })),
    },
  };
}

/** A CRD of a new group, stored in v1alpha1, with `count` objects (those named in `frozen` frozen). */
async function widgets(count: number, frozen: string[] = []): Promise<string> {
  const group = `${uniqueName('mig')}.reconstruct.test`;
  const name = `widgets.${group}`;
  crds.push(name);
  applyYaml(JSON.stringify(widgetCrd(group, 'v1alpha1')));
  kubectl(['wait', '--for=condition=Established', `crd/${name}`]);
  const client = loadClient({ userAgent: 'migrate-test' });
  const path = `/apis/${group}/v1alpha1/namespaces/${ns}/widgets`;
  let next = 0;
  const create = async () => {
    for (let i = next++; i < count; i = next++) {
      const widget = `w-${i}`;
      await client.request({
        method: 'POST',
        path,
        body: {
          apiVersion: `${group}/v1alpha1`,
          kind: 'Widget',
          metadata: { name: widget },
          spec: { size: i, ...(frozen.includes(widget) ? { frozen: true } : {}) },
        },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, create));
  return name;
}

/** v1beta1 becomes the storage version; resolves once the API server serves the change. */
async function storeInV1beta1(name: string): Promise<void> {
  const group = name.slice('widgets.'.length);
  applyYaml(JSON.stringify(widgetCrd(group, 'v1beta1')));
  expect(storedVersions(name)).toEqual(['v1alpha1', 'v1beta1']);
  await waitFor(() => kubectl(['get', `widgets.v1alpha1.${group}`, '-n', ns]).stderr.includes(DEPRECATION), {
    what: `the API server serving ${name} with v1beta1 stored`,
  });
}

const storedVersions = (name: string) =>
  getJson<{ status: { storedVersions: string[] } }>(['crd', name]).status.storedVersions;

/** Each object's resourceVersion, by name. */
const versions = (name: string): Record<string, string> =>
  Object.fromEntries(
    getJson<{ items: { metadata: { name: string; resourceVersion: string } }[] }>([name, '-n', ns]).items.map(
      (o) => [o.metadata.name, o.metadata.resourceVersion],
    ),
  );

async function migrate(...args: string[]) {
  const out = capture();
  const err = capture();
  const code = await migrateCommand(args, { out, err });
  return { code, out: out.text(), err: err.text() };
}

it('rewrites every object in the storage version, sets storedVersions, and a second run writes nothing', async () => {
  const name = await widgets(50);
  await storeInV1beta1(name);
  const before = versions(name);

  const first = await migrate(name, '--client-side');
  expect(first).toMatchObject({ code: 0, err: '' });
  expect(first.out).toMatch(
    new RegExp(
      `migrated ${name} to v1beta1: 50 objects, 50 rewritten, 0 already stored in v1beta1, 0 gone, 0 failed, in [\\d.]+ s\\n`,
    ),
  );
  expect(first.out).toMatch(new RegExp(`${name}: status.storedVersions \\[v1beta1\\]\\n$`));
  const after = versions(name);
  expect(Object.keys(after)).toHaveLength(50);
  expect(Object.keys(after).filter((w) => after[w] === before[w])).toEqual([]);
  expect(storedVersions(name)).toEqual(['v1beta1']);

  // By its kind and group this time.
  const second = await migrate(`widget.${name.slice('widgets.'.length)}`, '--client-side');
  expect(second.code).toBe(0);
  expect(second.out).toContain('50 objects, 0 rewritten, 50 already stored in v1beta1');
  expect(versions(name)).toEqual(after);
});

it('names an object it cannot rewrite, exits 1, leaves storedVersions, and resumes once it is gone', async () => {
  const name = await widgets(5, ['w-2']);
  await storeInV1beta1(name);
  const before = versions(name);

  const refused = await migrate(name, '--client-side');
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(new RegExp(`^Widget ${ns}/w-2: .*frozen: no update is allowed\\n`));
  expect(refused.err).toContain(
    `${name}: 1 of 5 objects not rewritten: status.storedVersions left as [v1alpha1, v1beta1]`,
  );
  expect(refused.out).toContain('5 objects, 4 rewritten, 0 already stored in v1beta1, 0 gone, 1 failed');
  expect(storedVersions(name)).toEqual(['v1alpha1', 'v1beta1']);
  const after = versions(name);
  expect(Object.keys(after).filter((w) => after[w] === before[w])).toEqual(['w-2']);

  kubectl(['delete', name, 'w-2', '-n', ns]);
  const resumed = await migrate(name, '--client-side');
  expect(resumed).toMatchObject({ code: 0, err: '' });
  expect(resumed.out).toContain('4 objects, 0 rewritten, 4 already stored in v1beta1');
  expect(storedVersions(name)).toEqual(['v1beta1']);
});

it('reads again an object written meanwhile, and skips one deleted meanwhile', async () => {
  const name = await widgets(10);
  await storeInV1beta1(name);
  // The real client, except that just before the first update of w-0 someone else writes it, and just before
  // that of w-1 someone deletes it: the API server answers the updates 409 and 404.
  const connect = (options: ClientOptions): KubeClient => {
    const client = loadClient(options);
    const meddled = new Set<string>();
    const request = async <T>(req: KubeRequest): Promise<T> => {
      const widget = req.path.split('/').pop() ?? '';
      if (req.method === 'PUT' && ['w-0', 'w-1'].includes(widget) && !meddled.has(widget)) {
        meddled.add(widget);
        if (widget === 'w-0') kubectl(['label', name, 'w-0', '-n', ns, 'touched=yes']);
        else kubectl(['delete', name, 'w-1', '-n', ns]);
      }
      return client.request<T>(req);
    };
    return { ...client, request, watch: (req) => client.watch(req) };
  };
  const out = capture();
  const err = capture();
  expect(await migrateCommand([name, '--client-side'], { out, err }, connect)).toBe(0);
  expect(err.text()).toBe('');
  // w-0 was stored in v1beta1 by the label's write: its rewrite wrote nothing.
  expect(out.text()).toContain('10 objects, 8 rewritten, 1 already stored in v1beta1, 1 gone, 0 failed');
  expect(storedVersions(name)).toEqual(['v1beta1']);
});

it('says in one line what is missing: the CRD, or the permission', async () => {
  expect(await migrate('nothings.nowhere.reconstruct.test')).toEqual({
    code: 2,
    out: '',
    err: 'reconstruct migrate: no CustomResourceDefinition "nothings.nowhere.reconstruct.test" in the cluster (give a CRD name, or a kind, plural or short name of one)\n',
  });

  // A user who may read the CRDs and the objects, not write them.
  const name = await widgets(1);
  const user = uniqueName('migrate-reader');
  const group = name.slice('widgets.'.length);
  kubectl([
    'create',
    'clusterrole',
    user,
    '--verb=get,list',
    `--resource=customresourcedefinitions,widgets.${group}`,
  ]);
  kubectl(['create', 'clusterrolebinding', user, `--clusterrole=${user}`, `--user=${user}`]);
  try {
    const config = JSON.parse(kubectl(['config', 'view', '--raw', '--flatten', '-o', 'json']).stdout) as {
      users: { user: Record<string, unknown> }[];
    };
    for (const u of config.users) u.user.as = user;
    const kubeconfig = join(scratch, 'reader.json');
    writeFileSync(kubeconfig, JSON.stringify(config));
    await storeInV1beta1(name);
    // The API server serves StorageVersionMigration, which this user may not create either.
    expect(await migrate(name, '--kubeconfig', kubeconfig)).toEqual({
      code: 2,
      out: `migrating ${name}: the caller may not create storageversionmigrations.storagemigration.k8s.io: rewriting the objects here\n`,
      err: `reconstruct migrate: forbidden: the caller may not update widgets.${group}, nor update customresourcedefinitions.apiextensions.k8s.io/status\n`,
    });
    expect(storedVersions(name)).toEqual(['v1alpha1', 'v1beta1']);

    for (const u of config.users) u.user.as = 'migrate-nobody';
    writeFileSync(kubeconfig, JSON.stringify(config));
    const nobody = await migrate(name, '--kubeconfig', kubeconfig);
    expect(nobody.code).toBe(2);
    expect(nobody.err).toMatch(
      /^reconstruct migrate: GET \S+: .*forbidden: User "migrate-nobody" cannot list .*\n$/,
    );
  } finally {
    kubectl(['delete', 'clusterrolebinding,clusterrole', user, '--ignore-not-found'], { allowFail: true });
  }
});

it('migrates 1,000 objects', async () => {
  const name = await widgets(1000);
  await storeInV1beta1(name);
  const started = process.hrtime.bigint();
  const run = await migrate(name, '--client-side');
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  expect(run).toMatchObject({ code: 0, err: '' });
  expect(run.out).toContain('1000 objects, 1000 rewritten');
  // Not a TTY: a line every 10 %.
  expect(run.out.match(/^migrating .*\(\d+ %\)$/gm)).toHaveLength(10);
  console.log(`migrated 1000 objects in ${seconds.toFixed(2)} s`);

  const again = process.hrtime.bigint();
  expect((await migrate(name, '--client-side')).out).toContain(
    '1000 objects, 0 rewritten, 1000 already stored',
  );
  console.log(
    `a second run over 1000 objects took ${(Number(process.hrtime.bigint() - again) / 1e9).toFixed(2)} s`,
  );
});

it("has the API server's StorageVersionMigration rewrite the objects where it is served", async () => {
  const name = await widgets(200);
  await storeInV1beta1(name);
  const before = versions(name);
  const started = process.hrtime.bigint();

  const run = await migrate(name);
  expect(run).toMatchObject({ code: 0, err: '' });
  expect(run.out).toMatch(new RegExp(`^migrating ${name}: StorageVersionMigration ${name}-\\w+ created\\n`));
  expect(run.out).toMatch(
    new RegExp(`migrated ${name} to v1beta1 by a StorageVersionMigration in [\\d.]+ s\\n`),
  );
  expect(run.out).toMatch(new RegExp(`${name}: status.storedVersions \\[v1beta1\\]\\n$`));
  console.log(
    `a StorageVersionMigration of 200 objects took ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)} s`,
  );
  const after = versions(name);
  expect(Object.keys(after)).toHaveLength(200);
  expect(Object.keys(after).filter((w) => after[w] === before[w])).toEqual([]);
  expect(storedVersions(name)).toEqual(['v1beta1']);
});
