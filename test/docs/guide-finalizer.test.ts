/**
 * GUIDE 4b's reconcile test of a deletion, as the GUIDE shows it (its code block is an excerpt of this
 * file): a TenantNamespace whose pods still run is held by its finalizer, and released once they are gone.
 * test/controller/reconcile/finalize.test.ts has the rest.
 */
import { NAMESPACE, POD } from '../../index';
import { InMemoryCluster } from '../../testing';
import { tenantNamespaceKind } from '../fixtures/kinds/tenant-namespace';

test('a TenantNamespace is held while its pods run, then goes with its Namespace', async () => {
  const cluster = new InMemoryCluster([tenantNamespaceKind]);
  cluster.putResource(tenantNamespaceKind, 'team-a', { admin: 'alice' });
  // The finalizer; the Namespace, then the RoleBinding that waits for it; Ready:
  for (let i = 0; i < 3; i++) await cluster.reconcile(tenantNamespaceKind, undefined, 'team-a');
  expect(cluster.ready(tenantNamespaceKind, undefined, 'team-a')).toMatchObject({ status: 'True' });
  cluster.events.splice(0); // the events so far
  cluster.put(POD, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'team-a' },
    status: { phase: 'Running' },
  });
  cluster.remove(tenantNamespaceKind, undefined, 'team-a'); // deletionTimestamp set, the finalizer holds it
  expect(await cluster.reconcile(tenantNamespaceKind, undefined, 'team-a')).toEqual({ requeueAfterMs: 5000 });
  expect(cluster.ready(tenantNamespaceKind, undefined, 'team-a')).toMatchObject({
    status: 'False',
    reason: 'PodsRunning',
  });
  expect(cluster.events).toEqual([
    {
      type: 'Warning',
      reason: 'PodsRunning',
      message: 'deletion waits for 1 pod(s) still running in namespace team-a: web-1',
    },
  ]);
  cluster.remove(POD, 'team-a', 'web-1');
  await cluster.reconcile(tenantNamespaceKind, undefined, 'team-a'); // the kind's finalizer released
  // Then its children in reverse order (the RoleBinding, then the Namespace it waited for), and it goes:
  for (let i = 0; i < 2; i++) await cluster.reconcile(tenantNamespaceKind, undefined, 'team-a');
  expect(cluster.any(tenantNamespaceKind, undefined, 'team-a')).toBeUndefined();
  expect(cluster.any(NAMESPACE, undefined, 'team-a')).toBeUndefined();
});
