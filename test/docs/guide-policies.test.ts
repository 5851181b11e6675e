/**
 * What docs/GUIDE.md (4a) says of each child policy, checked on the construct its code blocks are excerpts
 * of (guide-policies.ts): offline, and reconciled against an in-memory cluster.
 */
import {
  DEPLOYMENT,
  HORIZONTAL_POD_AUTOSCALER,
  IGNORE_FIELDS_ANNOTATION,
  JOB,
  OWNER_UID_ANNOTATION,
  PERSISTENT_VOLUME_CLAIM,
  SECRET,
  WAIT_FOR_ANNOTATION,
  renderResources,
  type Manifest,
} from '../../index';
import { InMemoryCluster } from '../../testing';
import { WAIT_EVENT_AFTER_MS } from '../../controller/reconcile/waits';
import { guideSiteKind, type GuideSiteSpec } from './guide-policies';

const NS = 'web';
const PAGES = { 'index.html': '<h1>Docs</h1>' };
let cluster: InMemoryCluster;

/** The resource `docs` with `spec`, in a new cluster. */
function setUp(spec: GuideSiteSpec) {
  cluster = new InMemoryCluster([guideSiteKind]);
  return cluster.putResource(guideSiteKind, 'docs', spec, NS);
}
const reconcile = () => cluster.reconcile(guideSiteKind, NS, 'docs');
/** The child writes since the last call, as `verb Kind/name`. */
const writes = () =>
  cluster
    .takeWrites()
    .filter((w) => w.verb !== 'status')
    .map((w) => `${w.verb} ${w.kind}/${w.name}`)
    .sort();
/** The check Job of the pages, by its name's prefix (the suffix is their hash). */
const checkJob = () => cluster.list(JOB, NS).find((j) => j.metadata.name.startsWith('docs-check-'));
/** What the job controller would write once the check has passed. */
function checkPassed(): void {
  const job = checkJob();
  if (!job) throw new Error('no check Job');
  cluster.patch(JOB, NS, job.metadata.name, {
    status: { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] },
  });
}
const replicas = () => (cluster.any(DEPLOYMENT, NS, 'docs')?.spec as { replicas?: number }).replicas;
const password = () =>
  (cluster.any(SECRET, NS, 'docs-stats') as { stringData?: { password?: string } } | undefined)?.stringData
    ?.password;

function render(spec: GuideSiteSpec) {
  const resource = {
    apiVersion: 'sites.example.com/v1alpha1',
    kind: 'GuideSite',
    metadata: { name: 'docs' },
    spec,
  };
  const result = renderResources([resource], { kinds: [guideSiteKind] });
  expect(result.problems).toEqual([]);
  return result;
}
const find = (manifests: Manifest[], kind: string, name: string) =>
  manifests.find((m) => m.kind === kind && m.metadata.name === name);

describe('an autoscaler owns spec.replicas', () => {
  it('renders the Deployment with spec.replicas and the policy, and the autoscaler targeting it', () => {
    const { manifests } = render({ pages: PAGES, replicas: 2, autoscaling: { maxReplicas: 5 } });
    const deployment = find(manifests, 'Deployment', 'docs');
    expect(deployment?.spec).toMatchObject({ replicas: 2 });
    expect(deployment?.metadata.annotations?.[IGNORE_FIELDS_ANNOTATION]).toBe('/spec/replicas');
    const autoscaler = manifests.find((m) => m.kind === HORIZONTAL_POD_AUTOSCALER.kind);
    expect(autoscaler?.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'docs' },
      minReplicas: 2,
      maxReplicas: 5,
    });
  });

  it('sets the replicas once; the autoscaler’s count survives a spec change', async () => {
    setUp({ pages: PAGES, replicas: 2, autoscaling: { maxReplicas: 5 } });
    await reconcile();
    checkPassed();
    await reconcile();
    expect(replicas()).toBe(2);
    cluster.patch(DEPLOYMENT, NS, 'docs', { spec: { replicas: 4 } });
    cluster.setSpec(guideSiteKind, NS, 'docs', {
      pages: PAGES,
      replicas: 3,
      autoscaling: { maxReplicas: 5 },
    });
    await reconcile();
    expect(replicas()).toBe(4);
  });
});

describe('the Deployment waits for the check of the pages', () => {
  it('is neither created nor updated while the Job runs, and the status says so', async () => {
    setUp({ pages: PAGES });
    await reconcile();
    const job = checkJob()!.metadata.name;
    expect(job).toMatch(/^docs-check-[0-9a-f]{8}$/);
    cluster.patch(JOB, NS, job, { status: { active: 1 } });
    await reconcile();
    expect(writes()).not.toContain('apply Deployment/docs');
    expect(cluster.ready(guideSiteKind, NS, 'docs')).toMatchObject({
      status: 'False',
      message: `Deployment docs waits for Job ${job}: not complete (1 active, 0 succeeded)`,
    });
    // A Waiting event once the wait has lasted a few seconds (the controller looks again then).
    cluster.clock += WAIT_EVENT_AFTER_MS;
    await reconcile();
    expect(cluster.events).toContainEqual(expect.objectContaining({ reason: 'Waiting' }));
    checkPassed();
    await reconcile();
    expect(writes()).toContain('apply Deployment/docs');

    // New pages: a new check, and the Deployment keeps serving the old pages until it passes.
    cluster.setSpec(guideSiteKind, NS, 'docs', { pages: { 'index.html': 'new' } });
    await reconcile();
    expect(checkJob()!.metadata.name).not.toBe(job);
    expect(writes()).not.toContain('apply Deployment/docs');
    checkPassed();
    await reconcile();
    expect(writes()).toContain('apply Deployment/docs');
  });

  it('renders all children offline, the policy on the Deployment', () => {
    const { manifests } = render({ pages: PAGES });
    const job = manifests.find((m) => m.kind === 'Job');
    expect(find(manifests, 'Deployment', 'docs')?.metadata.annotations?.[WAIT_FOR_ANNOTATION]).toBe(
      `Job/${job?.metadata.name}`,
    );
  });

  it('new pages make a new check', () => {
    const names = [PAGES, { 'index.html': 'new' }].map(
      (pages) => render({ pages }).manifests.find((m) => m.kind === 'Job')?.metadata.name,
    );
    expect(names[0]).not.toBe(names[1]);
  });
});

describe('a migration of a fixed name is replaced when the image changes', () => {
  /** What the job controller would write once Job `name` has run to completion. */
  const passed = (name: string) =>
    cluster.patch(JOB, NS, name, {
      status: { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] },
    });

  it('the Deployment waits for the check and the migration, offline too', () => {
    const { manifests } = render({ pages: PAGES, migrate: true });
    const check = manifests.find((m) => m.kind === 'Job' && m.metadata.name.startsWith('docs-check-'));
    expect(find(manifests, 'Deployment', 'docs')?.metadata.annotations?.[WAIT_FOR_ANNOTATION]).toBe(
      `Job/${check?.metadata.name},Job/docs-migrate`,
    );
  });

  it('deletes the Job and creates it again, and the Deployment rolls only once it has run', async () => {
    setUp({ pages: PAGES, migrate: true, image: 'nginx:1' });
    await reconcile();
    checkPassed();
    passed('docs-migrate');
    await reconcile();
    expect(writes()).toContain('apply Deployment/docs');

    cluster.setSpec(guideSiteKind, NS, 'docs', { pages: PAGES, migrate: true, image: 'nginx:2' });
    await reconcile();
    await reconcile();
    // The apply the API server refuses as immutable, then the replacement; the Deployment waits.
    expect(
      cluster
        .takeWrites()
        .filter((w) => w.kind === 'Job' || w.kind === 'Deployment')
        .map((w) => `${w.verb} ${w.kind}/${w.name}`),
    ).toEqual(['apply Job/docs-migrate', 'delete Job/docs-migrate', 'apply Job/docs-migrate']);
    passed('docs-migrate');
    await reconcile();
    expect(writes()).toContain('apply Deployment/docs');
  });
});

describe('the stats password is generated once, in the cluster', () => {
  it('is created with 24 random characters and never rewritten: not on a spec change, nor after a restart', async () => {
    setUp({ pages: PAGES });
    await reconcile();
    const first = password();
    expect(first).toMatch(/^[A-Za-z0-9]{24}$/);
    checkPassed();
    cluster.takeWrites();
    cluster.setSpec(guideSiteKind, NS, 'docs', { pages: PAGES, replicas: 2 });
    await reconcile();
    expect(cluster.takeWrites().filter((w) => w.kind === 'Secret')).toEqual([]);
    // A restarted controller cannot read Secrets (write-only): it checks with a create, which finds it there.
    cluster.restart();
    await reconcile();
    expect(password()).toBe(first);
  });

  it('is left out offline, and named', () => {
    const { manifests, rendered } = render({ pages: PAGES });
    expect(find(manifests, 'Secret', 'docs-stats')).toBeUndefined();
    expect(rendered[0].omitted).toEqual([expect.objectContaining({ child: 'Secret docs-stats' })]);
  });
});

describe('the access logs outlive the site', () => {
  it('has no ownerReference, but the owner annotation', async () => {
    const resource = setUp({ pages: PAGES });
    await reconcile();
    const logs = cluster.any(PERSISTENT_VOLUME_CLAIM, NS, 'docs-logs')!;
    expect(logs.metadata.ownerReferences).toBeUndefined();
    expect(logs.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBe(resource.metadata.uid);
  });

  it('is let go, not deleted, when the construct stops rendering it', async () => {
    setUp({ pages: PAGES });
    await reconcile();
    cluster.setSpec(guideSiteKind, NS, 'docs', { pages: PAGES, accessLogs: false });
    await reconcile();
    expect(cluster.any(PERSISTENT_VOLUME_CLAIM, NS, 'docs-logs')).toBeDefined();
    expect(cluster.events).toContainEqual(expect.objectContaining({ reason: 'Retained' }));
  });
});
