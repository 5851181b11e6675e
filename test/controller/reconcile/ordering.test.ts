/**
 * Ordering that holds on updates: a child that waits for a sibling (a Deployment for its migration Job)
 * waits for the sibling at what this reconcile wants, not for the object of the last version; a sibling
 * the API server refuses to change (a Job's template is immutable) is replaced when its policy says so,
 * and named in Ready when not; the kind's own Ready rule sees the wait. Against an in-memory cluster that
 * refuses immutable changes as the API server does; the same on the local cluster is in
 * ordering.cluster.test.ts.
 */
import { createHash } from 'node:crypto';
import { DEPLOYMENT, JOB, defineKind, type KubeObject } from '../../../constructs/kit';
import { EventRecorder } from '../../../controller/kube/events';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { InMemoryCluster, type Write } from '../../../testing';
import { WebApp, webAppKind, type WebAppSpec } from '../../fixtures/kinds/web-app';

const NS = 'shop';
let cluster: InMemoryCluster;

const hashed = (image: string) =>
  `docs-migrate-${createHash('sha256').update(image).digest('hex').slice(0, 8)}`;
const spec = (image: string, migrate: WebAppSpec['migrate']): WebAppSpec => ({ image, replicas: 2, migrate });
const reconcile = () => cluster.reconcile(webAppKind, NS, 'docs');
const writes = (w: Write[]) =>
  w.filter((x) => x.verb !== 'status').map((x) => `${x.verb} ${x.kind}/${x.name}`);
const imageOf = (obj: KubeObject | undefined) =>
  (obj?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template.spec
    .containers[0].image;
const deploymentImage = () => imageOf(cluster.any(DEPLOYMENT, NS, 'docs'));
const complete = (job: string) =>
  cluster.patch(JOB, NS, job, {
    status: { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] },
  });
/** What kube-controller-manager writes once the Deployment's pods are available. */
const available = () => {
  const generation = cluster.any(DEPLOYMENT, NS, 'docs')?.metadata.generation;
  cluster.patch(DEPLOYMENT, NS, 'docs', {
    status: { observedGeneration: generation, replicas: 2, updatedReplicas: 2, availableReplicas: 2 },
  });
};

/** A WebApp at image v1, migrated and available. */
async function running(migrate: WebAppSpec['migrate'], job: string): Promise<void> {
  cluster = new InMemoryCluster([webAppKind]);
  cluster.putResource(webAppKind, 'docs', spec('app:v1', migrate), NS);
  await reconcile();
  expect(cluster.any(DEPLOYMENT, NS, 'docs')).toBeUndefined();
  complete(job);
  await reconcile();
  available();
  await reconcile();
  expect([deploymentImage(), cluster.ready(webAppKind, NS, 'docs')?.status]).toEqual(['app:v1', 'True']);
  cluster.takeWrites();
}

describe('an image change with a migration Job named after the image', () => {
  it('runs the new migration before the Deployment rolls', async () => {
    await running({ naming: 'hashed' }, hashed('app:v1'));
    cluster.setSpec(webAppKind, NS, 'docs', spec('app:v2', { naming: 'hashed' }));
    await reconcile();
    expect(writes(cluster.takeWrites())).toContain(`apply Job/${hashed('app:v2')}`);
    expect(deploymentImage()).toBe('app:v1');
    expect(cluster.ready(webAppKind, NS, 'docs')).toMatchObject({
      status: 'False',
      reason: 'Waiting',
      // The Job just created, as its apply answered (the cache shows it with its watch event).
      message: `Deployment docs waits for Job ${hashed('app:v2')}: not complete (0 active, 0 succeeded)`,
    });

    complete(hashed('app:v2'));
    await reconcile();
    expect(deploymentImage()).toBe('app:v2');
  });
});

describe('an image change with a migration Job of a fixed name', () => {
  it('without the replace policy: the Deployment keeps its image and Ready names the immutable field', async () => {
    await running({ naming: 'fixed' }, 'docs-migrate');
    cluster.setSpec(webAppKind, NS, 'docs', spec('app:v2', { naming: 'fixed' }));
    await expect(reconcile()).rejects.toThrow(/Job docs-migrate: spec.template is immutable/);
    expect(writes(cluster.takeWrites()).filter((w) => w.includes('Deployment'))).toEqual([]);
    expect(deploymentImage()).toBe('app:v1');
    expect(cluster.ready(webAppKind, NS, 'docs')).toMatchObject({
      status: 'False',
      reason: 'ApplyFailed',
      message:
        'Job docs-migrate: spec.template is immutable: the API server refuses the change; to have it ' +
        'deleted and created again, give the child the replace policy (childPolicy(child, { replace: true }))',
    });
  });

  it('with the replace policy: deletes the Job, creates the new one, and rolls the Deployment once it completes', async () => {
    await running({ naming: 'fixed', replace: true }, 'docs-migrate');
    const oldJob = cluster.any(JOB, NS, 'docs-migrate')?.metadata.uid;
    cluster.setSpec(webAppKind, NS, 'docs', spec('app:v2', { naming: 'fixed', replace: true }));
    await reconcile();
    expect(writes(cluster.takeWrites())).toEqual(['apply Job/docs-migrate', 'delete Job/docs-migrate']);
    expect(cluster.events.map((e) => `${e.reason}: ${e.message}`)).toContain(
      'Updated: Updated Job docs-migrate (replaced: spec.template is immutable)',
    );
    // The deletion's watch event brings the next reconcile: the Job is made again, of the new image.
    await reconcile();
    const job = cluster.any(JOB, NS, 'docs-migrate');
    expect([job?.metadata.uid === oldJob, imageOf(job)]).toEqual([false, 'app:v2']);
    expect(deploymentImage()).toBe('app:v1');

    complete('docs-migrate');
    await reconcile();
    expect(deploymentImage()).toBe('app:v2');
  });
});

describe("a kind's own Ready rule", () => {
  const migrating = defineKind<WebAppSpec>({
    apiVersion: webAppKind.apiVersion,
    kind: 'WebApp',
    plural: 'webapps',
    schema: webAppKind.schema,
    construct: WebApp,
    children: webAppKind.children,
    ready: (_context, children) =>
      children.reason === 'Waiting'
        ? {
            ready: false,
            reason: 'Migrating',
            message: `the database is being migrated (${children.message})`,
          }
        : children,
  });

  it('is handed the wait chain, and may say it in the kind words', async () => {
    cluster = new InMemoryCluster([migrating]);
    cluster.putResource(migrating, 'docs', spec('app:v1', { naming: 'fixed' }), NS);
    await cluster.reconcile(migrating, NS, 'docs');
    expect(cluster.ready(migrating, NS, 'docs')).toMatchObject({
      status: 'False',
      reason: 'Migrating',
      message:
        'the database is being migrated ' +
        '(Deployment docs waits for Job docs-migrate: not complete (0 active, 0 succeeded))',
    });
  });
});

describe('Ready right after an update, while the cache still shows the old child', () => {
  it('is not Ready for the new spec until its Deployment has observed it, whatever the cache shows', async () => {
    cluster = new InMemoryCluster([webAppKind]);
    cluster.putResource(webAppKind, 'docs', { image: 'app:v1', replicas: 2 }, NS);
    await reconcile();
    available();
    await reconcile();
    expect(cluster.ready(webAppKind, NS, 'docs')?.status).toBe('True');

    // The informer's copy of the Deployment is the one before the update until its watch event comes.
    const before = cluster.any(DEPLOYMENT, NS, 'docs');
    const lagging = {
      get: (type: typeof DEPLOYMENT, ns: string | undefined, name: string) =>
        type === DEPLOYMENT && name === 'docs' ? before : cluster.get(type, ns, name),
      list: cluster.list.bind(cluster),
      exists: cluster.exists.bind(cluster),
    };
    const writer = cluster.writer();
    const reconciler = new Reconciler({
      view: lagging,
      writer,
      events: new EventRecorder(writer, cluster.log),
      log: cluster.log,
      now: () => new Date(cluster.clock),
    });
    cluster.setSpec(webAppKind, NS, 'docs', { image: 'app:v2', replicas: 2 });
    await reconciler.reconcile(webAppKind, NS, 'docs');
    expect(writes(cluster.takeWrites())).toContain('apply Deployment/docs');
    expect(cluster.ready(webAppKind, NS, 'docs')).toMatchObject({
      status: 'False',
      reason: 'Progressing',
      // Judged by what the apply answered: the Deployment's controller has not seen the new spec yet.
      message: 'Deployment docs: its latest spec is not observed yet',
    });
  });
});

describe('the reconcile that a waited-for child unblocks', () => {
  it('writes the status of what is true now, not the wait that ended', async () => {
    cluster = new InMemoryCluster([webAppKind]);
    cluster.putResource(webAppKind, 'docs', spec('app:v1', { naming: 'fixed' }), NS);
    await reconcile(); // the Job; the Deployment waits
    cluster.patch(JOB, NS, 'docs-migrate', { status: { active: 1 } });
    await reconcile();
    expect(cluster.ready(webAppKind, NS, 'docs')).toMatchObject({
      status: 'False',
      reason: 'Waiting',
      message: 'Deployment docs waits for Job docs-migrate: not complete (1 active, 0 succeeded)',
    });
    cluster.takeWrites();

    complete('docs-migrate');
    await reconcile();
    expect(cluster.takeWrites().map((w) => `${w.verb} ${w.kind}/${w.name}`)).toEqual([
      'apply Deployment/docs',
      'status WebApp/docs',
    ]);
    expect(cluster.ready(webAppKind, NS, 'docs')).toMatchObject({
      status: 'False',
      reason: 'Progressing',
      message: 'Deployment docs: 0 of 2 replicas updated',
    });
  });
});
