/**
 * The finalizer phase (controller/reconcile/finalize.ts) on the in-memory cluster, which deletes as the API server
 * does: a deletion held while the kind's plan waits (Ready=False in its words, one Warning event per
 * message, a backoff), held again with a new message, released once the plan is empty (the children then
 * garbage-collected), and a resource gone before a reconcile from a stale cache got to it. The exact
 * writes and events of each.
 */
import {
  CONFIG_MAP,
  NAMESPACE,
  NODE,
  POD,
  ROLE_BINDING,
  defineKind,
  nodePoolKind,
  type KindPermission,
  type KubeObject,
} from '../../../constructs';
import {
  CONFLICT_RETRY_MS,
  HELD_RECHECK_MAX_MS,
  HELD_RECHECK_MS,
} from '../../../controller/reconcile/finalize';
import {
  ORDERED_DELETION_FINALIZER,
  ORDERED_RECHECK_MS,
} from '../../../controller/reconcile/ordered-deletion';
import { InMemoryCluster, type Write } from '../../../testing';
import { sample } from '../../fixtures/resources';
import { TENANT_FINALIZER, tenantNamespaceKind } from '../../fixtures/kinds/tenant-namespace';
import { Greeting, greetingSchema, type GreetingSpec } from '../../fixtures/kinds/greeting';
import { recordingLogger, type LoggedLine } from '../../support/logger';

const TENANT = 'team-a';
let cluster: InMemoryCluster;
let lines: LoggedLine[];
beforeEach(() => {
  cluster = new InMemoryCluster([tenantNamespaceKind, nodePoolKind]);
  cluster.clock = Date.parse('2026-11-27T08:00:00Z');
  ({ log: cluster.log, lines } = recordingLogger());
});

const reconcile = () => cluster.reconcile(tenantNamespaceKind, undefined, TENANT);
const writes = () => cluster.takeWrites().map((w: Write) => `${w.verb} ${w.kind}/${w.name}`);
const takeEvents = () => cluster.events.splice(0);
const tenant = () => cluster.any(tenantNamespaceKind, undefined, TENANT);
const ready = () => cluster.ready(tenantNamespaceKind, undefined, TENANT);
const pod = (name: string, phase = 'Running'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: TENANT },
  status: { phase },
});
const errors = () => lines.filter((l) => l.level === 'error' || l.level === 'warn');

/** A TenantNamespace with its finalizer, its Namespace and its RoleBinding, Ready. */
async function established(): Promise<void> {
  cluster.putResource(tenantNamespaceKind, TENANT, { admin: 'alice' });
  await reconcile(); // the finalizer
  await reconcile(); // the Namespace (the RoleBinding waits for it)
  await reconcile(); // the RoleBinding
  await reconcile(); // Ready
  expect(ready()).toMatchObject({ status: 'True' });
  expect(tenant()?.status).toMatchObject({ phase: 'Active' });
  expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeDefined();
  writes();
  takeEvents();
}

describe('a deletion the kind holds (TenantNamespace, pods still running)', () => {
  it('is held with Ready=False in the kind’s words and one Warning event, looked at again after a backoff', async () => {
    await established();
    cluster.put(POD, pod('web-1'));
    cluster.remove(tenantNamespaceKind, undefined, TENANT);
    expect(tenant()?.metadata.deletionTimestamp).toBe('2026-11-27T08:00:00Z');

    const message = `deletion waits for 1 pod(s) still running in namespace ${TENANT}: web-1`;
    expect(await reconcile()).toEqual({ requeueAfterMs: HELD_RECHECK_MS });
    expect(writes()).toEqual([`status TenantNamespace/${TENANT}`]);
    expect(takeEvents()).toEqual([{ type: 'Warning', reason: 'PodsRunning', message }]);
    expect(ready()).toMatchObject({ status: 'False', reason: 'PodsRunning', message });
    // The kind's status() is asked while the deletion is held: its phase says so.
    expect(tenant()?.status).toMatchObject({ phase: 'Terminating' });
    // Observed: the deletion's new generation is not a spec change waiting to be reconciled.
    const status = tenant()?.status as { observedGeneration?: number };
    expect(status.observedGeneration).toBe(tenant()?.metadata.generation);
    // Its children wait for each other (the RoleBinding for the Namespace): a second finalizer orders
    // their deletion once the kind's own work is done (ordered-deletion.test.ts).
    expect(tenant()?.metadata.finalizers).toEqual([TENANT_FINALIZER, ORDERED_DELETION_FINALIZER]);

    // Still held, same message: no write, no event, a longer wait.
    expect(await reconcile()).toEqual({ requeueAfterMs: 2 * HELD_RECHECK_MS });
    expect(await reconcile()).toEqual({ requeueAfterMs: 4 * HELD_RECHECK_MS });
    expect(writes()).toEqual([]);
    expect(takeEvents()).toEqual([]);
    for (let i = 0; i < 10; i++) await reconcile();
    expect(await reconcile()).toEqual({ requeueAfterMs: HELD_RECHECK_MAX_MS });
    expect(errors()).toEqual([]);
  });

  it('says so again, once, when the message changes, and the backoff starts over', async () => {
    await established();
    cluster.put(POD, pod('web-1'));
    cluster.remove(tenantNamespaceKind, undefined, TENANT);
    await reconcile();
    await reconcile();
    writes();
    takeEvents();

    cluster.put(POD, pod('web-2', 'Pending'));
    const message = `deletion waits for 2 pod(s) still running in namespace ${TENANT}: web-1, web-2`;
    expect(await reconcile()).toEqual({ requeueAfterMs: HELD_RECHECK_MS });
    expect(writes()).toEqual([`status TenantNamespace/${TENANT}`]);
    expect(takeEvents()).toEqual([{ type: 'Warning', reason: 'PodsRunning', message }]);
    expect(ready()).toMatchObject({ status: 'False', reason: 'PodsRunning', message });
  });

  it('is released once the pods are gone: one patch, no event, and the children go with it', async () => {
    await established();
    cluster.put(POD, pod('web-1'));
    cluster.put(POD, pod('done', 'Succeeded')); // finished: no reason to wait
    cluster.remove(tenantNamespaceKind, undefined, TENANT);
    await reconcile();
    writes();
    takeEvents();

    cluster.remove(POD, TENANT, 'web-1');
    const { resourceVersion } = tenant()!.metadata;
    expect(await reconcile()).toEqual({});
    expect(cluster.takeWrites()).toEqual([
      {
        verb: 'patch',
        kind: 'TenantNamespace',
        name: TENANT,
        body: { metadata: { resourceVersion, finalizers: [ORDERED_DELETION_FINALIZER] } },
      },
    ]);
    expect(takeEvents()).toEqual([]);
    // Then the children, in reverse order: the RoleBinding before the Namespace it waited for.
    expect(await reconcile()).toEqual({ requeueAfterMs: ORDERED_RECHECK_MS });
    expect(writes()).toEqual(['delete RoleBinding/admin']);
    expect(await reconcile()).toEqual({});
    expect(writes()).toEqual([`delete Namespace/${TENANT}`, `patch TenantNamespace/${TENANT}`]);
    expect(tenant()).toBeUndefined();
    expect(cluster.any(NAMESPACE, undefined, TENANT)).toBeUndefined();
    expect(cluster.any(ROLE_BINDING, TENANT, 'admin')).toBeUndefined();

    // The resource's deletion event: nothing left to do.
    expect(await reconcile()).toEqual({});
    expect(writes()).toEqual([]);
    expect(errors()).toEqual([]);
  });

  it('is released without a wait when no pod runs, in the first reconcile after the deletion', async () => {
    await established();
    cluster.remove(tenantNamespaceKind, undefined, TENANT);
    expect(await reconcile()).toEqual({});
    expect(writes()).toEqual([`patch TenantNamespace/${TENANT}`]);
    expect(tenant()?.metadata.finalizers).toEqual([ORDERED_DELETION_FINALIZER]);
    for (let i = 0; i < 2; i++) await reconcile();
    expect(writes()).toEqual([
      'delete RoleBinding/admin',
      `delete Namespace/${TENANT}`,
      `patch TenantNamespace/${TENANT}`,
    ]);
    expect(tenant()).toBeUndefined();
  });

  it('is gone already when a reconcile from a stale cache releases it again: no error, no status write', async () => {
    await established();
    cluster.put(POD, pod('web-1'));
    cluster.remove(tenantNamespaceKind, undefined, TENANT);
    await reconcile();
    const stale = tenant()!;
    cluster.remove(POD, TENANT, 'web-1');
    for (let i = 0; i < 3; i++) await reconcile(); // released, its children deleted in order: gone
    expect(tenant()).toBeUndefined();
    writes();
    takeEvents();
    // A pod's event brings the resource back before the cache has seen its deletion.
    const get = cluster.get.bind(cluster);
    cluster.get = (type, ns, name) => (type === tenantNamespaceKind ? stale : get(type, ns, name));
    await expect(reconcile()).resolves.toEqual({});
    expect(writes()).toEqual([`patch TenantNamespace/${TENANT}`]); // 404: a no-op
    // Held in that stale view (another pod seen): the status write's 404 is a no-op as well.
    cluster.put(POD, pod('web-2'));
    await expect(reconcile()).resolves.toEqual({});
    expect(writes()).toEqual([`status TenantNamespace/${TENANT}`]);
    expect(takeEvents()).toEqual([]);
    expect(errors()).toEqual([]);
  });
});

describe('a deletion held by its own undo (NodePool)', () => {
  const node = (name: string, labels: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
  });
  const pool = () => cluster.any(nodePoolKind, undefined, 'master');

  it('undoes its changes, says Finalizing until the next reconcile sees them undone, then releases', async () => {
    const { spec } = sample(nodePoolKind);
    cluster.put(NODE, node('n1', { 'node-role.kubernetes.io/master': '' }));
    cluster.putResource(nodePoolKind, 'master', spec);
    await cluster.reconcile(nodePoolKind, undefined, 'master');
    await cluster.reconcile(nodePoolKind, undefined, 'master');
    expect(cluster.any(NODE, undefined, 'n1')?.metadata.labels).toMatchObject(spec.labels ?? {});
    cluster.takeWrites();

    cluster.remove(nodePoolKind, undefined, 'master');
    expect(await cluster.reconcile(nodePoolKind, undefined, 'master')).toEqual({
      requeueAfterMs: HELD_RECHECK_MS,
    });
    expect(writes()).toEqual(['patch Node/n1', 'status NodePool/master']);
    expect(cluster.ready(nodePoolKind, undefined, 'master')).toMatchObject({
      status: 'False',
      reason: 'Finalizing',
      message: 'being deleted: undoing its changes to Node n1',
    });
    expect(Object.keys(cluster.any(NODE, undefined, 'n1')?.metadata.labels ?? {})).toEqual([
      'node-role.kubernetes.io/master',
    ]);
    expect(takeEvents()).toEqual([]); // its own work, not a wait: no Warning

    // The node's watch event: nothing left to undo.
    expect(await cluster.reconcile(nodePoolKind, undefined, 'master')).toEqual({});
    expect(writes()).toEqual(['patch NodePool/master']);
    expect(pool()).toBeUndefined();
  });

  it('syncs again shortly, without an error, when the cache had not seen a node’s last change', async () => {
    const { spec } = sample(nodePoolKind);
    cluster.put(NODE, node('n1', { 'node-role.kubernetes.io/master': '' }));
    cluster.putResource(nodePoolKind, 'master', spec);
    await cluster.reconcile(nodePoolKind, undefined, 'master'); // the finalizer
    // The cache shows the node as it was before its kubelet's last status update.
    const stale = cluster.any(NODE, undefined, 'n1')!;
    cluster.patch(NODE, undefined, 'n1', { status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    const list = cluster.list.bind(cluster);
    cluster.list = (type, ns, match) => (type === NODE ? [stale] : list(type, ns, match));
    cluster.takeWrites();
    const result = await cluster.reconcile(nodePoolKind, undefined, 'master');
    expect(writes()).toEqual(
      expect.arrayContaining(['apply RuntimeClass/node-pool-master', 'patch Node/n1']), // refused: 409
    );
    expect(result).toEqual({ requeueAfterMs: CONFLICT_RETRY_MS });
    expect(errors()).toEqual([]);
    // With the fresh node, as the node's event brings it.
    cluster.list = list;
    await cluster.reconcile(nodePoolKind, undefined, 'master');
    expect(cluster.any(NODE, undefined, 'n1')?.metadata.labels).toMatchObject(spec.labels ?? {});
  });

  it('tries an undo again shortly, without an error, when the cache had not seen a node’s last change', async () => {
    const { spec } = sample(nodePoolKind);
    cluster.put(NODE, node('n1', { 'node-role.kubernetes.io/master': '' }));
    cluster.putResource(nodePoolKind, 'master', spec);
    await cluster.reconcile(nodePoolKind, undefined, 'master');
    await cluster.reconcile(nodePoolKind, undefined, 'master');
    cluster.remove(nodePoolKind, undefined, 'master');
    // The cache shows the node as it was before someone's change.
    const stale = cluster.any(NODE, undefined, 'n1')!;
    cluster.patch(NODE, undefined, 'n1', { metadata: { labels: { other: 'tool' } } });
    const get = cluster.get.bind(cluster);
    const list = cluster.list.bind(cluster);
    cluster.get = (type, ns, name) => (type === NODE ? stale : get(type, ns, name));
    cluster.list = (type, ns, match) => (type === NODE ? [stale] : list(type, ns, match));
    cluster.takeWrites();
    expect(await cluster.reconcile(nodePoolKind, undefined, 'master')).toEqual({
      requeueAfterMs: CONFLICT_RETRY_MS,
    });
    expect(writes()).toEqual(['patch Node/n1']); // refused: 409
    expect(pool()?.metadata.finalizers).toEqual([nodePoolKind.sync?.finalizer]);
    expect(errors()).toEqual([]);
  });
});

describe('a sync that patches what its kind did not declare', () => {
  const labeller = (permissions: KindPermission[]) =>
    defineKind<GreetingSpec>({
      apiVersion: 'labels.example.com/v1',
      kind: 'Labeller',
      plural: 'labellers',
      schema: greetingSchema,
      construct: Greeting,
      children: [CONFIG_MAP],
      watches: [{ type: NODE, owners: () => [] }],
      permissions,
      sync: {
        finalizer: 'labels.example.com/labels',
        plan: (_resource, view) =>
          view.list(NODE).map((n) => ({ type: NODE, obj: n, patch: { metadata: { labels: { x: 'y' } } } })),
      },
    });

  it('fails the reconcile naming the permission to declare, before any request', async () => {
    const kind = labeller([]);
    const local = new InMemoryCluster([kind]);
    local.put(NODE, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    local.putResource(kind, 'l', {}, 'ns');
    local.patch(kind, 'ns', 'l', { metadata: { finalizers: ['labels.example.com/labels'] } });
    local.takeWrites();
    await expect(local.reconcile(kind, 'ns', 'l')).rejects.toThrow(
      "Labeller's sync patches Node n1, which its rules do not allow: declare it in permissions ({ type: <Node>, verbs: ['patch'] })",
    );
    expect(local.takeWrites().filter((w) => w.kind === 'Node')).toEqual([]);
  });

  it('patches once the kind declares it, also for only the named objects', async () => {
    for (const permissions of [
      [{ type: NODE, verbs: ['patch'] }],
      [{ type: NODE, verbs: ['patch'], resourceNames: ['n1'] }],
    ]) {
      const kind = labeller(permissions);
      const local = new InMemoryCluster([kind]);
      local.put(NODE, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
      local.putResource(kind, 'l', {}, 'ns');
      local.patch(kind, 'ns', 'l', { metadata: { finalizers: ['labels.example.com/labels'] } });
      await local.reconcile(kind, 'ns', 'l');
      expect(local.any(NODE, undefined, 'n1')?.metadata.labels).toEqual({ x: 'y' });
    }
  });
});

describe('a sync that waits while the resource lives', () => {
  const gated = defineKind<GreetingSpec>({
    apiVersion: 'gates.example.com/v1',
    kind: 'Gated',
    plural: 'gateds',
    schema: greetingSchema,
    construct: Greeting,
    children: [CONFIG_MAP],
    watches: [{ type: NODE, owners: () => [] }],
    sync: {
      finalizer: 'gates.example.com/gate',
      plan: (_resource, view) =>
        view.list(NODE).length > 0 ? [] : [{ reason: 'NoNodes', message: 'waits for a node to join' }],
    },
  });

  it('is not Ready, in the kind’s words, until the wait ends; no Warning event for it', async () => {
    const local = new InMemoryCluster([gated]);
    local.putResource(gated, 'g', {}, 'ns');
    await local.reconcile(gated, 'ns', 'g'); // the finalizer
    await local.reconcile(gated, 'ns', 'g'); // the ConfigMap
    local.patch(CONFIG_MAP, 'ns', 'g-greeting', {});
    await local.reconcile(gated, 'ns', 'g');
    expect(local.ready(gated, 'ns', 'g')).toMatchObject({
      status: 'False',
      reason: 'NoNodes',
      message: 'waits for a node to join',
    });
    expect(local.events.filter((e) => e.type === 'Warning')).toEqual([]);
    local.put(NODE, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await local.reconcile(gated, 'ns', 'g');
    expect(local.ready(gated, 'ns', 'g')).toMatchObject({ status: 'True' });
  });
});
