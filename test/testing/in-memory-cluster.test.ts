/**
 * The in-memory cluster deletes as the API server does: finalizers hold an object (marked with a
 * deletionTimestamp) until a write empties them, and what an object owns goes with it (the garbage
 * collector's background propagation). Kind unit tests rely on it to test deletion.
 */
import { CONFIG_MAP, NAMESPACE, ROLE_BINDING, SECRET, type KubeObject } from '../../constructs/kit';
import { memcachedKind } from '../../constructs';
import { InMemoryCluster } from '../../testing';
import { ApiError } from '../../controller/kube/errors';

const NS = 'demo';
let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster([memcachedKind]);
  cluster.clock = Date.parse('2026-11-27T08:00:00.250Z');
});

const configMap = (name: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...metadata },
});
const ownedBy = (owner: KubeObject) => [
  {
    apiVersion: owner.apiVersion ?? 'v1',
    kind: owner.kind ?? '',
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? '',
  },
];

describe('remove', () => {
  it('deletes an object without finalizers at once', () => {
    cluster.put(CONFIG_MAP, configMap('plain'));
    cluster.remove(CONFIG_MAP, NS, 'plain');
    expect(cluster.any(CONFIG_MAP, NS, 'plain')).toBeUndefined();
  });

  it('marks an object with finalizers, with a new generation, and keeps it until they are emptied', () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    cluster.patch(memcachedKind, NS, 'cache', {
      metadata: { finalizers: ['example.com/a', 'example.com/b'] },
    });
    cluster.remove(memcachedKind, NS, 'cache');
    const marked = cluster.any(memcachedKind, NS, 'cache');
    expect(marked?.metadata).toMatchObject({ deletionTimestamp: '2026-11-27T08:00:00Z', generation: 2 });

    cluster.clock += 60_000;
    cluster.remove(memcachedKind, NS, 'cache'); // a second delete changes nothing
    expect(cluster.any(memcachedKind, NS, 'cache')?.metadata).toMatchObject({
      deletionTimestamp: '2026-11-27T08:00:00Z',
      generation: 2,
    });

    cluster.patch(memcachedKind, NS, 'cache', { metadata: { finalizers: ['example.com/b'] } });
    expect(cluster.any(memcachedKind, NS, 'cache')).toBeDefined();
    cluster.patch(memcachedKind, NS, 'cache', { metadata: { finalizers: null } });
    expect(cluster.any(memcachedKind, NS, 'cache')).toBeUndefined();
  });

  it('deletes what an object owns once it goes, and what that owns, each by its own finalizers', () => {
    const owner = cluster.put(NAMESPACE, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'tenant', finalizers: ['example.com/wait'] },
    });
    const child = cluster.put(ROLE_BINDING, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'admin', namespace: 'tenant', ownerReferences: ownedBy(owner) },
    });
    cluster.put(CONFIG_MAP, configMap('grandchild', { ownerReferences: ownedBy(child) }));
    cluster.put(
      CONFIG_MAP,
      configMap('held', { ownerReferences: ownedBy(owner), finalizers: ['example.com/x'] }),
    );
    cluster.put(CONFIG_MAP, configMap('unrelated'));

    cluster.remove(NAMESPACE, undefined, 'tenant');
    // Background propagation: nothing goes while the owner is only marked.
    expect(cluster.any(ROLE_BINDING, 'tenant', 'admin')).toBeDefined();
    expect(cluster.any(CONFIG_MAP, NS, 'held')?.metadata.deletionTimestamp).toBeUndefined();

    cluster.patch(NAMESPACE, undefined, 'tenant', { metadata: { finalizers: [] } });
    expect(cluster.any(NAMESPACE, undefined, 'tenant')).toBeUndefined();
    expect(cluster.any(ROLE_BINDING, 'tenant', 'admin')).toBeUndefined();
    expect(cluster.any(CONFIG_MAP, NS, 'grandchild')).toBeUndefined();
    expect(cluster.any(CONFIG_MAP, NS, 'held')?.metadata.deletionTimestamp).toBe('2026-11-27T08:00:00Z');
    expect(cluster.any(CONFIG_MAP, NS, 'unrelated')).toBeDefined();
  });
});

describe('the writer on an object being deleted', () => {
  it('releases it when a merge patch empties its finalizers, and refuses a new finalizer', async () => {
    cluster.put(CONFIG_MAP, configMap('held', { finalizers: ['example.com/a'] }));
    cluster.remove(CONFIG_MAP, NS, 'held');
    const writer = cluster.writer();
    const added = writer.mergePatch(CONFIG_MAP, NS, 'held', {
      metadata: { finalizers: ['example.com/a', 'example.com/b'] },
    });
    await expect(added).rejects.toMatchObject({ status: 422 });
    await expect(added).rejects.toThrow('no new finalizers can be added if the object is being deleted');

    await writer.mergePatch(CONFIG_MAP, NS, 'held', { metadata: { finalizers: [] } });
    expect(cluster.any(CONFIG_MAP, NS, 'held')).toBeUndefined();
    const again = writer.mergePatch(CONFIG_MAP, NS, 'held', { metadata: { finalizers: [] } });
    await expect(again).rejects.toBeInstanceOf(ApiError);
    await expect(again).rejects.toMatchObject({ status: 404, reason: 'NotFound' });
  });

  it('refuses a merge patch whose resourceVersion is not the object’s', async () => {
    const { metadata } = cluster.put(CONFIG_MAP, configMap('cm'));
    cluster.patch(CONFIG_MAP, NS, 'cm', { data: { moved: 'yes' } });
    const stale = cluster.writer().mergePatch(CONFIG_MAP, NS, 'cm', {
      metadata: { resourceVersion: metadata.resourceVersion, labels: { a: 'b' } },
    });
    await expect(stale).rejects.toMatchObject({ status: 409, reason: 'Conflict' });
  });
});

describe('a Secret', () => {
  it('has its stringData in its data, in base64, as the API server stores it', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'app', namespace: NS },
      data: { username: btoa('app') },
      stringData: { password: 'generated' },
    };
    await cluster.writer().create(SECRET, NS, secret);
    expect(await cluster.writer().read(SECRET, NS, 'app')).toMatchObject({
      data: { username: btoa('app'), password: btoa('generated') },
    });
  });
});
