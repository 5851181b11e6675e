/**
 * Children that wait for siblings (the waitFor child policy), as the resource says it: a sibling made in
 * the same reconcile judged by its apply's answer (a TenantNamespace's RoleBinding goes with its Namespace,
 * whenever the watch event comes); a `Waiting` event only for a wait that lasts, once per message; and a
 * sibling that exists but is not the resource's said as such, never taken for its own. On the in-memory
 * cluster.
 */
import {
  DEPLOYMENT,
  JOB,
  LABEL_MANAGED_BY,
  MANAGER,
  NAMESPACE,
  ROLE_BINDING,
  type ApiKind,
  type KubeObject,
} from '../../../constructs';
import { ApiError } from '../../../controller/kube/errors';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { WAIT_EVENT_AFTER_MS } from '../../../controller/reconcile/waits';
import { InMemoryCluster } from '../../../testing';
import { tenantNamespaceKind } from '../../fixtures/kinds/tenant-namespace';
import { webAppKind } from '../../fixtures/kinds/web-app';

const TENANT = 'team-a';
let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster([tenantNamespaceKind, webAppKind]);
  cluster.clock = Date.parse('2026-11-27T08:00:00Z');
});

const tenant = () => cluster.reconcile(tenantNamespaceKind, undefined, TENANT);
const webApp = () => cluster.reconcile(webAppKind, 'shop', 'docs');
const events = () => cluster.events.splice(0).map((e) => `${e.type} ${e.reason}: ${e.message}`);
/** A WebApp whose Deployment waits for its migration Job: its first reconcile, which makes the Job. */
const migrating = () => {
  cluster.putResource(
    webAppKind,
    'docs',
    { image: 'app:v1', replicas: 2, migrate: { naming: 'fixed' } },
    'shop',
  );
  return webApp();
};
const waitingEvents = () => events().filter((e) => e.includes(' Waiting: '));
const namespace = (metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: TENANT, ...metadata },
});

describe('a sibling this reconcile just made', () => {
  it('is judged by what its apply answered: a TenantNamespace’s RoleBinding goes with its Namespace, however late the watch event', async () => {
    // The caches show a new Namespace only with its watch event; on a busy API server that took over 5 s
    // (a Waiting event for a wait nobody had to wait for).
    let namespaceSeen = true;
    const cache = {
      get: (type: ApiKind, ns: string | undefined, name: string) =>
        type === NAMESPACE && !namespaceSeen ? undefined : cluster.get(type, ns, name),
      list: cluster.list.bind(cluster),
      exists: (type: ApiKind, ns: string | undefined, name: string) =>
        type === NAMESPACE && !namespaceSeen ? false : cluster.exists(type, ns, name),
    };
    const reconciler = new Reconciler({
      view: cache,
      writer: cluster.writer(),
      events: { emit: (_obj, type, reason, message) => cluster.events.push({ type, reason, message }) },
      log: cluster.log,
      now: () => new Date(cluster.clock),
    });
    const reconcile = () => reconciler.reconcile(tenantNamespaceKind, undefined, TENANT);
    cluster.putResource(tenantNamespaceKind, TENANT, { admin: 'alice' });
    await reconcile(); // the finalizer
    namespaceSeen = false;
    await reconcile(); // the Namespace, then the RoleBinding
    const writes = cluster.takeWrites().map((w) => `${w.verb} ${w.kind}/${w.name}`);
    expect(writes.indexOf('apply Namespace/team-a')).toBeGreaterThanOrEqual(0);
    expect(writes.indexOf('apply RoleBinding/admin')).toBeGreaterThan(
      writes.indexOf('apply Namespace/team-a'),
    );

    cluster.clock += 2 * WAIT_EVENT_AFTER_MS;
    await reconcile(); // the Namespace still unseen: no wait, so nothing to say
    expect(waitingEvents()).toEqual([]);
    namespaceSeen = true;
    await reconcile();
    expect(cluster.ready(tenantNamespaceKind, undefined, TENANT)).toMatchObject({ status: 'True' });
    expect(waitingEvents()).toEqual([]);
  });
});

describe('a wait behind a child that fails', () => {
  it('is no Waiting event: the failure is what is said (the owner kind not mapped yet, its CRD just installed)', async () => {
    cluster.putResource(tenantNamespaceKind, TENANT, { admin: 'alice' });
    await tenant(); // the finalizer
    cluster.refuse(
      'apply',
      new ApiError(
        403,
        `namespaces "${TENANT}" is forbidden: cannot set blockOwnerDeletion in this case because cannot find ` +
          'RESTMapping for APIVersion tenants.example.com/v1 Kind TenantNamespace',
      ),
    );
    for (let i = 0; i < 4; i++) {
      await tenant();
      cluster.clock += WAIT_EVENT_AFTER_MS;
    }
    const ready = cluster.ready(tenantNamespaceKind, undefined, TENANT);
    expect([ready?.status, ready?.reason]).toEqual(['False', 'Waiting']);
    expect(ready?.message).toContain('does not map TenantNamespace');
    expect(waitingEvents()).toEqual([]);

    cluster.refuse('apply', undefined); // mapped: the Namespace, then its RoleBinding
    await tenant();
    expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeDefined();
    expect(waitingEvents()).toEqual([]);
  });
});

describe('a wait that ends within the grace', () => {
  it('is no event: a migration Job that completes in a second', async () => {
    const first = await migrating(); // the Job; the Deployment waits for it
    expect(cluster.any(DEPLOYMENT, 'shop', 'docs')).toBeUndefined();
    expect(first.requeueAfterMs).toBeLessThanOrEqual(WAIT_EVENT_AFTER_MS);

    cluster.clock += 1_000;
    cluster.patch(JOB, 'shop', 'docs-migrate', {
      status: { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] },
    });
    await webApp(); // its watch event's reconcile
    expect(cluster.any(DEPLOYMENT, 'shop', 'docs')).toBeDefined();
    cluster.clock += WAIT_EVENT_AFTER_MS;
    await webApp();
    expect(waitingEvents()).toEqual([]);
  });
});

describe('a wait that lasts', () => {
  it('is said once it has lasted the grace (the controller looks again then), and again only when its message changes', async () => {
    const first = await migrating(); // the Job; the Deployment waits for it
    expect(waitingEvents()).toEqual([]);
    expect(first.requeueAfterMs).toBeLessThanOrEqual(WAIT_EVENT_AFTER_MS);

    cluster.clock += 1_000;
    await webApp();
    expect(waitingEvents()).toEqual([]);

    cluster.clock += WAIT_EVENT_AFTER_MS - 1_000;
    await webApp();
    expect(waitingEvents()).toEqual([
      'Normal Waiting: Deployment docs waits for Job docs-migrate: not complete (0 active, 0 succeeded)',
    ]);

    cluster.clock += 10_000;
    await webApp();
    expect(waitingEvents()).toEqual([]); // the same wait: said already

    cluster.patch(JOB, 'shop', 'docs-migrate', { status: { active: 1 } });
    await webApp();
    expect(waitingEvents()).toEqual([
      'Normal Waiting: Deployment docs waits for Job docs-migrate: not complete (1 active, 0 succeeded)',
    ]);
  });
});

describe('a sibling that exists but is not the resource’s', () => {
  it('is said as such, not as one that does not exist yet (a Namespace someone else made)', async () => {
    cluster.put(NAMESPACE, namespace());
    cluster.putResource(tenantNamespaceKind, TENANT, { admin: 'alice' });
    await tenant(); // the finalizer
    await tenant();
    cluster.clock += WAIT_EVENT_AFTER_MS;
    await tenant();
    expect(events()).toContain(
      'Normal Waiting: RoleBinding admin waits for Namespace team-a: exists but is not ours ' +
        '(to hand it over, annotate it reconstruct.dev/adopt=true)',
    );
    expect(cluster.ready(tenantNamespaceKind, undefined, TENANT)).toMatchObject({
      status: 'False',
      reason: 'ErrResourceExists',
    });
    expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeUndefined();
  });

  it('is not waited for as if it were its own (a Namespace of ours, of another resource)', async () => {
    cluster.put(
      NAMESPACE,
      namespace({
        labels: { [LABEL_MANAGED_BY]: MANAGER, 'app.kubernetes.io/instance': TENANT },
        ownerReferences: [
          {
            apiVersion: tenantNamespaceKind.apiVersion,
            kind: 'TenantNamespace',
            name: TENANT,
            uid: 'a-team-a-deleted-before',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      }),
    );
    cluster.putResource(tenantNamespaceKind, TENANT, { admin: 'alice' });
    await tenant(); // the finalizer
    await tenant();
    expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeUndefined();
    cluster.clock += WAIT_EVENT_AFTER_MS;
    await tenant();
    expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeUndefined();
    expect(events()).toContain(
      'Normal Waiting: RoleBinding admin waits for Namespace team-a: exists but is not ours ' +
        '(to hand it over, annotate it reconstruct.dev/adopt=true)',
    );
  });
});
