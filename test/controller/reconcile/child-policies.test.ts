/**
 * The reconciler's decisions for each child policy, against an in-memory cluster with a recording writer:
 * which writes it makes, with which field manager, and what the status and events say. The same checks
 * on the local cluster are in child-policies.cluster.test.ts.
 */
import {
  ADOPT_ANNOTATION,
  CONFIG_MAP,
  DEPLOYMENT,
  OWNER_UID_ANNOTATION,
  RELEASED_FROM_ANNOTATION,
  SECRET,
  type KubeObject,
} from '../../../constructs/kit';
import { policyDemoKind, type PolicyDemoSpec } from '../../fixtures/kinds/policy-demo';
import { InMemoryCluster, type Write } from '../../../testing';
import { WAIT_EVENT_AFTER_MS } from '../../../controller/reconcile/waits';

const NS = 'demo';
let cluster: InMemoryCluster;

function setUp(spec: PolicyDemoSpec, name = 'app'): KubeObject {
  cluster = new InMemoryCluster([policyDemoKind]);
  return cluster.putResource(policyDemoKind, name, spec, NS);
}

/** A spec change, as the API server records it: a new generation. */
const changeSpec = (spec: PolicyDemoSpec, name = 'app') => cluster.setSpec(policyDemoKind, NS, name, spec);

const reconcile = (name = 'app') => cluster.reconciler().reconcile(policyDemoKind, NS, name);
const childWrites = (writes: Write[]) => writes.filter((w) => w.verb !== 'status');
const ready = (name = 'app') => cluster.ready(policyDemoKind, NS, name);
const token = () =>
  (cluster.any(SECRET, NS, 'app-token') as { stringData?: { token?: string } } | undefined)?.stringData
    ?.token;

describe('create-only', () => {
  it('creates the Secret with a generated value once, and never writes it again', async () => {
    setUp({ token: true });
    await reconcile();
    const [create] = childWrites(cluster.takeWrites());
    expect(create).toMatchObject({ verb: 'create', kind: 'Secret', name: 'app-token' });
    const first = token();
    expect(first).toMatch(/^[A-Za-z0-9]{16}$/);

    changeSpec({ token: true, data: true });
    await reconcile();
    expect(childWrites(cluster.takeWrites()).filter((w) => w.kind === 'Secret')).toEqual([]);
    // A new reconciler is a restarted controller: it knows nothing but the cluster.
    await reconcile();
    expect(cluster.takeWrites().filter((w) => w.kind === 'Secret')).toEqual([]);
    expect(token()).toBe(first);
  });

  it('creates a new Secret, with a new value, once the old one is deleted', async () => {
    setUp({ token: true });
    await reconcile();
    const first = token();
    cluster.remove(SECRET, NS, 'app-token');
    await reconcile();
    expect(token()).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(token()).not.toBe(first);
  });

  it('leaves an existing Secret alone when its cache lagged (create, not apply: 409 means it is there)', async () => {
    setUp({ token: true });
    await reconcile();
    const first = token();
    // The controller's cache has not seen its own creation yet: get() misses it, the create finds it.
    const get = cluster.get.bind(cluster);
    cluster.get = (type, ns, name) => (type.plural === 'secrets' ? undefined : get(type, ns, name));
    cluster.exists = () => false;
    await reconcile();
    expect(token()).toBe(first);
  });

  it('without the policy the same construct rewrites the value on every spec change (what the policy prevents)', async () => {
    setUp({ token: true, policies: false });
    await reconcile();
    const first = token();
    changeSpec({ token: true, policies: false, data: true });
    await reconcile();
    expect(token()).not.toBe(first);
  });
});

describe('retain', () => {
  it('gives a retained child no ownerReference but the owner annotation; its sibling an ownerReference', async () => {
    const resource = setUp({ data: true });
    await reconcile();
    const data = cluster.any(CONFIG_MAP, NS, 'app-data')!;
    const scratch = cluster.any(CONFIG_MAP, NS, 'app-scratch')!;
    expect(data.metadata.ownerReferences).toBeUndefined();
    expect(data.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBe(resource.metadata.uid);
    expect(scratch.metadata.ownerReferences?.[0]).toMatchObject({
      uid: resource.metadata.uid,
      controller: true,
    });
  });

  it('releases a retained child it stops rendering (Retained event), deletes the sibling, takes it back later', async () => {
    const resource = setUp({ data: true });
    await reconcile();
    cluster.takeWrites();

    changeSpec({});
    await reconcile();
    const writes = childWrites(cluster.takeWrites());
    expect(writes).toEqual([
      expect.objectContaining({ verb: 'patch', kind: 'ConfigMap', name: 'app-data' }),
      expect.objectContaining({ verb: 'delete', kind: 'ConfigMap', name: 'app-scratch' }),
    ]);
    const data = cluster.any(CONFIG_MAP, NS, 'app-data')!;
    expect(data.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'app' });
    expect(data.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBeUndefined();
    expect(data.metadata.annotations?.[RELEASED_FROM_ANNOTATION]).toBe(resource.metadata.uid);
    expect(cluster.events).toContainEqual(expect.objectContaining({ reason: 'Retained' }));
    expect(cluster.events.find((e) => e.reason === 'Retained')?.message).toContain('ConfigMap app-data');

    // Once released it is not ours: the next reconciles leave it alone (no second Retained event).
    await reconcile();
    expect(childWrites(cluster.takeWrites())).toEqual([]);

    changeSpec({ data: true });
    await reconcile();
    await reconcile();
    const back = cluster.any(CONFIG_MAP, NS, 'app-data')!;
    expect(back.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBe(resource.metadata.uid);
    expect(back.metadata.annotations?.[RELEASED_FROM_ANNOTATION]).toBeUndefined();
    expect(ready()?.reason).not.toBe('ErrResourceExists');
  });

  it('does not hand a retained child to a later resource of the same name until a user says so', async () => {
    setUp({ data: true });
    await reconcile();
    // The resource is deleted (its ownerReferenced sibling with it) and made again: a new uid.
    cluster.remove(policyDemoKind, NS, 'app');
    cluster.remove(CONFIG_MAP, NS, 'app-scratch');
    cluster.putResource(policyDemoKind, 'app', { data: true }, NS);
    cluster.takeWrites();
    await reconcile();
    expect(childWrites(cluster.takeWrites()).filter((w) => w.name === 'app-data')).toEqual([]);
    expect(ready()).toMatchObject({ status: 'False', reason: 'ErrResourceExists' });
    expect(ready()?.message).toContain(`ConfigMap ${NS}/app-data already exists`);
    expect(ready()?.message).toContain(`${ADOPT_ANNOTATION}=true`);

    cluster.patch(CONFIG_MAP, NS, 'app-data', { metadata: { annotations: { [ADOPT_ANNOTATION]: 'true' } } });
    await reconcile();
    await reconcile();
    const adopted = cluster.any(CONFIG_MAP, NS, 'app-data')!;
    const uid = cluster.any(policyDemoKind, NS, 'app')!.metadata.uid;
    expect(adopted.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBe(uid);
    expect(adopted.metadata.annotations?.[ADOPT_ANNOTATION]).toBeUndefined();
    expect(ready()?.reason).not.toBe('ErrResourceExists');
  });
});

describe('ignore fields', () => {
  const replicas = () => (cluster.any(DEPLOYMENT, NS, 'app-web')!.spec as { replicas?: number }).replicas;
  const image = () =>
    (
      cluster.any(DEPLOYMENT, NS, 'app-web')!.spec as {
        template: { spec: { containers: { image: string }[] } };
      }
    ).template.spec.containers[0].image;

  it('creates with the field, hands it to a second manager of ours, and leaves it out of later applies', async () => {
    setUp({ web: { image: 'busybox:1', replicas: 2 } });
    await reconcile();
    const writes = childWrites(cluster.takeWrites());
    expect(writes.map((w) => [w.verb, w.fieldManager])).toEqual([
      ['apply', 'reconstruct'],
      ['apply', 'reconstruct-initial'],
    ]);
    expect(writes[0].body).toMatchObject({ spec: { replicas: 2 } });
    expect(writes[1].body).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'app-web', namespace: NS },
      spec: { replicas: 2 },
    });
    expect(replicas()).toBe(2);

    // Nobody scaled it yet: a spec change keeps the initial value (the second manager still holds it).
    changeSpec({ web: { image: 'busybox:2', replicas: 2 } });
    await reconcile();
    const update = childWrites(cluster.takeWrites());
    expect(update).toHaveLength(1);
    expect((update[0].body as { spec: object }).spec).not.toHaveProperty('replicas');
    expect([replicas(), image()]).toEqual([2, 'busybox:2']);
  });

  it('never resets what the autoscaler set, nor writes because of it; spec changes still go out', async () => {
    setUp({ web: { image: 'busybox:1', replicas: 2 } });
    await reconcile();
    cluster.patch(DEPLOYMENT, NS, 'app-web', { spec: { replicas: 5 } });
    cluster.takeWrites();
    await reconcile();
    expect(childWrites(cluster.takeWrites())).toEqual([]);

    changeSpec({ web: { image: 'busybox:2', replicas: 3 } });
    await reconcile();
    expect([replicas(), image()]).toEqual([5, 'busybox:2']);
  });
});

describe('wait for', () => {
  /** The gate Deployment's status once its one pod is available, as kube-controller-manager writes it. */
  const gateRolledOut = () =>
    cluster.patch(DEPLOYMENT, NS, 'app-gate', {
      status: {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
    });

  it('holds a child back while its sibling is not ready, says so, and creates it once it is', async () => {
    setUp({ gate: { schedulable: false } });
    // One controller throughout: what it remembers says since when the child waits.
    const reconcile = () => cluster.reconcile(policyDemoKind, NS, 'app');
    await reconcile();
    expect(cluster.any(DEPLOYMENT, NS, 'app-gate')).toBeDefined();
    expect(cluster.any(CONFIG_MAP, NS, 'app-after')).toBeUndefined();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Waiting',
      message: 'ConfigMap app-after waits for Deployment app-gate: 0 of 1 replicas updated',
    });
    // Said in an event once it has lasted (controller/reconcile/waits.ts).
    expect(cluster.events.find((e) => e.reason === 'Waiting')).toBeUndefined();
    cluster.clock += WAIT_EVENT_AFTER_MS;
    await reconcile();
    expect(cluster.events.find((e) => e.reason === 'Waiting')).toEqual({
      type: 'Normal',
      reason: 'Waiting',
      message: 'ConfigMap app-after waits for Deployment app-gate: 0 of 1 replicas updated',
    });

    gateRolledOut();
    await reconcile();
    expect(cluster.any(CONFIG_MAP, NS, 'app-after')).toBeDefined();
  });

  it('does not prune a child that waits', async () => {
    setUp({ gate: { schedulable: true } });
    await reconcile();
    gateRolledOut();
    await reconcile();
    expect(cluster.any(CONFIG_MAP, NS, 'app-after')).toBeDefined();
    // The gate rolls (a new generation not observed yet): the ConfigMap waits again, and stays.
    cluster.patch(DEPLOYMENT, NS, 'app-gate', { metadata: { generation: 2 } });
    cluster.takeWrites();
    await reconcile();
    expect(cluster.takeWrites().filter((w) => w.verb === 'delete')).toEqual([]);
    expect(cluster.any(CONFIG_MAP, NS, 'app-after')).toBeDefined();
    expect(ready()?.reason).toBe('Waiting');
  });
});
