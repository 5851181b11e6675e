/**
 * The renderer as a KRM function, on ResourceLists: items rendered or kept in order, problems as
 * results that name the resource, the field and the file. kustomize.cluster.test.ts runs it under the
 * real kustomize.
 */
import { parse } from 'yaml';
import { builtinKinds, KindRegistry } from '../../constructs';
import { runKrmFunction, type KrmResult } from '../../synth/krm';

const kinds = new KindRegistry(builtinKinds);
const list = (items: unknown[]) =>
  JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items });
const settings = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', annotations: { 'internal.config.kubernetes.io/path': 'cm.yaml' } },
  data: { mode: 'on' },
};
const memcached = (name: string, size: number, path?: string) => ({
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: {
    name,
    namespace: 'shop',
    ...(path ? { annotations: { 'internal.config.kubernetes.io/path': path } } : {}),
  },
  spec: { size },
});
const run = (input: string) => {
  const { output, failed, problems } = runKrmFunction(input, { kinds });
  const out = parse(output) as {
    apiVersion: string;
    kind: string;
    items: { kind: string; metadata: { name: string } }[];
    results?: KrmResult[];
  };
  return { out, failed, problems };
};

it('replaces each custom resource by its children and keeps every other item as it came, in order', () => {
  const { out, failed } = run(list([settings, memcached('cache', 2)]));
  expect(failed).toBe(false);
  expect([out.apiVersion, out.kind]).toEqual(['config.kubernetes.io/v1', 'ResourceList']);
  expect(out.items.map((i) => `${i.kind}/${i.metadata.name}`)).toEqual([
    'ConfigMap/settings',
    'Deployment/cache',
    'Service/cache',
  ]);
  expect(out.items[0]).toEqual(settings);
  expect(out.results).toBeUndefined();
});

it('reports an invalid resource as an error result naming it, the field and its file, and renders the rest', () => {
  const { out, failed, problems } = run(list([memcached('bad', -1, 'cache.yaml'), memcached('good', 1)]));
  expect(failed).toBe(true);
  expect(out.results).toEqual([
    {
      message: expect.stringContaining('spec.size in body should be greater than or equal to 0') as string,
      severity: 'error',
      resourceRef: {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        name: 'bad',
        namespace: 'shop',
      },
      field: { path: 'spec.size' },
      file: { path: 'cache.yaml' },
    },
  ]);
  expect(out.items.map((i) => `${i.kind}/${i.metadata.name}`)).toEqual(['Deployment/good', 'Service/good']);
  expect(problems).toEqual([expect.stringMatching(/^cache\.yaml: Memcached\/shop\/bad: spec\.size: /)]);
});

it('names the item by its position when no file is known', () => {
  const { out } = run(list([memcached('good', 1), memcached('bad', -1)]));
  expect(out.results?.[0]).not.toHaveProperty('file');
  expect(run(list([memcached('bad', -1)])).problems[0]).toMatch(
    /^items\[0\]: Memcached\/shop\/bad: spec\.size/,
  );
});

it('fails with one result for input that is not a ResourceList', () => {
  const { out, failed } = run('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
  expect(failed).toBe(true);
  expect(out.results).toEqual([
    {
      message: 'the input is not a ResourceList (kind: ConfigMap): run me as a KRM function',
      severity: 'error',
    },
  ]);
  expect(run('a: [').failed).toBe(true);
});

it('says which children it left out for their generated values, without failing', async () => {
  const { policyDemoKind } = await import('../fixtures/kinds/policy-demo');
  const demo = {
    apiVersion: policyDemoKind.apiVersion,
    kind: 'PolicyDemo',
    metadata: { name: 'demo' },
    spec: { token: true },
  };
  const { output, failed } = runKrmFunction(list([demo]), { kinds: new KindRegistry([policyDemoKind]) });
  expect(failed).toBe(false);
  const out = parse(output) as { items: unknown[]; results: KrmResult[] };
  expect(out.items).toEqual([]);
  expect(out.results).toEqual([
    {
      message:
        'left out Secret demo-token: the controller generates /stringData/token when it creates it in the cluster; --include-generated renders one with a fresh value',
      severity: 'info',
      resourceRef: { apiVersion: 'policies.example.com/v1', kind: 'PolicyDemo', name: 'demo' },
    },
  ]);
});
