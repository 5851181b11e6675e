import { createHash } from 'node:crypto';
import {
  SpecError,
  builtinKinds,
  balancerKind,
  memcachedKind,
  synthesize as synthesizeKind,
  type CustomResource,
  type Manifest,
} from '../../constructs';
import {
  balancer,
  databaseManager,
  dnsBalancer,
  memcached,
  nodePool,
  registry,
  sample,
  synthesize,
} from '../fixtures/resources';
import { Deployment, deepFrozen, ofKind, podLabels, selects, specError } from './manifests';

/** One resource of every kind, as samples and as variants that exercise the optional fields. */
const FIXTURES: [string, CustomResource][] = [
  ...builtinKinds.map((kind): [string, CustomResource] => [`the ${kind.kind} sample`, sample(kind)]),
  ['a Memcached in a namespace', memcached('sessions', { size: 3, image: 'memcached:1.6' }, 'shop')],
  ['an empty NodePool', nodePool('spare', {})],
  [
    'a DatabaseManager with a Secret, in a namespace',
    databaseManager('orders', { dbtype: 'mariadb', replicas: 2, rootPasswordSecret: { name: 's' } }, 'shop'),
  ],
  ['a TCP and UDP Balancer in a namespace', dnsBalancer('dns', 'kube-dns')],
];

const OWNER_UID = '6f1c3a52-7d0e-4a8b-9c1d-2e3f4a5b6c7d';

/** Every value of a `name` key anywhere in `value`: object names, container, port and volume names. */
function allNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allNames);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === 'name' && typeof v === 'string' ? [v] : allNames(v),
  );
}

/** The ApplySet id KEP-3659 defines, computed here independently of the constructs. */
function kepApplySetId(resource: CustomResource): string {
  const [group] = resource.apiVersion.split('/');
  const key = `${resource.metadata.name}.${resource.metadata.namespace ?? ''}.${resource.kind}.${group}`;
  return `applyset-${createHash('sha256').update(key).digest('base64url')}-v1`;
}

function withoutOwnerReferences(manifests: Manifest[]): Manifest[] {
  return manifests.map(({ metadata: { ownerReferences: _, ...metadata }, ...rest }) => ({
    ...rest,
    metadata,
  }));
}

describe('synthesize', () => {
  describe.each(FIXTURES)('%s', (_, resource) => {
    // A JSON copy, not structuredClone: its objects come from another realm, which toStrictEqual tells apart.
    const pristine = JSON.parse(JSON.stringify(resource)) as typeof resource;
    const out = synthesize(resource);

    it('makes at least one child, or none for a kind whose work is all outside Kubernetes', () => {
      const kind = registry.get(resource.apiVersion, resource.kind)!;
      if (kind.children.length === 0) expect(out).toEqual([]);
      else expect(out.length).toBeGreaterThan(0);
    });

    it('labels every child managed-by=reconstruct, instance=<name> and with its ApplySet', () => {
      for (const child of out) {
        expect(child.metadata.labels).toMatchObject({
          'app.kubernetes.io/managed-by': 'reconstruct',
          'app.kubernetes.io/instance': resource.metadata.name,
          'applyset.kubernetes.io/part-of': kepApplySetId(resource),
        });
      }
    });

    it("puts namespaced children in the resource's namespace", () => {
      const expected = registry.get(resource.apiVersion, resource.kind)?.namespaced
        ? resource.metadata.namespace
        : undefined;
      expect(out.map((child) => child.metadata.namespace)).toEqual(out.map(() => expected));
    });

    it('names nothing with a cdk8s hash', () => {
      expect(allNames(out).filter((name) => /-c8[0-9a-f]{6}$/.test(name))).toEqual([]);
    });

    it('leaves no cdk8s.io/metadata.addr label, in pod templates or elsewhere', () => {
      for (const deployment of ofKind<Deployment>(out, 'Deployment')) {
        expect(Object.keys(podLabels(deployment))).not.toContain('cdk8s.io/metadata.addr');
      }
      expect(JSON.stringify(out)).not.toContain('cdk8s.io/metadata.addr');
    });

    it("selects every Deployment's own pods with its selector", () => {
      for (const deployment of ofKind<Deployment>(out, 'Deployment')) {
        expect(selects(deployment.spec.selector.matchLabels, podLabels(deployment))).toBe(true);
      }
    });

    it('returns plain JSON', () => {
      expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    });

    describe('with an owner', () => {
      const owned = synthesize(resource, { owner: { uid: OWNER_UID } });

      it('gives every child one controller ownerReference to the resource', () => {
        for (const child of owned) {
          expect(child.metadata.ownerReferences).toEqual([
            {
              apiVersion: resource.apiVersion,
              kind: resource.kind,
              name: resource.metadata.name,
              uid: OWNER_UID,
              controller: true,
              blockOwnerDeletion: true,
            },
          ]);
        }
      });

      it('changes nothing else', () => {
        expect(withoutOwnerReferences(owned)).toEqual(out);
      });
    });

    it('gives no child an ownerReference without an owner', () => {
      expect(out.filter((child) => 'ownerReferences' in child.metadata)).toEqual([]);
    });

    it('is deterministic: the same input gives the same output, to the key order', () => {
      expect(JSON.stringify(synthesize(structuredClone(resource)))).toBe(JSON.stringify(out));
    });

    it('does not change its input', () => {
      synthesize(resource, { owner: { uid: OWNER_UID } });
      expect(resource).toStrictEqual(pristine);
      expect(() => synthesize(deepFrozen(pristine))).not.toThrow();
    });
  });

  it('shares no state between calls', () => {
    const first = synthesize(sample(balancerKind));
    const expected = structuredClone(first);
    first[0].metadata.name = 'changed';
    (first[0].metadata.labels ??= {}).extra = 'x';
    synthesize(balancer('other', sample(balancerKind).spec, 'elsewhere'), { owner: { uid: OWNER_UID } });
    synthesize(memcached('other', { size: 5 }, 'elsewhere'));
    expect(synthesize(sample(balancerKind))).toEqual(expected);
  });

  it('gives resources that differ in name, namespace or kind different ApplySets', () => {
    const partOf = (r: CustomResource) =>
      synthesize(r)[0].metadata.labels?.['applyset.kubernetes.io/part-of'];
    const ids = new Set([
      partOf(memcached('a', { size: 1 }, 'x')),
      partOf(memcached('b', { size: 1 }, 'x')),
      partOf(memcached('a', { size: 1 }, 'y')),
      partOf(databaseManager('a', {}, 'x')),
    ]);
    expect(ids.size).toBe(4);
  });

  describe('rejects', () => {
    it('a resource of another kind than the one given, naming the kind', () => {
      const resource = { ...memcached('a', { size: 1 }), kind: 'Redis' };
      const error = specError(() => synthesizeKind(memcachedKind, resource));
      expect(error.field).toBe('kind');
      expect(error.message).toContain('Redis');
    });

    it("a resource of the kind's name under another apiVersion", () => {
      const resource = { ...memcached('a', { size: 1 }), apiVersion: 'cache.example.com/v1' };
      const error = specError(() => synthesizeKind(memcachedKind, resource));
      expect(error.field).toBe('kind');
      expect(error.message).toContain('cache.example.com/v1');
    });

    it('a resource without a name', () => {
      const resource = { ...memcached('a', { size: 1 }), metadata: { name: '' } };
      expect(specError(() => synthesize(resource)).field).toBe('metadata.name');
    });

    it('with a SpecError whose message starts with the field', () => {
      const error = specError(() => synthesize(databaseManager('a', { replicas: 11 })));
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(SpecError);
      expect(error.name).toBe('SpecError');
      expect(error.message).toMatch(/^spec\.replicas: /);
    });
  });
});
