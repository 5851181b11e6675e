/**
 * Ready that says why, on the local control plane: a MySQL Cluster whose members the scheduler cannot
 * place (every node cordoned) says, within 10 s, the members' count and the scheduler's own reason; `reconstruct
 * tree` says it under the StatefulSet; the nodes back, it becomes Ready and the reason is gone. The
 * controller lists the member pods on demand (controller/reconcile/troubles.ts), with the RBAC the
 * install grants. An image that cannot be pulled is not shown here: kwok's nodes pull no image (the
 * unit tests read recorded pod statuses, test/fixtures/pod-statuses.ts).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { KubeObject } from '../../constructs';
import { newestEvent, podSelectorOf } from '../../constructs/kit/pod-trouble';
import { loadClient } from '../../controller/kube/client';
import { kubeLiveReads } from '../../controller/kube/live-reads';
import { type RunningController, startController, watchingOnly } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

const CLI = join(__dirname, '../../dist/cli/main.js');
let ns: string;
let controller: RunningController | undefined;
/** The nodes this test cordoned, to uncordon whatever happens. */
let cordoned: string[] = [];

const uncordon = () => {
  for (const node of cordoned) kubectl(['uncordon', node]);
  cordoned = [];
};

beforeAll(async () => {
  ns = createNamespace('why');
  controller = await startController(watchingOnly(ns, uniqueName('lease')));
});
afterAll(async () => {
  uncordon();
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
const ready = () =>
  getJson<{ status?: { conditions?: Condition[] } }>([
    'mysqlcluster',
    'db',
    '-n',
    ns,
  ]).status?.conditions?.find((c) => c.type === 'Ready');

it("says the scheduler's reason for members it cannot place, within 10 s, and drops it once they run", async () => {
  const nodes = getJson<{ items: { metadata: { name: string }; spec: { unschedulable?: boolean } }[] }>([
    'nodes',
  ]).items;
  expect(nodes.length).toBeGreaterThan(0);
  for (const node of nodes.filter((n) => !n.spec.unschedulable)) {
    kubectl(['cordon', node.metadata.name]);
    cordoned.push(node.metadata.name);
  }
  const created = Date.now();
  applyYaml(
    JSON.stringify({
      apiVersion: 'mysql.oracle.com/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'db', namespace: ns },
      spec: { members: 3, version: '8.0.36' },
    }),
  );
  const stuck = await waitFor(
    () => {
      const c = ready();
      return c?.message.includes('Unschedulable') ? c : undefined;
    },
    { what: "the scheduler's reason in Ready", timeoutMs: 10_000, intervalMs: 200 },
  );
  const seconds = (Date.now() - created) / 1000;
  process.stdout.write(
    `Ready said why the members are not scheduled ${seconds.toFixed(1)} s after the create\n`,
  );
  expect(stuck).toMatchObject({ status: 'False', reason: 'Creating' });
  expect(stuck.message).toMatch(
    /^0 of 3 members ready; pod db-0: Unschedulable: 0\/\d+ nodes are available: \d+ node\(s\) were unschedulable/,
  );

  // The reads the controller makes, as the API server answers them (the unit tests use the in-memory
  // cluster's): the StatefulSet's pods by its selector, and a pod's events by a field selector.
  const reads = kubeLiveReads(loadClient({ userAgent: 'ready-why-test' }));
  const sts = getJson<KubeObject>(['statefulset', 'db', '-n', ns]);
  const pods = await reads.pods(ns, podSelectorOf(sts)!);
  expect(pods.map((p) => p.metadata.name)).toEqual(['db-0']);
  const events = await reads.events(ns, { kind: 'Pod', name: 'db-0' });
  expect(events.length).toBeGreaterThan(0);
  expect(
    events.every((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'db-0'),
  ).toBe(true);
  expect(newestEvent(events)).toMatchObject({ reason: 'FailedScheduling' });

  const tree = spawnSync(process.execPath, [CLI, 'tree', 'mysqlcluster/db', '-n', ns], { encoding: 'utf8' });
  expect(tree.stdout).toMatch(
    /✗ StatefulSet db +Progressing: 0 of 3 replicas ready; pod db-0: Unschedulable: .*unschedulable/,
  );

  uncordon();
  await waitFor(() => ready()?.status === 'True', { what: 'Cluster db Ready', timeoutMs: 90_000 });
  expect(ready()?.message).not.toMatch(/Unschedulable/);
});
