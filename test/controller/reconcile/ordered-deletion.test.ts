/**
 * Deletion in reverse order (controller/reconcile/ordered-deletion.ts), on the in-memory cluster, which deletes as
 * the API server does: a resource whose children wait for each other carries a finalizer; once deleted,
 * the children that wait go first, the ones they waited for after them, then the finalizer is released.
 */
import { DEPLOYMENT, JOB, SERVICE, WAIT_FOR_ANNOTATION, type ApiKind } from '../../../constructs/kit';
import {
  ORDERED_DELETION_FINALIZER,
  ORDERED_RECHECK_MS,
  nextToDelete,
} from '../../../controller/reconcile/ordered-deletion';
import { intentOf, type Intent } from '../../../controller/reconcile/intent';
import { InMemoryCluster, type Write } from '../../../testing';
import { webAppKind, type WebAppSpec } from '../../fixtures/kinds/web-app';

const NS = 'shop';
let cluster: InMemoryCluster;
const reconcile = () => cluster.reconcile(webAppKind, NS, 'docs');
const writes = () =>
  cluster
    .takeWrites()
    .filter((w: Write) => w.verb !== 'status')
    .map((w) => `${w.verb} ${w.kind}/${w.name}`);
const app = () => cluster.any(webAppKind, NS, 'docs');
const migrated: WebAppSpec = { image: 'app:v1', replicas: 1, migrate: { naming: 'fixed' } };

/** A WebApp whose Deployment waited for its migration Job, all made. */
async function established(): Promise<void> {
  cluster = new InMemoryCluster([webAppKind]);
  cluster.putResource(webAppKind, 'docs', migrated, NS);
  await reconcile();
  cluster.patch(JOB, NS, 'docs-migrate', { status: { conditions: [{ type: 'Complete', status: 'True' }] } });
  await reconcile();
  expect(cluster.any(DEPLOYMENT, NS, 'docs')).toBeDefined();
  cluster.takeWrites();
}

describe('a resource whose children wait for each other', () => {
  it('carries the ordered-deletion finalizer, and loses it once they no longer wait', async () => {
    await established();
    expect(app()?.metadata.finalizers).toEqual([ORDERED_DELETION_FINALIZER]);
    cluster.setSpec(webAppKind, NS, 'docs', { image: 'app:v1', replicas: 1 });
    await reconcile();
    expect(app()?.metadata.finalizers).toEqual([]);
  });

  it('has no finalizer when no child waits', async () => {
    cluster = new InMemoryCluster([webAppKind]);
    cluster.putResource(webAppKind, 'docs', { image: 'app:v1', replicas: 1 }, NS);
    await reconcile();
    expect(app()?.metadata.finalizers ?? []).toEqual([]);
  });

  it('is deleted in reverse order: the Deployment, then the Job it waited for, and the finalizer released', async () => {
    await established();
    cluster.remove(webAppKind, NS, 'docs');
    expect(await reconcile()).toEqual({ requeueAfterMs: ORDERED_RECHECK_MS });
    expect(writes()).toEqual(['delete Deployment/docs']);
    expect(cluster.any(JOB, NS, 'docs-migrate')).toBeDefined();

    // The last of the order: deleted, and nothing else waits, so the finalizer goes in the same reconcile.
    expect(await reconcile()).toEqual({});
    expect(writes()).toEqual(['delete Job/docs-migrate', 'patch WebApp/docs']);
    expect(app()).toBeUndefined();
    // The rest, outside any wait, goes with the garbage collector.
    expect(cluster.any(SERVICE, NS, 'docs')).toBeUndefined();
  });

  it('keeps the Job while the Deployment is still being deleted (held by a finalizer of someone else)', async () => {
    await established();
    cluster.patch(DEPLOYMENT, NS, 'docs', { metadata: { finalizers: ['example.com/hold'] } });
    cluster.remove(webAppKind, NS, 'docs');
    await reconcile();
    expect(writes()).toEqual(['delete Deployment/docs']);
    expect(cluster.any(DEPLOYMENT, NS, 'docs')?.metadata.deletionTimestamp).toBeDefined();
    await reconcile();
    await reconcile();
    expect(writes()).toEqual([]);
    expect(cluster.any(JOB, NS, 'docs-migrate')).toBeDefined();

    cluster.patch(DEPLOYMENT, NS, 'docs', { metadata: { finalizers: null } });
    await reconcile();
    expect(writes()).toEqual(['delete Job/docs-migrate', 'patch WebApp/docs']);
  });
});

describe('nextToDelete', () => {
  /** A WebApp's child as the controller reads it, waiting for the `Kind/name` siblings of `waitFor`. */
  const intent = ({ apiVersion, kind }: ApiKind, name: string, waitFor: string[] = []) =>
    intentOf(webAppKind, {
      apiVersion,
      kind,
      metadata: { name, annotations: waitFor.length > 0 ? { [WAIT_FOR_ANNOTATION]: waitFor.join(',') } : {} },
    });
  const a = intent(DEPLOYMENT, 'a', ['Job/b']);
  const b = intent(JOB, 'b', ['Service/c']);
  const c = intent(SERVICE, 'c');

  it('takes a chain from its end: what no remaining child waits for', () => {
    const names = (list: Intent[]) => list.map((i) => i.child.metadata.name);
    expect(names(nextToDelete([a, b, c]))).toEqual(['a']);
    expect(names(nextToDelete([b, c]))).toEqual(['b']);
    expect(names(nextToDelete([c]))).toEqual(['c']);
    expect(nextToDelete([])).toEqual([]);
  });
});
