/**
 * The controller's metrics under the names controller-runtime and client-go export, scraped from the live
 * controller: each family is there, with the labels dashboards select on, and moves as the work does.
 */
import { type RunningController, counter, startController, watchingOnly } from '../support/controller';
import { memcached } from '../fixtures/resources';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  readyCondition,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(120_000);

let ns: string;
let lease: string;
let controller: RunningController;

beforeAll(async () => {
  ns = createNamespace('metrics');
  lease = uniqueName('lease');
  controller = await startController(watchingOnly(ns, lease));
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

/** The value of one sample, by its exact label set, or undefined when the series is missing. */
function sample(metrics: string, name: string, labels: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

it('exports controller-runtime’s and client-go’s families, which move as the controller works', async () => {
  await waitFor(
    async () => sample(await controller.metrics(), 'leader_election_master_status', `name="${lease}"`) === 1,
    {
      what: 'leader_election_master_status 1',
    },
  );
  const before = await controller.metrics();
  for (const family of [
    'controller_runtime_reconcile_total',
    'controller_runtime_reconcile_errors_total',
    'controller_runtime_reconcile_time_seconds',
    'controller_runtime_active_workers',
    'controller_runtime_max_concurrent_reconciles',
    'workqueue_depth',
    'workqueue_adds_total',
    'workqueue_queue_duration_seconds',
    'workqueue_work_duration_seconds',
    'workqueue_retries_total',
    'workqueue_unfinished_work_seconds',
    'workqueue_longest_running_processor_seconds',
    'rest_client_requests_total',
    'leader_election_master_status',
  ]) {
    expect(`${family}: ${before.includes(`# TYPE ${family} `)}`).toBe(`${family}: true`);
  }
  expect(sample(before, 'controller_runtime_max_concurrent_reconciles', 'controller="memcached"')).toBe(4);
  expect(sample(before, 'controller_runtime_active_workers', 'controller="memcached"')).toBe(0);
  expect(sample(before, 'controller_runtime_reconcile_errors_total', 'controller="memcached"')).toBe(0);
  expect(sample(before, 'workqueue_retries_total', 'name="reconstruct"')).toBe(0);

  applyYaml(JSON.stringify(memcached('m', { size: 1 }, ns)));
  await waitFor(
    () =>
      getJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
        'memcached',
        'm',
        '-n',
        ns,
      ]).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
    { what: 'Memcached m Ready', timeoutMs: 60_000 },
  );
  const after = await controller.metrics();
  const grew = (name: string, filter?: (labels: string) => boolean) =>
    counter(after, name, filter) - counter(before, name, filter);
  const ofMemcached = (labels: string) => labels.includes('controller="memcached"');
  expect(grew('controller_runtime_reconcile_total', ofMemcached)).toBeGreaterThanOrEqual(2);
  expect(
    grew('controller_runtime_reconcile_total', (l) => ofMemcached(l) && l.includes('result="requeue_after"')),
  ).toBeGreaterThanOrEqual(1);
  expect(grew('controller_runtime_reconcile_time_seconds_count', ofMemcached)).toBeGreaterThanOrEqual(2);
  expect(grew('workqueue_adds_total')).toBeGreaterThanOrEqual(2);
  expect(grew('workqueue_queue_duration_seconds_count')).toBeGreaterThanOrEqual(2);
  expect(grew('workqueue_work_duration_seconds_count')).toBeGreaterThanOrEqual(2);
  // The Deployment and Service applies (201: an apply that creates) and the status writes (200), as PATCH
  // requests to the API server.
  const patched = (code: string) =>
    grew('rest_client_requests_total', (l) => l.includes('method="PATCH"') && l.includes(`code="${code}"`));
  expect(patched('201')).toBeGreaterThanOrEqual(2);
  expect(patched('200')).toBeGreaterThanOrEqual(1);
  expect(sample(after, 'workqueue_depth', 'name="reconstruct"')).toBe(0);
  expect(sample(after, 'controller_runtime_active_workers', 'controller="memcached"')).toBe(0);
});

it('hears its own writes come back (echoes) without reconciling for them; a change by someone else wakes it', async () => {
  const before = await controller.metrics();
  const events = (metrics: string, resource: string, event: string, result: string) =>
    counter(
      metrics,
      'reconstruct_watch_events_total',
      (l) =>
        l.includes(`resource="${resource}"`) &&
        l.includes(`event="${event}"`) &&
        l.includes(`result="${result}"`),
    );
  const grew = async (resource: string, event: string, result: string) =>
    events(await controller.metrics(), resource, event, result) - events(before, resource, event, result);
  applyYaml(JSON.stringify(memcached('echo', { size: 1 }, ns)));
  await waitFor(async () => (await grew('deployments', 'add', 'echo')) === 1, {
    what: 'the Deployment’s creation heard as an echo',
  });
  expect(await grew('services', 'add', 'echo')).toBe(1);
  expect(await grew('deployments', 'add', 'enqueued')).toBe(0);
  // Ready all the same: the reconcile that made the children judged them by what their applies answered,
  // and the Deployment's status updates (someone else's writes) wake it.
  await waitFor(() => readyCondition('memcached', 'echo', ns)?.status === 'True', {
    what: 'Memcached echo Ready',
    timeoutMs: 60_000,
  });

  // Its own update of the Deployment is an echo too; someone else's scale is not (and is put back).
  applyYaml(JSON.stringify(memcached('echo', { size: 2 }, ns)));
  await waitFor(async () => (await grew('deployments', 'update', 'echo')) >= 1, {
    what: 'the Deployment’s update heard as an echo',
  });
  const woken = events(await controller.metrics(), 'deployments', 'update', 'enqueued');
  kubectl(['scale', 'deployment', 'echo', '-n', ns, '--replicas=5']);
  await waitFor(async () => events(await controller.metrics(), 'deployments', 'update', 'enqueued') > woken, {
    what: 'a scale by someone else waking the Memcached',
  });
  await waitFor(
    () => getJson<{ spec: { replicas: number } }>(['deployment', 'echo', '-n', ns]).spec.replicas === 2,
    { what: 'the Deployment put back to 2 replicas' },
  );
});
