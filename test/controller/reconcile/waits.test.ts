/**
 * Children that wait for siblings (the waitFor child policy), as the resource says it: a `Waiting` event
 * only for a wait that lasts (not for a TenantNamespace's RoleBinding, which waits the 160 ms its Namespace
 * takes to appear), once per message; and a sibling that exists but is not the resource's said as such,
 * never taken for its own. On the in-memory cluster.
 */
import {
  JOB,
  LABEL_MANAGED_BY,
  MANAGER,
  NAMESPACE,
  ROLE_BINDING,
  type ApiKind,
  type KubeObject,
} from '../../../constructs';
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
const waitingEvents = () => events().filter((e) => e.includes(' Waiting: '));
const namespace = (metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: TENANT, ...metadata },
});

describe('a wait that ends within the next reconcile', () => {
  it('is no event: a TenantNamespace’s RoleBinding waits for its Namespace the 160 ms it takes', async () => {
    // The caches show a new Namespace with its watch event, which brings the next reconcile: the reconcile
    // that creates it does not see it yet.
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
    const made = await reconcile(); // the Namespace; the RoleBinding waits for it
    expect(cluster.any(NAMESPACE, undefined, TENANT)).toBeDefined();
    expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeUndefined();
    expect(waitingEvents()).toEqual([]);
    expect(made.requeueAfterMs).toBeLessThanOrEqual(WAIT_EVENT_AFTER_MS);

    namespaceSeen = true; // its watch event, 160 ms later
    cluster.clock += 160;
    await reconcile(); // the RoleBinding
    await reconcile(); // Ready
    expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeDefined();
    expect(cluster.ready(tenantNamespaceKind, undefined, TENANT)).toMatchObject({ status: 'True' });
    expect(waitingEvents()).toEqual([]);
  });
});

describe('a wait that lasts', () => {
  it('is said once it has lasted the grace (the controller looks again then), and again only when its message changes', async () => {
    cluster.putResource(
      webAppKind,
      'docs',
      { image: 'app:v1', replicas: 2, migrate: { naming: 'fixed' } },
      'shop',
    );
    const first = await webApp(); // the Job; the Deployment waits for it
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
