/**
 * The reconciler's decisions about a resource's state, on an in-memory cluster: a kind's finalizer,
 * readiness, the recheck of a resource that stays not Ready, the status of a rollout, a namespace being
 * deleted. The children's side is in reconciler.test.ts.
 */
import { DEPLOYMENT, NODE, memcachedKind, nodePoolKind, type KubeObject } from '../../../constructs';
import { recordingLogger } from '../../support/logger';
import { sample } from '../../fixtures/resources';
import { InMemoryCluster } from '../../../testing';
import { NS, kinds, reconcilerHelpers } from './reconciler-helpers';

let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster(kinds);
});
const { reconcile, writes, available } = reconcilerHelpers(() => cluster);

describe('a kind with a finalizer (NodePool)', () => {
  const node = (name: string, labels: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
  });

  it('adds its finalizer first, syncs the nodes, and undoes that before letting the resource go', async () => {
    const { spec } = sample(nodePoolKind);
    cluster.put(NODE, node('n1', { 'node-role.kubernetes.io/master': '' }));
    cluster.putResource(nodePoolKind, 'master', spec);
    await reconcile(nodePoolKind, 'master', undefined);
    expect(writes()).toEqual(['patch NodePool/master']);
    expect(cluster.any(nodePoolKind, undefined, 'master')?.metadata.finalizers).toEqual([
      nodePoolKind.sync?.finalizer,
    ]);

    await reconcile(nodePoolKind, 'master', undefined);
    expect(writes()).toEqual(
      expect.arrayContaining(['apply RuntimeClass/node-pool-master', 'patch Node/n1']),
    );
    expect(cluster.any(NODE, undefined, 'n1')?.metadata.labels).toMatchObject(spec.labels ?? {});

    // Deleted: the finalizer holds it while its labels come off the node (test/controller/reconcile/finalize.test.ts).
    cluster.remove(nodePoolKind, undefined, 'master');
    await reconcile(nodePoolKind, 'master', undefined);
    expect(writes()).toEqual(['patch Node/n1', 'status NodePool/master']);
    expect(cluster.any(NODE, undefined, 'n1')?.metadata.labels).not.toHaveProperty(
      'node-pool.lailin.xyz/master',
    );
    await reconcile(nodePoolKind, 'master', undefined);
    expect(writes()).toEqual(['patch NodePool/master']);
    expect(cluster.any(nodePoolKind, undefined, 'master')).toBeUndefined();
  });
});

describe('readiness', () => {
  it.each([
    ['no pod updated yet', {}, 'Deployment cache: 0 of 2 replicas updated'],
    [
      'one of two available',
      { updatedReplicas: 2, replicas: 2, availableReplicas: 1 },
      'Deployment cache: 1 of 2 replicas available',
    ],
  ])('names the Deployment that blocks: %s', async (_, status, message) => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    cluster.patch(DEPLOYMENT, NS, 'cache', { status: { observedGeneration: 1, ...status } });
    await cluster.reconcile(memcachedKind, NS, 'cache');
    cluster.clock += 1_000; // a write that only reports progress waits a second
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(cluster.ready(memcachedKind, NS, 'cache')).toEqual(
      expect.objectContaining({ status: 'False', reason: 'Progressing', message }),
    );
  });
});

describe('a resource that stays not Ready', () => {
  // One controller, as it runs: the wait grows with what the same reconciler saw before.
  /** Reconciles as the queue would: at the time the last reconcile asked for. */
  const waits = async (count: number) => {
    const seen: (number | undefined)[] = [];
    for (let i = 0; i < count; i++) {
      const { requeueAfterMs } = await cluster.reconcile(memcachedKind, NS, 'cache');
      seen.push(requeueAfterMs);
      cluster.clock += requeueAfterMs ?? 0;
    }
    return seen;
  };

  // The stuck Deployment's first look at its pods is a timer's, not a reconcile's (troubles.test.ts).
  it('is checked back less often the longer it waits, and from the start again for a new generation', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    expect(await waits(5)).toEqual([60_000, 120_000, 240_000, 300_000, 300_000]);
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 3 });
    expect(await waits(2)).toEqual([60_000, 120_000]);
  });

  it('starts over after it was Ready', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    expect(await waits(2)).toEqual([60_000, 120_000]);
    available('cache', 2);
    expect(await waits(1)).toEqual([undefined]);
    cluster.patch(DEPLOYMENT, NS, 'cache', { status: { readyReplicas: 1, availableReplicas: 1 } });
    expect(await waits(2)).toEqual([60_000, 120_000]);
  });
});

describe('the status of a rollout', () => {
  // One controller, as it runs: what it holds back in one reconcile, it writes in a later one.
  const rolling = (updated: number, available: number) =>
    cluster.patch(DEPLOYMENT, NS, 'cache', {
      status: { observedGeneration: 1, replicas: 3, updatedReplicas: updated, availableReplicas: available },
    });

  it('writes progress at most once a second, in one write with what came meanwhile; Ready at once', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 3 }, NS);
    // The children, and the first status at once: how the Deployment just made does.
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toContain('status Memcached/cache');
    expect(cluster.ready(memcachedKind, NS, 'cache')?.message).toBe(
      'Deployment cache: 0 of 3 replicas updated',
    );
    rolling(0, 0);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toEqual([]); // nothing new to say

    // Progress only: held back, and asked for again when it is due.
    rolling(3, 0);
    expect(await cluster.reconcile(memcachedKind, NS, 'cache')).toEqual({ requeueAfterMs: 1_000 });
    cluster.clock += 400;
    rolling(3, 1);
    expect(await cluster.reconcile(memcachedKind, NS, 'cache')).toEqual({ requeueAfterMs: 600 });
    expect(writes()).toEqual([]);
    // Due: the status of the world as it is then, in one write.
    cluster.clock += 600;
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toEqual(['status Memcached/cache']);
    expect(cluster.ready(memcachedKind, NS, 'cache')?.message).toBe(
      'Deployment cache: 1 of 3 replicas available',
    );

    // Ready is not progress: written at once.
    rolling(3, 2);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    available('cache', 3);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toEqual(['status Memcached/cache']);
    expect(cluster.ready(memcachedKind, NS, 'cache')).toMatchObject({ status: 'True', reason: 'Ready' });
  });

  it('writes a spec change (a new generation observed) at once', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 3 }, NS);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    rolling(0, 0);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    writes();
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 4 });
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toEqual(['apply Deployment/cache', 'status Memcached/cache']);
  });
});

describe('a namespace being deleted', () => {
  // One controller, as it runs: what it learns in one reconcile holds for the next.
  it('stops writing to it at the first refusal: no status, no events, no retry storm', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    cluster.putResource(memcachedKind, 'other', { size: 1 }, NS);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    await cluster.reconcile(memcachedKind, NS, 'other');
    writes();
    cluster.events.length = 0;
    // The namespace controller deletes the children first; the resources are still there.
    cluster.terminateNamespace(NS);
    cluster.remove(DEPLOYMENT, NS, 'cache');
    cluster.remove(DEPLOYMENT, NS, 'other');

    const result = await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toContain('apply Deployment/cache'); // refused: 403 NamespaceTerminating
    expect(result).toEqual({ requeueAfterMs: 30_000 });
    // Every other resource of the namespace, and this one again, write nothing.
    expect(await cluster.reconcile(memcachedKind, NS, 'other')).toEqual({
      requeueAfterMs: expect.any(Number) as number,
    });
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toEqual([]);
    expect(cluster.events).toEqual([]);
  });

  it('says every write it refused in its one log line', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    cluster.terminateNamespace(NS);
    const { log, lines } = recordingLogger();
    cluster.log = log;
    await cluster.reconcile(memcachedKind, NS, 'cache');
    const said = lines.filter((l) => l.msg === 'namespace is being deleted: no writes to its resources');
    expect(said).toHaveLength(1);
    const error = String(said[0].fields?.error);
    expect(error.match(/because it is being terminated/g)).toHaveLength(2);
    expect(error).toContain('apply Deployment cache');
    expect(error).toContain('apply Service cache');
  });

  it('leaves the other namespaces alone', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    cluster.terminateNamespace(NS);
    cluster.remove(DEPLOYMENT, NS, 'cache');
    await cluster.reconcile(memcachedKind, NS, 'cache');
    writes();
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, 'elsewhere');
    await cluster.reconcile(memcachedKind, 'elsewhere', 'cache');
    expect(writes().sort()).toEqual([
      'apply Deployment/cache',
      'apply Service/cache',
      'status Memcached/cache',
    ]);
  });
});
