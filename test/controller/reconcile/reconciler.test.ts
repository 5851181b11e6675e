/**
 * The reconciler's decisions, the sample-controller way: an in-memory cluster, a recording writer, and the
 * exact writes each case makes. Milliseconds each; the same behaviour against the API server is in the
 * *.cluster.test.ts files.
 */
import {
  DEPLOYMENT,
  NODE,
  SERVICE,
  balancerKind,
  databaseManagerKind,
  memcachedKind,
  nodePoolKind,
  type Kind,
  type KubeObject,
} from '../../../constructs';
import { ApiError } from '../../../controller/kube/errors';
import { recordingLogger } from '../../support/logger';
import { exporterKind } from '../../fixtures/kinds/exporter';
import { sample } from '../../fixtures/resources';
import { InMemoryCluster, type Write } from '../../../testing';

const NS = 'demo';
const kinds: Kind[] = [memcachedKind, nodePoolKind, databaseManagerKind, balancerKind];
let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster(kinds);
});

const reconcile = (kind: Kind, name: string, namespace: string | undefined = NS) =>
  cluster.reconciler().reconcile(kind, namespace, name);
/** The writes since the last call, as `verb Kind/name`, status writes included. */
const writes = () => cluster.takeWrites().map((w: Write) => `${w.verb} ${w.kind}/${w.name}`);
const available = (name: string, replicas: number) =>
  cluster.patch(DEPLOYMENT, NS, name, {
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
    },
  });

describe('a new resource', () => {
  it('applies every child, writes no status yet, and checks back within a minute', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    const result = await reconcile(memcachedKind, 'cache');
    expect(writes().sort()).toEqual(['apply Deployment/cache', 'apply Service/cache']);
    expect(result).toEqual({ requeueAfterMs: 60_000 });
    expect(cluster.events).toEqual([]); // what its creation asked for: its status says how they do
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
    expect(writes()).toEqual(['apply Deployment/new', 'delete Deployment/old']);
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
    await reconcile(memcachedKind, 'cache');
    cluster.patch(DEPLOYMENT, NS, 'cache', { status: { observedGeneration: 1, ...status } });
    await reconcile(memcachedKind, 'cache');
    expect(cluster.ready(memcachedKind, NS, 'cache')).toEqual(
      expect.objectContaining({ status: 'False', reason: 'Progressing', message }),
    );
  });
});

describe('a resource that stays not Ready', () => {
  // One controller, as it runs: the wait grows with what the same reconciler saw before.
  it('is checked back less often the longer it waits, and from a minute again for a new generation', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    const waits: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++)
      waits.push((await cluster.reconcile(memcachedKind, NS, 'cache')).requeueAfterMs);
    expect(waits).toEqual([60_000, 120_000, 240_000, 300_000, 300_000]);
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 3 });
    expect(await cluster.reconcile(memcachedKind, NS, 'cache')).toEqual({ requeueAfterMs: 60_000 });
  });

  it('starts over after it was Ready', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await cluster.reconcile(memcachedKind, NS, 'cache');
    expect(await cluster.reconcile(memcachedKind, NS, 'cache')).toEqual({ requeueAfterMs: 120_000 });
    available('cache', 2);
    expect(await cluster.reconcile(memcachedKind, NS, 'cache')).toEqual({});
    cluster.patch(DEPLOYMENT, NS, 'cache', { status: { readyReplicas: 1, availableReplicas: 1 } });
    expect(await cluster.reconcile(memcachedKind, NS, 'cache')).toEqual({ requeueAfterMs: 60_000 });
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
    await cluster.reconcile(memcachedKind, NS, 'cache'); // the children
    writes();
    rolling(0, 0);
    await cluster.reconcile(memcachedKind, NS, 'cache'); // the first status goes at once
    expect(writes()).toEqual(['status Memcached/cache']);
    expect(cluster.ready(memcachedKind, NS, 'cache')?.message).toBe(
      'Deployment cache: 0 of 3 replicas updated',
    );

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
    expect(writes().sort()).toEqual(['apply Deployment/cache', 'apply Service/cache']);
  });
});
