/**
 * Admission of the project's custom resources by a real API server: the CRDs' OpenAPI schemas and
 * CEL rules reject invalid resources with messages that name the field, and accept the samples. A kind's
 * construct built directly in a cdk8s app, with no API server in front of it, refuses the same specs in the
 * same words.
 */
import { App, Chart } from 'cdk8s';
import { SpecError, builtinKinds } from '../../constructs';
import { createNamespace, deleteNamespace, kubectl, tryCreate, uniqueName } from '../support/kubectl';
import { KINDS, KindName, KubeObject, manifest, samplesInRepo } from './manifests';

jest.setTimeout(60_000);

let ns: string;
beforeAll(() => {
  ns = createNamespace('admission');
});
afterAll(() => {
  if (ns) deleteNamespace(ns);
});

/** Server-side dry run: full admission (schema, CEL, defaulting), nothing stored. */
function dryRunCreate(kind: KindName, spec: unknown) {
  const nsArgs = KINDS[kind].namespaced ? ['-n', ns] : [];
  const name = uniqueName(kind.toLowerCase());
  return tryCreate(manifest(kind, name, spec), ['--dry-run=server', '-o', 'json', ...nsArgs]);
}

interface InvalidCase {
  what: string;
  spec: unknown;
  /** Substrings the API server's message must contain: the field path first. */
  expect: string[];
}

const backends = [{ name: 'v1', weight: 100 }];
const ports = [{ name: 'http', port: 80 }];

const INVALID: Record<KindName, InvalidCase[]> = {
  Memcached: [
    { what: 'size -1', spec: { size: -1 }, expect: ['spec.size', 'greater than or equal to 0'] },
    { what: 'no size', spec: {}, expect: ['spec.size', 'Required value'] },
    { what: 'size not an integer', spec: { size: 'three' }, expect: ['spec.size', 'integer'] },
    { what: 'empty image', spec: { size: 1, image: '' }, expect: ['spec.image'] },
    {
      what: 'an image with a leading space',
      spec: { size: 1, image: ' memcached:1.4.36-alpine' },
      expect: ['spec.image', 'should match'],
    },
  ],
  Balancer: [
    { what: 'no backends', spec: { ports }, expect: ['spec.backends', 'Required value'] },
    { what: 'empty backends', spec: { ports, backends: [] }, expect: ['spec.backends', 'at least 1 items'] },
    {
      what: 'backend weight 0',
      spec: { ports, backends: [{ name: 'v1', weight: 0 }] },
      expect: ['spec.backends[0].weight', 'greater than or equal to 1'],
    },
    {
      what: 'duplicate backend names',
      spec: { ports, backends: [...backends, { name: 'v1', weight: 5 }] },
      expect: ['spec.backends[1]', 'Duplicate value: {"name":"v1"}'],
    },
    {
      what: 'errors that do not stop the CEL rules, and one they find',
      spec: {
        ports: [
          { name: 'a', port: 1 },
          { name: 'a', port: 70000 },
          { name: '80', port: 2 },
        ],
        backends: [{ name: 'b', weight: 0 }],
      },
      expect: [
        'spec.ports[1]: Duplicate value',
        'spec.ports[1].port',
        'spec.backends[0].weight',
        'spec.ports[2].name',
      ],
    },
    {
      what: 'port out of range',
      spec: { ports: [{ name: 'http', port: 70000 }], backends },
      expect: ['spec.ports[0].port', 'less than or equal to 65535'],
    },
  ],
  NodePool: [
    {
      what: 'label key under kubernetes.io',
      spec: { labels: { 'kubernetes.io/role': 'x' } },
      expect: ['spec.labels', 'reserved for Kubernetes: kubernetes.io/role'],
    },
    {
      what: 'taint key under k8s.io',
      spec: { taints: [{ key: 'node.k8s.io/gpu', effect: 'NoSchedule' }] },
      expect: ['spec.taints[0].key', 'reserved for Kubernetes'],
    },
    {
      what: 'unknown taint effect',
      spec: { taints: [{ key: 'example.com/gpu', effect: 'Sometimes' }] },
      expect: ['spec.taints[0].effect', 'Unsupported value'],
    },
    { what: 'handler with capitals', spec: { handler: 'Bad_Handler' }, expect: ['spec.handler'] },
  ],
  DatabaseManager: [
    { what: 'dbtype postgres', spec: { dbtype: 'postgres' }, expect: ['spec.dbtype', 'Unsupported value'] },
    { what: 'replicas 11', spec: { replicas: 11 }, expect: ['spec.replicas', 'less than or equal to 10'] },
    { what: 'replicas 0', spec: { replicas: 0 }, expect: ['spec.replicas', 'greater than or equal to 1'] },
    {
      what: 'invalid deploymentName',
      spec: { deploymentName: 'Not_A_Name' },
      expect: ['spec.deploymentName'],
    },
  ],
};

describe.each(Object.keys(KINDS))('%s admission', (kind) => {
  test('a minimal valid resource is accepted', () => {
    const res = dryRunCreate(kind, KINDS[kind].spec);
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  });
});

// Cases for some kinds; a kind without any needs no entry.
describe.each(Object.keys(INVALID))('%s admission', (kind) => {
  test.each(INVALID[kind].map((c) => [c.what, c] as const))('rejects %s', (_what, c) => {
    const res = dryRunCreate(kind, c.spec);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('is invalid');
    for (const part of c.expect) expect(res.stderr).toContain(part);
  });

  test.each(INVALID[kind].map((c) => [c.what, c] as const))(
    'the construct in a cdk8s app refuses %s in the same words',
    (_what, c) => {
      const definition = builtinKinds.find((k) => k.kind === kind)!;
      let error: unknown;
      try {
        definition.build(new Chart(new App(), 'app'), {
          apiVersion: definition.apiVersion,
          kind,
          metadata: { name: 'offline' },
          spec: c.spec,
        });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(SpecError);
      const problems = (error as SpecError).message.split('; ');
      expect(problems[0].startsWith(`${(error as SpecError).field}: `)).toBe(true);
      const server = dryRunCreate(kind, c.spec).stderr;
      for (const problem of problems) expect(server).toContain(problem);
    },
  );
});

describe('defaulting', () => {
  const created = (kind: KindName, spec: unknown) => {
    const res = dryRunCreate(kind, spec);
    expect(res.stderr).toBe('');
    return (JSON.parse(res.stdout) as KubeObject).spec ?? {};
  };

  test('Memcached image defaults', () => {
    expect(created('Memcached', { size: 2 })).toEqual({ size: 2, image: 'memcached:1.4.36-alpine' });
  });

  test('DatabaseManager dbtype and replicas default', () => {
    expect(created('DatabaseManager', {})).toMatchObject({ dbtype: 'mysql', replicas: 1 });
  });

  test('NodePool handler defaults', () => {
    expect(created('NodePool', {})).toMatchObject({ handler: 'runc' });
  });
});

describe('samples/', () => {
  const samples = samplesInRepo().filter((s) => s.obj.kind in KINDS);

  test('hold at least one resource of each kind', () => {
    expect([...new Set(samples.map((s) => s.obj.kind))].sort()).toEqual(Object.keys(KINDS).sort());
  });

  const table = samples.map((s) => [`${s.file}: ${s.obj.kind} ${s.obj.metadata.name}`, s.obj] as const);
  // test.each refuses an empty table (the test above fails then anyway).
  if (table.length === 0) test.todo('samples/*.yaml: no resources of the project kinds yet');
  else {
    test.each(table)('%s is accepted', (_label, obj) => {
      const namespaced = KINDS[obj.kind].namespaced;
      const copy = { ...obj, metadata: { ...obj.metadata } };
      delete copy.metadata.namespace;
      const res = kubectl(['create', '-f', '-', '--dry-run=server', ...(namespaced ? ['-n', ns] : [])], {
        input: JSON.stringify(copy),
        allowFail: true,
      });
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    });
  }
});
