/**
 * Ready that says why (docs/OPERATING.md, "Reading Ready"): when the child that blocks a resource has been
 * stuck a while, its pods are read once and the Ready message ends with their own words; no read while it
 * moves, none for a Ready resource, a backing-off pace while it stays stuck. In-memory cluster, clock moved.
 */
import {
  DEPLOYMENT,
  EVENT,
  PERSISTENT_VOLUME_CLAIM,
  POD,
  REQUESTED_AT_ANNOTATION,
  STATEFUL_SET,
  memcachedKind,
  mysqlClusterKind,
  type Kind,
  type KubeObject,
} from '../../../constructs';
import { ApiError } from '../../../controller/kube/errors';
import type { LiveReads } from '../../../controller/kube/live-reads';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { READS_PER_SECOND, REREAD_MS, STUCK_AFTER_MS } from '../../../controller/reconcile/troubles';
import { InMemoryCluster } from '../../../testing';
import { liveReads } from '../../../testing/live-reads';
import { IMAGE_PULL_BACKOFF, NEW, RUNNING_READY, UNSCHEDULABLE, pod } from '../../fixtures/pod-statuses';
import { storefrontKind } from '../../fixtures/kinds/storefront';
import { recordingLogger } from '../../support/logger';

const NS = 'demo';
let cluster: InMemoryCluster;
let reads: string[];
let reconciler: Reconciler;
let log: ReturnType<typeof recordingLogger>;
/** The controller's timers, on the cluster's clock, and the resources they queued. */
let timers: { at: number; fn: () => Promise<void>; cancelled: boolean }[];
let woken: string[];

/** Runs the timers that are due by the clock (the first reads of stuck children). */
async function fire(): Promise<void> {
  for (;;) {
    const due = timers.find((t) => !t.cancelled && t.at <= cluster.clock);
    if (!due) return;
    timers = timers.filter((t) => t !== due);
    await due.fn();
  }
}

/** A controller on the cluster whose reads are counted (or refused with `refuse`). */
function start(kinds: Kind[], refuse?: Error): void {
  cluster = new InMemoryCluster(kinds);
  reads = [];
  timers = [];
  woken = [];
  log = recordingLogger();
  const live = liveReads(cluster);
  const counted: LiveReads = {
    pods: (ns, selector) => (
      reads.push(`pods ${ns}`),
      refuse ? Promise.reject(refuse) : live.pods(ns, selector)
    ),
    events: (ns, about) => (reads.push(`events ${about.kind}/${about.name}`), live.events(ns, about)),
  };
  const events = { emit: () => {} };
  const now = () => new Date(cluster.clock);
  reconciler = new Reconciler({
    view: cluster,
    writer: cluster.writer(),
    events,
    log: log.log,
    now,
    reads: counted,
    schedule: (ms, fn) => {
      const timer = { at: cluster.clock + ms, fn, cancelled: false };
      timers.push(timer);
      return () => (timer.cancelled = true);
    },
    enqueue: (_kind, _ns, name) => woken.push(name),
  });
}

const reconcile = (kind: Kind, name: string) => reconciler.reconcile(kind, NS, name);
const ready = (kind: Kind, name: string) => cluster.ready(kind, NS, name);
const advance = (ms: number) => (cluster.clock += ms);

/** The Deployment's controller says `available` of its replicas are. */
const deploymentStatus = (name: string, replicas: number, available: number) =>
  cluster.patch(DEPLOYMENT, NS, name, {
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: available,
      availableReplicas: available,
    },
  });

const cachePods = (status: object, names = ['cache-5f7d-a', 'cache-5f7d-b']) =>
  names.map((name) => cluster.put(POD, pod(name, status, { app: 'memcached', memcached_cr: 'cache' })));

/** A Memcached of 2 whose Deployment exists, 0 of 2 available, and whose pods cannot pull their image. */
async function stuckCache(): Promise<void> {
  start([memcachedKind]);
  cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
  await reconcile(memcachedKind, 'cache');
  deploymentStatus('cache', 2, 0);
  cachePods(IMAGE_PULL_BACKOFF);
}

describe('a resource whose Deployment is stuck', () => {
  it(`says its pods' reason once it has been stuck ${STUCK_AFTER_MS / 1000} s, and comes back for it without an event`, async () => {
    await stuckCache();
    // The first status said how the Deployment just made did; this one only reports progress: held.
    expect((await reconcile(memcachedKind, 'cache')).requeueAfterMs).toBe(1_000);
    advance(1_000);
    const first = await reconcile(memcachedKind, 'cache');
    expect(ready(memcachedKind, 'cache')?.message).toBe('Deployment cache: 0 of 2 replicas available');
    expect(reads).toEqual([]);
    // No reconcile of its own: a timer reads when due, though no event comes, and queues the resource
    // since the pods have something to say.
    expect(first.requeueAfterMs).toBeGreaterThanOrEqual(60_000); // the not-Ready recheck
    advance(STUCK_AFTER_MS - 1_001);
    await fire();
    expect(reads).toEqual([]);
    advance(1);
    await fire();
    expect(reads).toEqual([`pods ${NS}`]);
    expect(woken).toEqual(['cache']);
    await reconcile(memcachedKind, 'cache');
    expect(reads).toHaveLength(1);
    advance(1_000); // a status that only reports progress is held a moment (status.ts)
    const after = await reconcile(memcachedKind, 'cache');
    expect(ready(memcachedKind, 'cache')).toMatchObject({
      status: 'False',
      reason: 'Progressing',
      message:
        'Deployment cache: 0 of 2 replicas available; pod cache-5f7d-a (and 1 more): ImagePullBackOff: ' +
        'container web: Back-off pulling image "registry.example.com/web:does-not-exist"',
    });
    // Read once: the next reads come with the reconciles that come anyway (the not-Ready recheck).
    expect(reads).toHaveLength(1);
    expect(after.requeueAfterMs).toBeGreaterThanOrEqual(60_000);
  });

  it('reads again at a backing-off pace while it stays stuck, and follows what the pods say', async () => {
    await stuckCache();
    const t0 = cluster.clock;
    const readsAt = async (seconds: number) => {
      cluster.clock = t0 + seconds * 1_000;
      await reconcile(memcachedKind, 'cache');
      return reads.length;
    };
    // Stuck after 5 s, then at least 30, 60, 120 s between reads (REREAD_MS doubling).
    const times = [0, 4.9, 5, 34.9, 35, 94.9, 95, 214.9, 215];
    const counts: number[] = [];
    for (const t of times) counts.push(await readsAt(t));
    expect(counts).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4]);
    expect(REREAD_MS).toBe(30_000);
    // The pods now say something else: the next read says it.
    cluster.remove(POD, NS, 'cache-5f7d-a');
    cluster.remove(POD, NS, 'cache-5f7d-b');
    cachePods(UNSCHEDULABLE);
    advance(8 * REREAD_MS);
    await reconcile(memcachedKind, 'cache');
    advance(1_000);
    await reconcile(memcachedKind, 'cache');
    expect(ready(memcachedKind, 'cache')?.message).toMatch(
      /; pod cache-5f7d-a \(and 1 more\): Unschedulable: 0\/3 nodes/,
    );
  });

  it('reads nothing while the Deployment moves, and drops what it read once it does', async () => {
    await stuckCache();
    await reconcile(memcachedKind, 'cache');
    advance(STUCK_AFTER_MS);
    await reconcile(memcachedKind, 'cache');
    advance(1_000);
    await reconcile(memcachedKind, 'cache');
    expect(ready(memcachedKind, 'cache')?.message).toMatch(/ImagePullBackOff/);
    // A rollout moving on: a replica available. No stale word of the pods, and no read of its own: the
    // next waits for the backoff (REREAD_MS after the first) and for the Deployment to be still.
    deploymentStatus('cache', 2, 1);
    await reconcile(memcachedKind, 'cache');
    advance(1_000);
    await reconcile(memcachedKind, 'cache');
    expect(ready(memcachedKind, 'cache')?.message).toBe('Deployment cache: 1 of 2 replicas available');
    advance(STUCK_AFTER_MS);
    await reconcile(memcachedKind, 'cache');
    expect(reads).toHaveLength(1);
    advance(REREAD_MS);
    await reconcile(memcachedKind, 'cache');
    expect(reads).toHaveLength(2);
    // Ready: nothing read, nothing due.
    deploymentStatus('cache', 2, 2);
    advance(STUCK_AFTER_MS);
    expect(await reconcile(memcachedKind, 'cache')).toEqual({});
    expect(ready(memcachedKind, 'cache')?.status).toBe('True');
    expect(reads).toHaveLength(2);
  });

  it('reads at once when a user asks for a reconcile (reconstruct.dev/requested-at)', async () => {
    await stuckCache();
    await reconcile(memcachedKind, 'cache');
    advance(STUCK_AFTER_MS);
    await reconcile(memcachedKind, 'cache');
    expect(reads).toHaveLength(1);
    cluster.patch(memcachedKind, NS, 'cache', {
      metadata: { annotations: { [REQUESTED_AT_ANNOTATION]: 'now-1' } },
    });
    await reconcile(memcachedKind, 'cache');
    expect(reads).toHaveLength(2);
  });

  it('says once, as a warning, that it may not read pods, and reads no more', async () => {
    start(
      [memcachedKind],
      new ApiError(403, 'pods is forbidden: User "system:serviceaccount:x:y" cannot list resource "pods"'),
    );
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await reconcile(memcachedKind, 'cache');
    deploymentStatus('cache', 2, 0);
    await reconcile(memcachedKind, 'cache');
    advance(STUCK_AFTER_MS);
    await reconcile(memcachedKind, 'cache');
    advance(4 * REREAD_MS);
    await reconcile(memcachedKind, 'cache');
    expect(reads).toEqual([`pods ${NS}`]);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'cannot read pods or events: Ready will not say why a child is stuck (grant list on pods and events)',
    ]);
    expect(ready(memcachedKind, 'cache')?.message).toBe('Deployment cache: 0 of 2 replicas available');
  });
});

describe('a burst of stuck resources', () => {
  it('costs no reconcile for a first read that says nothing: pods that only take a while to start', async () => {
    start([memcachedKind]);
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await reconcile(memcachedKind, 'cache');
    deploymentStatus('cache', 2, 0);
    cachePods(NEW);
    await reconcile(memcachedKind, 'cache'); // progress only: its status write held a second
    advance(1_000);
    expect((await reconcile(memcachedKind, 'cache')).requeueAfterMs).toBeGreaterThanOrEqual(60_000);
    advance(STUCK_AFTER_MS);
    await fire();
    expect(reads).toEqual([`pods ${NS}`]);
    expect(woken).toEqual([]);
  });

  it(`reads ${READS_PER_SECOND} a second after a burst of 10, each resource's timer moved to its turn`, async () => {
    start([memcachedKind]);
    const names = Array.from({ length: 30 }, (_, i) => `c${i}`);
    for (const name of names) {
      cluster.putResource(memcachedKind, name, { size: 1 }, NS);
      await reconcile(memcachedKind, name);
      deploymentStatus(name, 1, 0);
    }
    for (const name of names) await reconcile(memcachedKind, name);
    advance(STUCK_AFTER_MS);
    await fire();
    expect(reads).toHaveLength(10);
    // The others' timers are at their turns: 200 ms apart.
    const turns = timers.filter((t) => !t.cancelled).map((t) => t.at - cluster.clock);
    expect(turns.sort((a, b) => a - b).slice(0, 3)).toEqual([200, 400, 600]);
    advance(1_000);
    await fire();
    expect(reads).toHaveLength(15);
    expect(woken).toEqual([]); // no pods: nothing to say, no reconcile
  });
});

describe('every kind, by its blocking child', () => {
  it("a MySQL Cluster whose members cannot be scheduled: the kind's count, then the scheduler's reason", async () => {
    start([mysqlClusterKind]);
    cluster.putResource(mysqlClusterKind, 'db', { members: 3, version: '8.0.36' }, NS);
    await reconcile(mysqlClusterKind, 'db');
    const sts = cluster.any(STATEFUL_SET, NS, 'db')!;
    const labels = (sts.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    cluster.patch(STATEFUL_SET, NS, 'db', {
      status: { observedGeneration: 1, replicas: 1, readyReplicas: 0 },
    });
    cluster.put(POD, pod('db-0', UNSCHEDULABLE, labels));
    await reconcile(mysqlClusterKind, 'db');
    advance(STUCK_AFTER_MS);
    await reconcile(mysqlClusterKind, 'db');
    advance(1_000);
    await reconcile(mysqlClusterKind, 'db');
    expect(ready(mysqlClusterKind, 'db')).toMatchObject({
      status: 'False',
      reason: 'Creating',
      message:
        '0 of 3 members ready; pod db-0: Unschedulable: 0/3 nodes are available: 3 node(s) were unschedulable. ' +
        'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    });
  });

  it("a claim that is not bound: its newest event, the provisioner's word", async () => {
    start([storefrontKind]);
    cluster.putResource(storefrontKind, 'shop', { storage: '1Gi' }, NS);
    await reconcile(storefrontKind, 'shop');
    deploymentStatus('shop', 1, 1);
    cluster.patch(PERSISTENT_VOLUME_CLAIM, NS, 'shop-data', { status: { phase: 'Pending' } });
    const event = (name: string, type: string, reason: string, message: string, at: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: NS, creationTimestamp: at },
      involvedObject: { kind: 'PersistentVolumeClaim', name: 'shop-data', namespace: NS },
      type,
      reason,
      message,
      lastTimestamp: at,
    });
    cluster.put(
      EVENT,
      event(
        'e1',
        'Normal',
        'ExternalProvisioning',
        'Waiting for a volume to be created',
        '2026-11-27T10:00:00Z',
      ),
    );
    cluster.put(
      EVENT,
      event(
        'e2',
        'Warning',
        'ProvisioningFailed',
        'storageclass.storage.k8s.io "fast" not found',
        '2026-11-27T10:00:01Z',
      ),
    );
    await reconcile(storefrontKind, 'shop');
    advance(STUCK_AFTER_MS);
    await reconcile(storefrontKind, 'shop');
    advance(1_000);
    await reconcile(storefrontKind, 'shop');
    expect(ready(storefrontKind, 'shop')?.message).toBe(
      'PersistentVolumeClaim shop-data: Pending, not bound; ProvisioningFailed: storageclass.storage.k8s.io "fast" not found',
    );
    expect(reads).toEqual(['events PersistentVolumeClaim/shop-data']);
  });

  it('pods that are ready say nothing: no line, whatever else blocks', async () => {
    await stuckCache();
    for (const name of ['cache-5f7d-a', 'cache-5f7d-b']) cluster.remove(POD, NS, name);
    cachePods(RUNNING_READY);
    await reconcile(memcachedKind, 'cache');
    advance(STUCK_AFTER_MS);
    await reconcile(memcachedKind, 'cache');
    expect(reads).toHaveLength(1);
    expect(ready(memcachedKind, 'cache')?.message).toBe('Deployment cache: 0 of 2 replicas available');
  });
});
