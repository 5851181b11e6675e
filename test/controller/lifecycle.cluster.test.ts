/**
 * The controller as a process: it converges after a restart, a resync of a converged cluster writes
 * nothing, two replicas elect one leader and the standby takes over when the leader dies, and SIGTERM
 * releases the lease and exits 0.
 */
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  kubectl,
  uniqueName,
  waitFor,
} from '../support/kubectl';
import { counter, leads, RunningController, startController, watchingOnly } from '../support/controller';
import { memcached as fixture } from '../fixtures/resources';

jest.setTimeout(180_000);

let ns: string;
const running: RunningController[] = [];
const start = async (args: string[]) => {
  const c = await startController(args);
  running.push(c);
  return c;
};

beforeAll(() => {
  ns = createNamespace('life');
});
afterAll(async () => {
  await Promise.all(running.map((c) => c.stop('SIGKILL')));
  if (ns) deleteNamespace(ns);
});

const memcached = (name: string, size: number) => JSON.stringify(fixture(name, { size }, ns));
const replicas = (name: string) =>
  getJson<{ spec: { replicas: number } }>(['deployment', name, '-n', ns]).spec.replicas;
const readyStatus = (name: string) =>
  getJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
    'memcached',
    name,
    '-n',
    ns,
  ]).status?.conditions?.find((c) => c.type === 'Ready')?.status;
const WRITES = new Set(['create', 'update', 'patch', 'delete']);
const writes = async (c: RunningController) =>
  counter(await c.metrics(), 'reconstruct_api_requests_total', (labels) =>
    WRITES.has(/verb="([^"]+)"/.exec(labels)?.[1] ?? ''),
  );

it('converges after a restart on what changed while it was stopped', async () => {
  const first = await start(['--namespaces', ns]);
  applyYaml(memcached('restart', 1));
  await waitFor(() => exists(['deployment', 'restart', '-n', ns]), { what: 'the Deployment' });
  expect(await first.stop()).toBe(0);

  applyYaml(memcached('restart', 3));
  await new Promise((r) => setTimeout(r, 1000));
  expect(replicas('restart')).toBe(1); // Nobody is watching.

  await start(['--namespaces', ns]);
  await waitFor(() => replicas('restart') === 3, { what: 'replicas 3 after the restart' });
});

it('sends no write request when a resync finds everything converged', async () => {
  const c = await start(['--namespaces', ns, '--resync', '1']);
  applyYaml(memcached('steady', 2));
  await waitFor(() => readyStatus('steady') === 'True' && readyStatus('restart') === 'True', {
    what: 'both resources Ready',
    timeoutMs: 60_000,
  });
  // Let the last status writes and events settle, then count across several resyncs.
  await new Promise((r) => setTimeout(r, 3000));
  const before = await writes(c);
  const reconcilesBefore = counter(await c.metrics(), 'reconstruct_reconcile_total');
  await new Promise((r) => setTimeout(r, 4000));
  const reconciles = counter(await c.metrics(), 'reconstruct_reconcile_total') - reconcilesBefore;
  expect(reconciles).toBeGreaterThanOrEqual(4); // At least two resyncs of both resources happened...
  expect((await writes(c)) - before).toBe(0); // ...and wrote nothing.
  expect(before).toBeGreaterThan(0); // The counter counts: this replica did create the children.
  await c.stop();
});

it('elects one leader; the standby takes over within the lease duration when the leader dies', async () => {
  const lease = uniqueName('lease');
  const args = [...watchingOnly(ns, lease), '--lease-duration', '6'];
  const a = await start(args);
  const b = await start(args);
  const leader = await waitFor(() => (leads(a) ? a : leads(b) ? b : undefined), { what: 'a leader' });
  const standby = leader === a ? b : a;
  await new Promise((r) => setTimeout(r, 2000));
  expect(leads(standby)).toBe(false);

  const killedAt = Date.now();
  await leader.stop('SIGKILL');
  await waitFor(() => leads(standby), { what: 'the standby to take over', timeoutMs: 20_000 });
  expect(Date.now() - killedAt).toBeLessThan(6000 + 3000);

  applyYaml(memcached('after-failover', 1));
  await waitFor(() => exists(['deployment', 'after-failover', '-n', ns]), {
    what: 'the new leader to reconcile',
  });

  // SIGTERM: finishes, releases the lease so that nobody has to wait it out, exits 0.
  expect(await standby.stop('SIGTERM')).toBe(0);
  const holder = getJson<{ spec: { holderIdentity?: string } }>(['lease', lease, '-n', ns]).spec
    .holderIdentity;
  expect(holder ?? '').toBe('');
});

it('leaves every child running when the controller stops', () => {
  kubectl(['get', 'deployment', 'restart', 'steady', 'after-failover', '-n', ns]);
  for (const name of ['restart', 'steady', 'after-failover']) {
    expect(exists(['deployment', name, '-n', ns])).toBe(true);
  }
});
