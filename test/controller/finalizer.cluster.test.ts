/**
 * A cluster-scoped kind with finalizer work that must wait, on the local control plane: TenantNamespace
 * (test/fixtures/kinds/tenant-namespace.ts) makes a Namespace and, in it, a RoleBinding to ClusterRole
 * `admin`, and its deletion waits while pods still run there. The controller runs as the cluster tests'
 * ServiceAccount, bound to the rules the install derives (support/controller-role.ts), the kind's declared
 * `bind` on ClusterRole `admin` included: without that declaration the API server refuses the RoleBinding
 * (RBAC's escalation check), and support/forbidden.ts fails the test on the 403.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { sleep } from '../../controller/abortable';
import { ORDERED_DELETION_FINALIZER } from '../../controller/reconcile/ordered-deletion';
import { TENANT_FINALIZER, tenantNamespaceKind } from '../fixtures/kinds/tenant-namespace';
import { type RunningController, startController } from '../support/controller';
import { CONTROLLER_USER } from '../support/controller-role';
import {
  applyYaml,
  events,
  exists,
  getJson,
  installCrds,
  kubectl,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

const CLI = join(__dirname, '../../dist/cli/main.js');
const MODULE = join(__dirname, '../fixtures/kinds/tenant-namespace.ts');

let controller: RunningController | undefined;
let tenant: string;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface Tenant {
  metadata: { deletionTimestamp?: string; finalizers?: string[]; generation: number };
  status?: { observedGeneration?: number; phase?: string; conditions?: Condition[] };
}
const read = () => getJson<Tenant>(['tenantnamespace', tenant]);
const ready = () => read().status?.conditions?.find((c) => c.type === 'Ready');

beforeAll(async () => {
  installCrds([tenantNamespaceKind]);
  tenant = uniqueName('tenant');
  controller = await startController(['--kinds', MODULE, '--no-builtin-kinds']);
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  // Whatever a failed test left: the finalizer released by hand, the resource and its namespace deleted.
  if (tenant && exists(['tenantnamespace', tenant])) {
    kubectl(['patch', 'tenantnamespace', tenant, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    kubectl(['delete', 'tenantnamespace', tenant, '--wait=false'], { allowFail: true });
  }
  if (tenant) kubectl(['delete', 'namespace', tenant, '--wait=false'], { allowFail: true });
});

it('hands out admin in the namespace it makes, holds its deletion while pods run there, and lets go once they are gone', async () => {
  applyYaml(
    JSON.stringify({
      apiVersion: tenantNamespaceKind.apiVersion,
      kind: tenantNamespaceKind.kind,
      metadata: { name: tenant },
      spec: { admin: 'alice' },
    }),
  );
  // The first reconciles after the CRD is installed: the API server may not map the kind for up to 30 s.
  await waitFor(() => exists(['rolebinding', 'admin', '-n', tenant]), {
    what: 'the RoleBinding to admin',
    timeoutMs: 60_000,
  });
  const binding = getJson<{ roleRef: { kind: string; name: string }; subjects: { name: string }[] }>([
    'rolebinding',
    'admin',
    '-n',
    tenant,
  ]);
  expect(binding.roleRef).toMatchObject({ kind: 'ClusterRole', name: 'admin' });
  expect(binding.subjects.map((s) => s.name)).toEqual(['alice']);
  // Made by the controller's ServiceAccount, which may bind admin and nothing broader.
  const canI = (verb: string, resource: string) =>
    kubectl(['auth', 'can-i', verb, resource, '--as', CONTROLLER_USER], { allowFail: true }).stdout.trim();
  expect(canI('bind', 'clusterroles/admin')).toBe('yes');
  expect(canI('bind', 'clusterroles/cluster-admin')).toBe('no');
  expect(canI('patch', 'pods')).toBe('no');
  expect(
    kubectl(['auth', 'can-i', 'create', 'deployments', '-n', tenant, '--as', 'alice']).stdout.trim(),
  ).toBe('yes');
  await waitFor(() => ready()?.status === 'True', { what: 'the TenantNamespace Ready' });
  expect(read().status?.phase).toBe('Active');
  // The RoleBinding waits for the Namespace, which the same reconcile applied just before: judged by the
  // apply's answer, not by its watch event (seconds late on a busy API server), it waits not at all, and
  // no Waiting event says it did (controller/reconcile/apply.ts).
  expect(events('default', `involvedObject.name=${tenant},reason=Waiting`)).toEqual([]);

  applyYaml(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: tenant },
      spec: { nodeSelector: { type: 'kwok' }, containers: [{ name: 'c', image: 'registry.invalid/web:1' }] },
    }),
  );
  await waitFor(
    () =>
      getJson<{ status?: { phase?: string } }>(['pod', 'web-1', '-n', tenant]).status?.phase === 'Running',
    { what: 'the pod running on a kwok node' },
  );

  kubectl(['delete', 'tenantnamespace', tenant, '--wait=false']);
  const message = `deletion waits for 1 pod(s) still running in namespace ${tenant}: web-1`;
  await waitFor(() => ready()?.reason === 'PodsRunning', { what: 'the deletion held, said on Ready' });
  expect(ready()).toMatchObject({ status: 'False', reason: 'PodsRunning', message });
  const held = read();
  expect(held.metadata.deletionTimestamp).toBeDefined();
  // The second orders the children's deletion once the kind's own work is done (ordered-deletion.ts).
  expect(held.metadata.finalizers).toEqual([TENANT_FINALIZER, ORDERED_DELETION_FINALIZER]);
  expect(held.status?.observedGeneration).toBe(held.metadata.generation);
  // The kind's status() is asked while its deletion is held.
  expect(held.status?.phase).toBe('Terminating');
  // Events about cluster-scoped objects are in default.
  const warnings = () => events('default', `involvedObject.name=${tenant},reason=PodsRunning`);
  await waitFor(() => warnings().length > 0, { what: 'the Warning event' });
  expect(warnings()).toEqual([expect.objectContaining({ type: 'Warning', message })]);
  // The namespace and its pod stay: the garbage collector deletes the Namespace only once its owner is gone.
  expect(getJson<{ status: { phase: string } }>(['namespace', tenant]).status.phase).toBe('Active');

  const tree = spawnSync(process.execPath, [CLI, 'tree', `tenantnamespace/${tenant}`, '--kinds', MODULE], {
    encoding: 'utf8',
    env: process.env,
  });
  expect(tree.status).toBe(1);
  expect(tree.stdout).toContain(`TenantNamespace ${tenant}  Ready=False PodsRunning`);
  expect(tree.stdout).toContain(`held by ${TENANT_FINALIZER}`);
  expect(tree.stdout).not.toContain('the spec is at');

  const deleted = Date.now();
  kubectl(['delete', 'pod', 'web-1', '-n', tenant, '--wait=false']);
  await waitFor(() => !exists(['tenantnamespace', tenant]), {
    what: 'the TenantNamespace gone once its pod is',
    timeoutMs: 30_000,
  });
  expect(Date.now() - deleted).toBeLessThan(10_000);
  // Then the Namespace, through its ownerReference: the garbage collector's own pace, slower on a cluster
  // busy with the other test files' objects (and a kind whose CRD it learnt of at a discovery resync).
  await waitFor(
    () =>
      !exists(['namespace', tenant]) ||
      getJson<{ status: { phase: string } }>(['namespace', tenant]).status.phase === 'Terminating',
    { what: 'the Namespace garbage-collected', timeoutMs: 90_000 },
  );
  // A moment for a reconcile from a cache that had not seen the release yet.
  await sleep(2_000);
  expect(controller?.logs.filter((l) => l.includes('"level":"error"'))).toEqual([]);
});
