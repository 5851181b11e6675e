/**
 * What a user asks of one resource through its annotations (docs/OPERATING.md): suspend and resume it,
 * reconcile it now. On an in-memory cluster, with the exact writes.
 */
import {
  CUSTOM_RESOURCE_DEFINITION,
  DEPLOYMENT,
  NODE,
  crdName,
  RECONCILE_ANNOTATION,
  REQUESTED_AT_ANNOTATION,
  SERVICE,
  SUSPENDED_BY_ANNOTATION,
  SUSPEND_REASON_ANNOTATION,
  memcachedKind,
  nodePoolKind,
  type ApiKind,
  type KubeObject,
} from '../../../constructs';
import { sample } from '../../fixtures/resources';
import { InMemoryCluster } from '../../../testing';
import { NS, kinds, reconcilerHelpers } from './reconciler-helpers';

let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster(kinds);
});
const { reconcile, writes, available } = reconcilerHelpers(() => cluster);

const annotate = (
  annotations: Record<string, string | null>,
  kind: ApiKind = memcachedKind,
  ns: string | undefined = NS,
  name = 'cache',
) => cluster.patch(kind, ns, name, { metadata: { annotations } });
const conditions = (kind: ApiKind = memcachedKind, ns: string | undefined = NS, name = 'cache') =>
  (
    (cluster.any(kind, ns, name)?.status ?? {}) as {
      conditions?: { type: string; status: string; reason: string; message: string }[];
    }
  ).conditions ?? [];
const status = () => (cluster.any(memcachedKind, NS, 'cache')?.status ?? {}) as Record<string, unknown>;

/** A Memcached of one replica, reconciled to Ready. */
async function readyCache(): Promise<void> {
  cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
  await reconcile(memcachedKind, 'cache');
  available('cache', 1);
  await reconcile(memcachedKind, 'cache');
  expect(cluster.ready(memcachedKind, NS, 'cache')?.status).toBe('True');
  writes();
  cluster.events.splice(0);
}

describe('a suspended resource (reconstruct.dev/reconcile: disabled)', () => {
  it('gets no write but its Suspended condition, whatever happens to its children and spec, and says by whom and why', async () => {
    await readyCache();
    annotate({
      [RECONCILE_ANNOTATION]: 'disabled',
      [SUSPENDED_BY_ANNOTATION]: 'alice',
      [SUSPEND_REASON_ANNOTATION]: 'incident 42',
    });
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual(['status Memcached/cache']);
    const suspended = conditions().find((c) => c.type === 'Suspended');
    expect(suspended).toMatchObject({ status: 'True', reason: 'ReconcileDisabled' });
    expect(suspended?.message).toMatch(
      /^reconcile suspended by alice: incident 42 \(reconstruct.dev\/reconcile=disabled\)/,
    );
    // Ready stays what it was: the children run on.
    expect(cluster.ready(memcachedKind, NS, 'cache')?.status).toBe('True');
    expect(cluster.events).toEqual([expect.objectContaining({ type: 'Normal', reason: 'Suspended' })]);

    // Its Deployment deleted, its spec changed: nothing is written, not even the status again.
    cluster.remove(DEPLOYMENT, NS, 'cache');
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 3 });
    expect(await reconcile(memcachedKind, 'cache')).toEqual({});
    expect(writes()).toEqual([]);
    expect(cluster.any(DEPLOYMENT, NS, 'cache')).toBeUndefined();
  });

  it('is reconciled as usual once the annotation goes: children back, the condition gone, a Resumed event', async () => {
    await readyCache();
    annotate({ [RECONCILE_ANNOTATION]: 'disabled' });
    await reconcile(memcachedKind, 'cache');
    cluster.remove(DEPLOYMENT, NS, 'cache');
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 3 });
    writes();
    cluster.events.splice(0);

    annotate({ [RECONCILE_ANNOTATION]: null });
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual(['apply Deployment/cache', 'status Memcached/cache']);
    expect((cluster.any(DEPLOYMENT, NS, 'cache')?.spec as { replicas: number }).replicas).toBe(3);
    expect(conditions().map((c) => c.type)).toEqual(['Ready', 'Reconciling']); // its Deployment not ready yet
    expect(cluster.events.map((e) => e.reason)).toEqual(['Resumed', 'Created']);
  });

  it('is finalized when deleted: the finalizer work of its kind still runs (NodePool)', async () => {
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/master': '' } },
    };
    cluster.put(NODE, node);
    cluster.putResource(nodePoolKind, 'master', sample(nodePoolKind).spec);
    await reconcile(nodePoolKind, 'master', undefined);
    await reconcile(nodePoolKind, 'master', undefined);
    annotate({ [RECONCILE_ANNOTATION]: 'disabled' }, nodePoolKind, undefined, 'master');
    await reconcile(nodePoolKind, 'master', undefined);
    writes();

    cluster.remove(nodePoolKind, undefined, 'master');
    await reconcile(nodePoolKind, 'master', undefined);
    await reconcile(nodePoolKind, 'master', undefined);
    expect(writes()).toEqual(['patch Node/n1', 'status NodePool/master', 'patch NodePool/master']);
    expect(cluster.any(nodePoolKind, undefined, 'master')).toBeUndefined();
  });
});

describe('a suspended kind (the annotation on its CustomResourceDefinition)', () => {
  it('suspends each of its resources, and resumes those it suspended when the annotation goes', async () => {
    await readyCache();
    const crd = { ...memcachedKind.crd, metadata: { ...memcachedKind.crd.metadata } } as KubeObject;
    crd.metadata.annotations = { [RECONCILE_ANNOTATION]: 'disabled', [SUSPENDED_BY_ANNOTATION]: 'ops' };
    cluster.put(CUSTOM_RESOURCE_DEFINITION, crd);
    cluster.remove(DEPLOYMENT, NS, 'cache');
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual(['status Memcached/cache']);
    expect(conditions().find((c) => c.type === 'Suspended')?.message).toMatch(
      /^reconcile of every Memcached suspended by ops \(reconstruct.dev\/reconcile=disabled on its CustomResourceDefinition\)/,
    );

    cluster.patch(CUSTOM_RESOURCE_DEFINITION, undefined, crdName(memcachedKind), {
      metadata: { annotations: { [RECONCILE_ANNOTATION]: null } },
    });
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual(['apply Deployment/cache', 'status Memcached/cache']);
    expect(conditions().map((c) => c.type)).toEqual(['Ready', 'Reconciling']); // its Deployment not ready yet
  });
});

describe('a reconcile asked for (reconstruct.dev/requested-at)', () => {
  it('writes the value handled into the status at once, keeps it there, and asks nothing more of a converged resource', async () => {
    await readyCache();
    annotate({ [REQUESTED_AT_ANNOTATION]: '2026-11-27T10:00:00Z' });
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual(['status Memcached/cache']);
    expect(status().lastHandledReconcileAt).toBe('2026-11-27T10:00:00Z');
    expect(cluster.events).toEqual([
      {
        type: 'Normal',
        reason: 'ReconcileRequested',
        message: 'reconcile requested (reconstruct.dev/requested-at=2026-11-27T10:00:00Z)',
      },
    ]);
    // Handled: the next reconcile is a plain one (nothing to write), and a later status write keeps it.
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual([]);
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 2 });
    await reconcile(memcachedKind, 'cache');
    expect(status().lastHandledReconcileAt).toBe('2026-11-27T10:00:00Z');
  });

  it('is handled even when the apply fails, with the failure in Ready (what `reconstruct reconcile --wait` prints)', async () => {
    await readyCache();
    cluster.remove(SERVICE, NS, 'cache');
    cluster.refuse('apply', new Error('admission webhook "deny" denied the request'));
    annotate({ [REQUESTED_AT_ANNOTATION]: 'token-1' });
    await expect(reconcile(memcachedKind, 'cache')).rejects.toThrow('denied the request');
    expect(status().lastHandledReconcileAt).toBe('token-1');
    expect(cluster.ready(memcachedKind, NS, 'cache')).toMatchObject({
      status: 'False',
      reason: 'ApplyFailed',
    });
  });

  it('is not handled while the resource is suspended', async () => {
    await readyCache();
    annotate({ [RECONCILE_ANNOTATION]: 'disabled', [REQUESTED_AT_ANNOTATION]: 'token-1' });
    await reconcile(memcachedKind, 'cache');
    expect(status().lastHandledReconcileAt).toBeUndefined();
  });

  it('looks again at what the controller had stopped looking at: a write-only child made again at once', async () => {
    // A MySQL Cluster's generated Secret is created once and looked for every ten minutes: deleted by
    // someone meanwhile, it is back only then, or at once when a user asks.
    const { mysqlClusterKind, SECRET } = await import('../../../constructs');
    const mysql = new InMemoryCluster([...kinds, mysqlClusterKind]);
    mysql.putResource(mysqlClusterKind, 'db', {}, NS);
    await mysql.reconciler().reconcile(mysqlClusterKind, NS, 'db');
    const reconciler = mysql.reconciler();
    await reconciler.reconcile(mysqlClusterKind, NS, 'db');
    mysql.remove(SECRET, NS, 'db-root-password');
    mysql.takeWrites();
    await reconciler.reconcile(mysqlClusterKind, NS, 'db');
    expect(mysql.takeWrites().filter((w) => w.kind === 'Secret')).toEqual([]);

    mysql.patch(mysqlClusterKind, NS, 'db', {
      metadata: { annotations: { [REQUESTED_AT_ANNOTATION]: 'now' } },
    });
    await reconciler.reconcile(mysqlClusterKind, NS, 'db');
    expect(
      mysql
        .takeWrites()
        .filter((w) => w.kind === 'Secret')
        .map((w) => w.verb),
    ).toEqual(['create']);
    expect(mysql.any(SECRET, NS, 'db-root-password')).toBeDefined();
  });
});
