/**
 * A new revision of a kind reaches its resources at a bounded pace (docs/OPERATING.md, "Rolling out a new
 * revision"): oldest first, at most maxInFlight moved and not Ready again, stopped while failureThreshold
 * moved resources are not Ready past the deadline; a new resource, a spec change or an unchanged rendering
 * moves at once. Two builds of one kind (test/fixtures/kinds/rolling-*.ts) on an in-memory cluster.
 */
import {
  DEPLOYMENT,
  RECONCILE_ANNOTATION,
  RECONCILE_DISABLED,
  type Kind,
  type RolloutOptions,
} from '../../../constructs';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { InMemoryCluster } from '../../../testing';
import { rollingKind, type RollingSpec } from '../../fixtures/kinds/rolling';
import { rollingV1 } from '../../fixtures/kinds/rolling-v1';
import { rollingV2 } from '../../fixtures/kinds/rolling-v2';
import { rollingV3 } from '../../fixtures/kinds/rolling-v3-broken';
import { recordingLogger } from '../../support/logger';

const NS = 'shop';
const NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
let cluster: InMemoryCluster;
let events: { reason: string; type: string; message: string; name: string }[];
let enqueued: string[];
let reconciler: Reconciler;
/** The annotations of the kind's CRD, as the controller's CRD watch sees them (a suspended kind). */
let kindMarks: Record<string, string> | undefined;

/** A controller (just started: nothing remembered) running `kind`'s build, with `rollout` flags. */
function start(rollout?: RolloutOptions): void {
  kindMarks = undefined;
  events = [];
  enqueued = [];
  reconciler = new Reconciler({
    view: cluster,
    writer: cluster.writer(),
    events: {
      emit: (obj, type, reason, message) => events.push({ type, reason, message, name: obj.metadata.name }),
    },
    log: recordingLogger().log,
    now: () => new Date(cluster.clock),
    rollout,
    enqueue: (_kind, _ns, name) => enqueued.push(name),
    kindAnnotations: () => kindMarks,
  });
}

const reconcileAll = async (kind: Kind, names = NAMES) => {
  for (const name of names) await reconciler.reconcile(kind, NS, name);
};
/** The Deployment's controller rolls it out: every replica updated and available at its generation. */
const rolledOut = (name: string) => {
  const generation = cluster.any(DEPLOYMENT, NS, name)?.metadata.generation ?? 1;
  cluster.patch(DEPLOYMENT, NS, name, {
    status: {
      observedGeneration: generation,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    },
  });
};
const build = (name: string) =>
  (
    cluster.any(DEPLOYMENT, NS, name)?.spec as {
      template: { spec: { containers: { env: { name: string; value: string }[] }[] } };
    }
  ).template.spec.containers[0].env.find((e) => e.name === 'BUILD')?.value;
const status = (name: string) =>
  (cluster.any(rollingV1, NS, name)?.status ?? {}) as {
    lastAppliedRevision?: string;
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
const rollout = (name: string) => status(name).conditions?.find((c) => c.type === 'Rollout');
const builds = () => NAMES.map(build);
const deploymentWrites = () =>
  cluster
    .takeWrites()
    .filter((w) => w.kind === 'Deployment')
    .map((w) => w.name);

/** Six Rollings, created in order a second apart, running build v1, Ready. */
async function atV1(): Promise<void> {
  cluster = new InMemoryCluster([rollingV1]);
  for (const name of NAMES) {
    cluster.putResource<RollingSpec>(rollingV1, name, {}, NS);
    cluster.clock += 1_000;
  }
  start();
  await reconcileAll(rollingV1);
  for (const name of NAMES) rolledOut(name);
  await reconcileAll(rollingV1);
  expect(NAMES.map((n) => status(n).lastAppliedRevision)).toEqual(NAMES.map(() => 'v1'));
  expect(NAMES.map((n) => cluster.ready(rollingV1, NS, n)?.status)).toEqual(NAMES.map(() => 'True'));
  cluster.takeWrites();
}

describe('a new revision of a kind', () => {
  it('moves at most maxInFlight resources, oldest first, the next once one is Ready again', async () => {
    await atV1();
    start({ maxInFlight: 2 });
    await reconcileAll(rollingV2);
    expect(deploymentWrites()).toEqual(['r0', 'r1']);
    expect(builds()).toEqual(['v2', 'v2', 'v1', 'v1', 'v1', 'v1']);
    expect(rollout('r0')).toMatchObject({ status: 'True', reason: 'Moving' });
    expect(rollout('r2')).toMatchObject({ status: 'False', reason: 'Waiting' });
    expect(rollout('r2')?.message).toBe(
      'revision v2 is rolled out 2 resource(s) at a time, oldest first: this one runs v1 until its turn (4 waiting)',
    );
    expect(status('r2').lastAppliedRevision).toBe('v1');
    expect(
      events.filter((e) => e.reason === 'RevisionRollout').map((e) => `${e.name}: ${e.message}`),
    ).toEqual(['r0: moving to revision v2 from v1', 'r1: moving to revision v2 from v1']);
    // Held resources are looked at again, should no one call them.
    expect((await reconciler.reconcile(rollingV2, NS, 'r3')).requeueAfterMs).toBeLessThanOrEqual(30_000);

    // r0 rolled out and Ready again: its slot goes to the oldest waiting, r2, which is asked to reconcile.
    cluster.clock += 1_000;
    rolledOut('r0');
    enqueued = [];
    await reconciler.reconcile(rollingV2, NS, 'r0');
    expect(rollout('r0')).toBeUndefined();
    expect(status('r0').lastAppliedRevision).toBe('v2');
    expect(enqueued).toEqual(['r2']);
    await reconcileAll(rollingV2);
    expect(builds()).toEqual(['v2', 'v2', 'v2', 'v1', 'v1', 'v1']);

    // And so on to the end, never more than two moving.
    for (let round = 0; round < 4; round++) {
      cluster.clock += 1_000;
      for (const name of NAMES) if (build(name) === 'v2') rolledOut(name);
      await reconcileAll(rollingV2);
      const moving = NAMES.filter((n) => rollout(n)?.reason === 'Moving');
      expect(moving.length).toBeLessThanOrEqual(2);
    }
    cluster.clock += 1_000;
    for (const name of NAMES) rolledOut(name);
    await reconcileAll(rollingV2);
    expect(builds()).toEqual(NAMES.map(() => 'v2'));
    expect(NAMES.map((n) => status(n).lastAppliedRevision)).toEqual(NAMES.map(() => 'v2'));
    expect(NAMES.map(rollout)).toEqual(NAMES.map(() => undefined));
  });

  it('moves at once a resource whose spec changed, a new one, and one whose children it leaves as they are', async () => {
    await atV1();
    start({ maxInFlight: 1 });
    cluster.setSpec<RollingSpec>(rollingV1, NS, 'r5', { replicas: 2 });
    cluster.putResource<RollingSpec>(rollingV1, 'new', {}, NS);
    await reconcileAll(rollingV2, [...NAMES, 'new']);
    // r0 by its turn; r5 because its user asked; the new one has no older revision.
    expect(deploymentWrites().sort()).toEqual(['new', 'r0', 'r5']);
    expect(status('r5').lastAppliedRevision).toBe('v2');

    // A revision whose construct renders the same children: every resource takes it at once.
    const v1again = rollingKind({ revision: 'v1.1', env: { BUILD: 'v1' } });
    await atV1();
    start({ maxInFlight: 1 });
    await reconcileAll(v1again);
    expect(deploymentWrites()).toEqual([]);
    expect(NAMES.map((n) => status(n).lastAppliedRevision)).toEqual(NAMES.map(() => 'v1.1'));
    expect(NAMES.map(rollout)).toEqual(NAMES.map(() => undefined));
  });

  it('stops while failureThreshold moved resources are not Ready past the deadline, and says so once', async () => {
    await atV1();
    start({ maxInFlight: 3, failureThreshold: 2, progressDeadlineSeconds: 60 });
    await reconcileAll(rollingV3);
    expect(deploymentWrites()).toEqual(['r0', 'r1', 'r2']);
    // The moved ones never become Ready (no node takes their pods). Past the deadline, the rollout stops.
    cluster.clock += 61_000;
    enqueued = [];
    await reconcileAll(rollingV3);
    await reconcileAll(rollingV3);
    expect(deploymentWrites()).toEqual([]);
    expect(rollout('r3')).toMatchObject({ status: 'False', reason: 'Stopped' });
    expect(rollout('r3')?.message).toBe(
      'the rollout of revision v3 stopped: 3 resource(s) moved to it are not Ready after 60 s (r0, r1, r2); ' +
        'this one runs v1 until fewer are',
    );
    const warnings = events.filter((e) => e.type === 'Warning' && e.reason === 'RevisionRollout');
    expect(warnings.map((e) => e.name)).toEqual(['r3', 'r4', 'r5']);
    expect(enqueued).toEqual([]);
    // Two of them recover: fewer than the threshold fail, and the rollout goes on (the waiting ones are
    // asked to reconcile once their Ready is seen).
    rolledOut('r0');
    rolledOut('r1');
    cluster.clock += 1_000;
    await reconcileAll(rollingV3, ['r0', 'r1']);
    cluster.clock += 1_000;
    await reconciler.reconcile(rollingV3, NS, 'r2');
    expect(enqueued).toEqual(['r3', 'r4', 'r5']);
    await reconcileAll(rollingV3);
    expect(builds()).toEqual(NAMES.map(() => 'v3'));
  });

  it('pauses while the kind is suspended, and goes on where it was once resumed', async () => {
    await atV1();
    start({ maxInFlight: 2 });
    await reconcileAll(rollingV2);
    expect(deploymentWrites()).toEqual(['r0', 'r1']);
    kindMarks = { [RECONCILE_ANNOTATION]: RECONCILE_DISABLED };
    cluster.clock += 1_000;
    for (const name of ['r0', 'r1']) rolledOut(name);
    await reconcileAll(rollingV2);
    await reconcileAll(rollingV2);
    expect(deploymentWrites()).toEqual([]);
    expect(builds()).toEqual(['v2', 'v2', 'v1', 'v1', 'v1', 'v1']);
    kindMarks = undefined;
    cluster.clock += 1_000;
    await reconcileAll(rollingV2);
    cluster.clock += 1_000;
    await reconcileAll(rollingV2);
    expect(deploymentWrites()).toEqual(['r2', 'r3']);
  });

  it('restarted, picks the rollout up from the status: the moving ones still count', async () => {
    await atV1();
    start({ maxInFlight: 2 });
    await reconcileAll(rollingV2);
    expect(deploymentWrites()).toEqual(['r0', 'r1']);
    start({ maxInFlight: 2 }); // a new leader: nothing remembered
    cluster.clock += 1_000;
    await reconcileAll(rollingV2);
    expect(deploymentWrites()).toEqual([]);
    expect(builds()).toEqual(['v2', 'v2', 'v1', 'v1', 'v1', 'v1']);
  });

  it("takes the kind's own rollout options, which the flags override", async () => {
    const own = rollingKind({ revision: 'v2', env: { BUILD: 'v2' }, rollout: { maxInFlight: 4 } });
    await atV1();
    start();
    await reconcileAll(own);
    expect(deploymentWrites()).toEqual(['r0', 'r1', 'r2', 'r3']);
    await atV1();
    start({ maxInFlight: 1 });
    await reconcileAll(own);
    expect(deploymentWrites()).toEqual(['r0']);
  });
});
