/**
 * Warm standby, without sharding: two replicas with --leader-elect; the standby's caches fill and stay in
 * sync while the other leads (informers start before the election), so when the leader is SIGKILLed the
 * standby acts on a change to every resource within the lease duration and a couple of seconds, and lists
 * nothing again: its informers' last list is the one it made at start.
 */
import { type RunningController, startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

const RESOURCES = 50;
const LEASE_SECONDS = 10;
let ns: string;
let lease: string;
const replicas: RunningController[] = [];

const start = () =>
  startController([
    '--leader-elect',
    '--lease-name',
    lease,
    '--lease-namespace',
    ns,
    '--lease-duration',
    String(LEASE_SECONDS),
    '--namespaces',
    ns,
  ]);

function resize(size: number): void {
  applyYaml(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: Array.from({ length: RESOURCES }, (_, i) => ({
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: `m${i}`, namespace: ns },
        spec: { size },
      })),
    }),
  );
}

/** How many Deployments have `replicas`. */
const at = (replicas: number) =>
  getJson<{ items: { spec: { replicas: number } }[] }>([
    'deployments',
    '-n',
    ns,
    '-l',
    'app.kubernetes.io/managed-by=reconstruct',
  ]).items.filter((d) => d.spec.replicas === replicas).length;

/** The lists a replica's informers made (their debug line), by resource. */
const lists = (c: RunningController): string[] =>
  c.logs
    .filter((l) => l.includes('"msg":"listed"'))
    .map((l) => (JSON.parse(l) as { resource: string }).resource);

beforeAll(() => {
  ns = createNamespace('standby');
  lease = uniqueName('lease');
});
afterAll(async () => {
  for (const r of replicas) await r.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

it('takes over within the lease duration and a couple of seconds, with its caches warm: no list again', async () => {
  const leader = await start();
  replicas.push(leader);
  await waitFor(() => leader.logs.some((l) => l.includes('"became leader"')), { what: 'a leader' });
  resize(1);
  await waitFor(() => at(1) === RESOURCES, { what: 'every Deployment', timeoutMs: 60_000 });
  const standby = await start();
  replicas.push(standby);
  // Synced (startController waited for /readyz), and a standby.
  expect(standby.logs.some((l) => l.includes('"became leader"'))).toBe(false);
  // Its log lines come through a pipe, read while /readyz was polled: the last list's line can arrive after
  // /readyz said synced. Counted once every informer the leader started with has said it listed.
  const informers = new Set(lists(leader));
  await waitFor(() => [...informers].every((r) => lists(standby).includes(r)), {
    what: "every informer's list in the standby's log",
  });
  const listedBefore = lists(standby);
  expect(listedBefore).toContain('memcacheds.cache.example.com');

  const killed = Date.now();
  await leader.stop('SIGKILL');
  resize(2);
  await waitFor(() => at(2) === RESOURCES, { what: 'the standby to act on every change', timeoutMs: 60_000 });
  const seconds = (Date.now() - killed) / 1000;
  const became = standby.logs.find((l) => l.includes('"became leader"'));
  expect(became).toBeDefined();
  const tookOver = (Date.parse((JSON.parse(became!) as { time: string }).time) - killed) / 1000;
  console.log(
    `warm standby: the lease taken ${tookOver.toFixed(1)} s after the leader's SIGKILL, ${RESOURCES} changes ` +
      `acted on after ${seconds.toFixed(1)} s (lease ${LEASE_SECONDS} s)`,
  );
  // The lease runs out at most a lease duration after its last renewal, which a standby sees at most a
  // retry period (2/15 of it) late.
  expect(tookOver).toBeLessThan(LEASE_SECONDS * (1 + 2 / 15) + 1);
  // And every change acted on once it leads, not a resync or another lease later: 50 reconciles and the
  // test's own kubectl polls, 4.5 s of it beside two CPU burners. (Counted from the SIGKILL, as it was,
  // the lease's jitter counted twice.) That its caches were warm, the lists below say.
  expect(seconds - tookOver).toBeLessThan(8);
  expect(lists(standby)).toEqual(listedBefore);
});
