/**
 * The reconciler's decisions, the sample-controller way: an in-memory cluster, a recording writer, and the
 * exact writes each case makes, for the children: creation, convergence, a spec change, pruning, foreign
 * objects, refused writes and specs. Milliseconds each; the same behaviour against the API server is in
 * the *.cluster.test.ts files; the status side is in reconciler-status.test.ts.
 */
import { DEPLOYMENT, SERVICE, databaseManagerKind, memcachedKind } from '../../../constructs';
import { ApiError } from '../../../controller/kube/errors';
import { FIRST_STATUS_HOLD_MS } from '../../../controller/reconcile/decide';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { exporterKind } from '../../fixtures/kinds/exporter';
import { InMemoryCluster } from '../../../testing';
import { NS, kinds, reconcilerHelpers } from './reconciler-helpers';

let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster(kinds);
});
const { reconcile, writes, available } = reconcilerHelpers(() => cluster);

describe('a new resource', () => {
  it('applies every child, says in its status how they do as written, and checks back within a minute', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    const result = await reconcile(memcachedKind, 'cache');
    expect(writes().sort()).toEqual([
      'apply Deployment/cache',
      'apply Service/cache',
      'status Memcached/cache',
    ]);
    // Read from what the applies answered, not the caches, which show the children only at their events.
    expect(cluster.ready(memcachedKind, NS, 'cache')).toMatchObject({
      status: 'False',
      reason: 'Progressing',
    });
    expect(result).toEqual({ requeueAfterMs: 60_000 }); // the not-Ready recheck; its pods are a timer's
    expect(cluster.events).toEqual([]); // what its creation asked for: its status says how they do
  });

  it('in a burst (resources wait in the queue), applies its children first and says how they do a second later', async () => {
    const writer = cluster.writer();
    const now = () => new Date(cluster.clock);
    const events = { emit: () => undefined };
    const busy = new Reconciler({ view: cluster, writer, events, log: cluster.log, now, busy: () => true });
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    expect(await busy.reconcile(memcachedKind, NS, 'cache')).toEqual({
      requeueAfterMs: FIRST_STATUS_HOLD_MS,
    });
    expect(writes().sort()).toEqual(['apply Deployment/cache', 'apply Service/cache']);
    cluster.clock += FIRST_STATUS_HOLD_MS;
    await busy.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toEqual(['status Memcached/cache']);
  });

  it('gives every child a controller ownerReference to the resource', async () => {
    const { metadata } = cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    await reconcile(memcachedKind, 'cache');
    for (const type of [DEPLOYMENT, SERVICE]) {
      expect(cluster.any(type, NS, 'cache')?.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Memcached', name: 'cache', uid: metadata.uid, controller: true }),
      ]);
    }
  });
});

describe('a child made again (deleted by someone)', () => {
  it('is announced by an event, once, also when applied again before the watch shows it', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    available('cache', 1);
    await cluster.reconcile(memcachedKind, NS, 'cache'); // Ready: the resource has a status
    cluster.remove(SERVICE, NS, 'cache');
    writes();
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes()).toEqual(['apply Service/cache']);
    // The caches lag: they do not show the new Service yet, so it is applied again (idempotent).
    const get = cluster.get.bind(cluster);
    const exists = cluster.exists.bind(cluster);
    cluster.get = (type, ns, name) => (type.plural === 'services' ? undefined : get(type, ns, name));
    cluster.exists = (type, ns, name) => type.plural !== 'services' && exists(type, ns, name);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(writes().filter((w) => w.startsWith('apply'))).toEqual(['apply Service/cache']);
    cluster.get = get;
    cluster.exists = exists;
    expect(cluster.events.map((e) => `${e.reason}: ${e.message}`)).toEqual([
      'Created: Created Service cache',
    ]);
  });
});

describe('a converged resource', () => {
  it('sends no write at all, however often it is reconciled', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    await reconcile(memcachedKind, 'cache');
    available('cache', 1);
    await reconcile(memcachedKind, 'cache'); // the status
    writes();
    for (let i = 0; i < 3; i++) await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual([]);
    expect(cluster.ready(memcachedKind, NS, 'cache')).toMatchObject({ status: 'True', reason: 'Ready' });
  });
});

describe('a spec change', () => {
  it('applies the child that changed and only it', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    await reconcile(memcachedKind, 'cache');
    writes();
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 3 });
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toEqual(['apply Deployment/cache', 'status Memcached/cache']);
    expect((cluster.any(DEPLOYMENT, NS, 'cache')?.spec as { replicas: number }).replicas).toBe(3);
  });

  it('brings back a field changed by hand (drift)', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await reconcile(memcachedKind, 'cache');
    cluster.patch(DEPLOYMENT, NS, 'cache', { spec: { replicas: 7 } });
    writes();
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toContain('apply Deployment/cache');
    expect((cluster.any(DEPLOYMENT, NS, 'cache')?.spec as { replicas: number }).replicas).toBe(2);
  });
});

describe('pruning', () => {
  it('deletes the child it no longer renders, after applying the new one', async () => {
    cluster.putResource(databaseManagerKind, 'db', { deploymentName: 'old' }, NS);
    await reconcile(databaseManagerKind, 'db');
    writes();
    cluster.setSpec(databaseManagerKind, NS, 'db', { deploymentName: 'new' });
    await reconcile(databaseManagerKind, 'db');
    expect(writes()).toEqual(['apply Deployment/new', 'delete Deployment/old', 'status DatabaseManager/db']);
    expect(cluster.events.map((e) => e.reason)).toContain('Pruned');
  });

  it('never deletes an object that has our labels but another owner', async () => {
    cluster.putResource(databaseManagerKind, 'db', { deploymentName: 'mine' }, NS);
    await reconcile(databaseManagerKind, 'db');
    const mine = cluster.any(DEPLOYMENT, NS, 'mine')!;
    // A copy of our child's labels on someone else's object.
    cluster.put(DEPLOYMENT, {
      ...mine,
      metadata: { ...mine.metadata, name: 'copy', uid: undefined, ownerReferences: [] },
    });
    writes();
    await reconcile(databaseManagerKind, 'db');
    expect(writes().filter((w) => w.startsWith('delete'))).toEqual([]);
  });
});

describe('a foreign object of the same name', () => {
  it('is left untouched; the resource is Ready=False ErrResourceExists with a Warning event', async () => {
    cluster.put(DEPLOYMENT, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'taken', namespace: NS },
      spec: { replicas: 9 },
    });
    cluster.putResource(databaseManagerKind, 'db', { deploymentName: 'taken' }, NS);
    const result = await reconcile(databaseManagerKind, 'db');
    expect(writes()).toEqual(['status DatabaseManager/db']);
    const ready = cluster.ready(databaseManagerKind, NS, 'db');
    expect([ready?.status, ready?.reason]).toEqual(['False', 'ErrResourceExists']);
    expect(ready?.message).toContain(
      `Deployment ${NS}/taken already exists and is not managed by DatabaseManager`,
    );
    expect(cluster.events).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'ErrResourceExists' }),
    );
    expect(result).toEqual({}); // its deletion brings the next reconcile, not a timer
    expect((cluster.any(DEPLOYMENT, NS, 'taken')?.spec as { replicas: number }).replicas).toBe(9);
  });

  it('is known as what blocks the resource, until a reconcile finds the way free', async () => {
    cluster.put(DEPLOYMENT, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'taken', namespace: NS },
    });
    cluster.putResource(databaseManagerKind, 'db', { deploymentName: 'taken' }, NS);
    const reconciler = cluster.reconciler();
    await reconciler.reconcile(databaseManagerKind, NS, 'db');
    // What the manager asks when the foreign Deployment goes or changes: whom to reconcile now.
    expect(reconciler.blockedBy(DEPLOYMENT, NS, 'taken')).toEqual([
      { definition: databaseManagerKind, namespace: NS, name: 'db' },
    ]);
    expect(reconciler.blockedBy(DEPLOYMENT, NS, 'other')).toEqual([]);
    cluster.remove(DEPLOYMENT, NS, 'taken');
    await reconciler.reconcile(databaseManagerKind, NS, 'db');
    expect(cluster.get(DEPLOYMENT, NS, 'taken')).toBeDefined(); // ours now
    expect(reconciler.blockedBy(DEPLOYMENT, NS, 'taken')).toEqual([]);
  });
});

describe('an apply the API server refuses', () => {
  it('says so in Ready, prunes nothing, and throws so that the queue backs off', async () => {
    cluster.putResource(databaseManagerKind, 'db', { deploymentName: 'old' }, NS);
    await reconcile(databaseManagerKind, 'db');
    cluster.setSpec(databaseManagerKind, NS, 'db', { deploymentName: 'new' });
    const reconciler = cluster.reconciler();
    cluster.refuse('apply', new ApiError(422, 'Deployment.apps "new" is invalid'));
    writes();
    await expect(reconciler.reconcile(databaseManagerKind, NS, 'db')).rejects.toThrow('is invalid');
    expect(writes()).toEqual(['status DatabaseManager/db']);
    expect(cluster.any(DEPLOYMENT, NS, 'old')).toBeDefined();
    expect(cluster.ready(databaseManagerKind, NS, 'db')).toMatchObject({
      status: 'False',
      reason: 'ApplyFailed',
    });
  });
});

describe('a kind the API server does not map yet (its CRD just installed)', () => {
  it('waits, says why, and checks again in seconds instead of backing off as after a failure', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    const reconciler = cluster.reconciler();
    cluster.refuse(
      'apply',
      new ApiError(
        403,
        'deployments.apps "cache" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion cache.example.com/v1alpha1 Kind Memcached',
      ),
    );
    expect(await reconciler.reconcile(memcachedKind, NS, 'cache')).toEqual({ requeueAfterMs: 3000 });
    expect(cluster.ready(memcachedKind, NS, 'cache')).toMatchObject({ status: 'False', reason: 'Waiting' });
    expect(cluster.events.filter((e) => e.type === 'Warning')).toEqual([]);
  });
});

describe('a spec the construct refuses', () => {
  it('is terminal: Ready=False InvalidSpec naming the field, no child written, no retry', async () => {
    // Admitted (a resource's name is a DNS subdomain), but no Service can be named so.
    cluster.putResource(memcachedKind, '1cache', { size: 1 }, NS);
    const result = await reconcile(memcachedKind, '1cache');
    expect(writes()).toEqual(['status Memcached/1cache']);
    expect(result).toEqual({});
    const ready = cluster.ready(memcachedKind, NS, '1cache');
    expect([ready?.status, ready?.reason]).toEqual(['False', 'InvalidSpec']);
    expect(ready?.message).toMatch(/^metadata\.name: .*must be a DNS-1035 label/);
    expect(cluster.events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'InvalidSpec' })]);
  });

  it('so is a name that makes a child name the API server would refuse: nothing is applied', async () => {
    const kind = exporterKind();
    const exporters = new InMemoryCluster([kind]);
    const name = 'e'.repeat(50); // admitted (at most 63), but `<name>-metrics-exporter` is no Service name
    exporters.putResource(kind, name, {}, NS);
    expect(await exporters.reconciler().reconcile(kind, NS, name)).toEqual({});
    expect(exporters.takeWrites().map((w) => `${w.verb} ${w.kind}`)).toEqual(['status Exporter']);
    const ready = exporters.ready(kind, NS, name);
    expect([ready?.status, ready?.reason]).toEqual(['False', 'InvalidSpec']);
    expect(ready?.message).toBe(
      `metadata.name: "${name}" makes Service name "${name}-metrics-exporter" 67 characters; ` +
        'the API server accepts at most 63',
    );
  });
});
