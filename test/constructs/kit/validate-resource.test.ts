/**
 * Offline admission against the four CRDs: what `validateResource` does for any of them. Every expected error below is what kube-apiserver v1.36
 * answered to the same object on a server-side dry run (`details.causes`), except where a comment says
 * why ours differs.
 */
import {
  balancerKind,
  builtinKinds,
  databaseManagerKind,
  memcachedKind,
  type JSONSchemaProps,
} from '../../../constructs';
import { ruleSyntaxError } from '../../../constructs/kit/validate/cel';
import { validateResource } from '../../../constructs/kit/validate';
import { errorsOf, resource, type Obj } from './validate-fixtures';

const { crd: memcachedCrd } = memcachedKind;
const { crd: databaseManagerCrd } = databaseManagerKind;
const { crd: balancerCrd } = balancerKind;
const crds = builtinKinds.map((k) => k.crd);

describe('validateResource', () => {
  it('never mutates its input', () => {
    const input = resource(balancerCrd, {
      ports: [{ name: 'http', port: 80 }],
      backends: [{ name: 'v1', weight: 1, extra: true }],
    });
    const before = structuredClone(input);
    const { object } = validateResource(balancerCrd, input);
    expect(input).toEqual(before);
    expect(object).not.toBe(input);
    expect((object.spec as Obj).ports).not.toBe((input.spec as Obj).ports);
  });

  it('reports a wrong kind and apiVersion and nothing else', () => {
    const obj = { apiVersion: 'cache.example.com/v1', kind: 'Memcache', metadata: {}, spec: {} };
    expect(errorsOf(memcachedCrd, obj)).toEqual([
      { field: 'kind', message: 'Invalid value: "Memcache": must be Memcached' },
      {
        field: 'apiVersion',
        message: 'Invalid value: "cache.example.com/v1": must be cache.example.com/v1alpha1',
      },
    ]);
  });

  it('rejects what is not an object', () => {
    expect(errorsOf(memcachedCrd, ['x'])).toEqual([
      { field: '', message: 'Invalid value: must be a Kubernetes object' },
    ]);
  });

  it('returns the same errors in the same order every time', () => {
    const obj = resource(balancerCrd, {
      ports: [{ name: 'http', port: 0, protocol: 'SCTP', zz: 1, aa: 2 }],
      backends: [{ name: 'B', weight: 0 }],
      selector: { 'a/b/c': 'x', k: 'v'.repeat(64) },
    });
    const first = errorsOf(balancerCrd, obj);
    expect(first.map((e) => e.field)).toEqual([
      'spec.ports[0].aa',
      'spec.ports[0].zz',
      'spec.ports[0].protocol',
      'spec.ports[0].port',
      'spec.selector.k',
      'spec.backends[0].name',
      'spec.backends[0].weight',
      '',
    ]);
    expect(errorsOf(balancerCrd, obj)).toEqual(first);
  });
});

describe('the CRDs', () => {
  function rules(s: JSONSchemaProps | undefined): string[] {
    if (!s) return [];
    return [
      ...(s['x-kubernetes-validations'] ?? []).map((r) => r.rule),
      ...Object.values(s.properties ?? {}).flatMap(rules),
      ...rules(s.items),
      ...rules(typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined),
    ];
  }

  it.each(crds.map((crd) => [crd.spec.names.kind, crd] as const))(
    'every CEL rule of %s parses',
    (_kind, crd) => {
      const all = crd.spec.versions.flatMap((v) => rules(v.schema.openAPIV3Schema));
      expect(all.map((rule) => [rule, ruleSyntaxError(rule)])).toEqual(all.map((rule) => [rule, undefined]));
    },
  );
});

describe('every kind', () => {
  it('rejects a name longer than 63 characters, a label value on every child', () => {
    const long = resource(databaseManagerCrd, { deploymentName: 'db' }, { name: 'd'.repeat(64) });
    expect(errorsOf(databaseManagerCrd, long)).toEqual([
      {
        field: 'metadata.name',
        message: `Invalid value: must be at most 63 characters: it is a label value on every child`,
      },
    ]);
  });
});

describe('minProperties', () => {
  const crd = structuredClone(memcachedCrd);
  crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.pages = {
    type: 'object',
    minProperties: 1,
    additionalProperties: { type: 'string' },
  };

  it('rejects an object with fewer properties, in the API server words', () => {
    expect(errorsOf(crd, resource(crd, { size: 1, pages: {} }))).toEqual([
      {
        field: 'spec.pages',
        message: 'Invalid value: 0: spec.pages in body should have at least 1 properties',
      },
    ]);
    expect(errorsOf(crd, resource(crd, { size: 1, pages: { 'index.html': 'x' } }))).toEqual([]);
  });
});
