/**
 * External work under load, with the real controller: 200 ZoneRecords (bench/external/kinds.ts, loaded with
 * --kinds beside the built-in kinds) against a provider over HTTP that answers in 2 s
 * (bench/external/provider-server.ts, in this process). Once all are Ready, their handlers observe every
 * 2 s (about half of them in flight at any time). While they are in flight, the
 * controller's /healthz answers within 100 ms at the 99th percentile, and reads of ZoneRecords as v1alpha1
 * (the API server calls the controller's conversion webhook for each) too; on a busy machine, where any
 * answer waits for a core, within the floor this run measures (twice an idle server's p99, plus 20 ms; the
 * API server's own read of the stored version, plus half of it). A Memcached's change reaches its
 * Deployment within 1 s (times how much slower than 100 ms the API server's own reads are at p99, where
 * they are: the change is API-bound). The handlers hold neither the event loop nor a worker, and the probes and
 * conversions have a thread of their own (controller/serving). Then the provider goes away for longer than
 * a backoff's reach (45 s): every record says so, and once it answers again every one is Ready within 10 s
 * (scaled the same way),
 * woken by the one resource that kept trying every 5 s. The probes are bench/external/load.ts, which
 * `npm run bench:external` runs beside a baseline.
 */
import { join } from 'node:path';
import { memcachedKind, type KubeObject } from '../../../constructs';
import { loadClient, type KubeClient } from '../../../controller/kube/client';
import { resourcePath } from '../../../controller/kube/paths';
import { freePort } from '../../../controller/runtime/server';
import { Cluster } from '../../../bench/controller/cluster';
import { Observer } from '../../../bench/controller/observer';
import { pool, quantile } from '../../../bench/controller/support';
import { UNREACHABLE, ZONE_RECORD_CONCURRENCY, zoneRecordKind } from '../../../bench/external/kinds';
import { idleServer, providerSecret, sampleLoad, spread, zoneRecord } from '../../../bench/external/load';
import { ProviderServer } from '../../../bench/external/provider-server';
import { type RunningController, startController } from '../../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  forgetConversionUrl,
  kubectl,
  waitFor,
} from '../../support/kubectl';

jest.setTimeout(120_000);

const KINDS = join(__dirname, '../../../dist/bench/external/kinds.js');
const CRD = zoneRecordKind.crd.metadata.name;
const COUNT = 200;
const LATENCY_MS = 2_000;
const TOKEN = 'test-token';
const OTHER = 'other';
const names = Array.from({ length: COUNT }, (_, i) => `record-${i}`);

let ns: string;
let client: KubeClient;
let provider: ProviderServer;
let controller: RunningController | undefined;
let memcacheds: Cluster;
let observer: Observer;
/**
 * How many times slower than the 100 ms the API server's own reads were at the 99th percentile in
 * the load test (at least 1): on a busy machine every API-bound bound is scaled by it.
 */
let apiSlowness = 1;

/**
 * The controller, logging at `level`. At debug (the cluster tests' default, for telling 403s apart), its
 * every step is a line written synchronously to the pipe this process reads, which under this load makes
 * /healthz ten times slower at the median than the controller is: the load test logs at info.
 */
async function start(level: 'info' | 'debug'): Promise<RunningController> {
  return startController([
    '--log-level',
    level,
    '--kinds',
    KINDS,
    '--namespaces',
    ns,
    '--lease-namespace',
    ns,
    '--webhook-addr',
    `127.0.0.1:${await freePort()}`,
  ]);
}

beforeAll(async () => {
  ns = createNamespace('external-load');
  client = loadClient({ userAgent: 'reconstruct-test', maxSockets: 64 });
  provider = await ProviderServer.start({ token: TOKEN, latencyMs: LATENCY_MS });
  if (kubectl(['get', 'crd', CRD], { allowFail: true }).code === 0) forgetConversionUrl(CRD); // a killed run's
  applyYaml(JSON.stringify(zoneRecordKind.crd), ['--server-side', '--force-conflicts']);
  kubectl(['wait', '--for=condition=Established', `crd/${CRD}`]);
  applyYaml(JSON.stringify(providerSecret(ns, provider, TOKEN)));
  controller = await start('info');
  memcacheds = new Cluster(client, ns, memcachedKind);
  observer = new Observer(client, ns, { children: ['Deployment'], ready: 'condition' });
  await observer.start();
  await memcacheds.createMemcached(OTHER, 1);
  await waitFor(() => observer.replicas.has(OTHER), { what: "the Memcached's Deployment" });
}, 90_000);

afterAll(async () => {
  try {
    await observer?.stop();
    // The records go while the controller runs and the provider answers: their finalizers would hold the namespace.
    if (controller && provider) {
      provider.latencyMs = 0;
      if (!provider.listening) await provider.up();
      await client.request({ method: 'DELETE', path: resourcePath(zoneRecordKind, ns) });
      await waitFor(async () => (await readiness()).size === 0, {
        what: 'the ZoneRecords gone',
        timeoutMs: 60_000,
      });
    }
  } finally {
    await controller?.stop();
    await provider?.stop();
    client?.close?.();
    if (ns) deleteNamespace(ns);
  }
}, 90_000);

/** The records' Ready conditions, by name. */
async function readiness(): Promise<Map<string, { status: string; reason?: string }>> {
  const list = await client.request<{ items: KubeObject[] }>({
    method: 'GET',
    path: resourcePath(zoneRecordKind, ns),
  });
  type Condition = { type: string; status: string; reason?: string };
  return new Map(
    list.items.map((o) => {
      const conditions = (o.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
      return [o.metadata.name, conditions.find((c) => c.type === 'Ready') ?? { status: 'Unknown' }];
    }),
  );
}
const allReady = async () => {
  const ready = await readiness();
  return ready.size === COUNT && [...ready.values()].every((c) => c.status === 'True');
};

it('answers /healthz and conversion reads within 100 ms at p99 (on a busy machine, near its floor), and reconciles another kind within 1 s, while 200 handlers wait on the provider', async () => {
  // All 200 made and Ready first: the window measures the handlers' steady state (each record observed
  // every 2 s, its call held 2 s: about half of them in flight at any time), not the burst of creates,
  // which on a busy API server can stretch over the whole window and leave it nearly idle.
  await pool(names, 16, async (name) => {
    await client.request({
      method: 'POST',
      path: resourcePath(zoneRecordKind, ns),
      body: zoneRecord(ns, name),
    });
  });
  await waitFor(allReady, { what: `${COUNT} ZoneRecords Ready`, timeoutMs: 90_000 });
  let next = 0;
  const idle = await idleServer();
  let samples;
  try {
    samples = await sampleLoad(
      {
        client,
        namespace: ns,
        healthUrl: `http://127.0.0.1:${controller!.healthPort}/healthz`,
        idleUrl: idle.url,
        readName: () => names[next++ % names.length],
        cluster: memcacheds,
        observer,
        memcached: OTHER,
        provider,
      },
      { durationMs: 30_000 },
    );
  } finally {
    idle.stop();
  }
  console.log(
    [
      `with ${COUNT} ZoneRecords, the provider answering in ${LATENCY_MS} ms, p50 / p99 / max in ms:`,
      `/healthz ${spread(samples.healthz)} (${samples.healthz.length})`,
      `an idle server in a process of its own, probed the same way ${spread(samples.idle)}`,
      `read as v1alpha1 ${spread(samples.reads)} (${samples.reads.length})`,
      `the same read as v1, stored (no webhook) ${spread(samples.storedReads)} (${samples.storedReads.length})`,
      `Memcached change to its Deployment ${spread(samples.changes)} (${samples.changes.length})`,
      `handlers in flight at the provider: at most ${provider.maxInFlight}, at the median ${quantile(samples.inFlight, 0.5)}`,
      `this process's event-loop delay p99 ${samples.samplerDelayP99Ms.toFixed(1)} ms`,
    ].join('\n'),
  );
  // The premise: the handlers were in flight by the hundred, for most of the window.
  expect(provider.maxInFlight).toBeGreaterThanOrEqual(ZONE_RECORD_CONCURRENCY / 2);
  expect(quantile(samples.inFlight, 0.5)).toBeGreaterThanOrEqual(COUNT / 4);
  expect(samples.failures).toEqual([]);
  expect(samples.healthz.length).toBeGreaterThan(400);
  expect(samples.reads.length).toBeGreaterThan(200);
  expect(samples.changes.length).toBeGreaterThanOrEqual(10);
  // Against the floor of this run: on a busy machine (a newcomer's laptop, CI beside other jobs) any answer
  // waits for a core, and this process, which times them, is late too. An idle server in a process of its
  // own, probed the same way, is that floor for /healthz; the API server's own read of the stored version
  // (no webhook) is the floor for a conversion read. Quiet, the thresholds are the issue's: 100 ms.
  const p99 = (values: number[]) => quantile(values, 0.99);
  const [healthz, idleP99] = [p99(samples.healthz), p99(samples.idle)];
  expect({ healthz, idleP99, withinBound: healthz < 100 || healthz < 2 * idleP99 + 20 }).toMatchObject({
    withinBound: true,
  });
  // A conversion read takes two more hops than the stored read (the API server to the serving thread and
  // back), each waiting for a core on a busy machine: the same bound as /healthz's against its floor. A
  // conversion that waited for the main thread's reconciles would take seconds with 200 handlers in flight.
  // (A fresh clone's CI beside one CPU burner: 201 ms against a stored read's 127 at p99.)
  const [reads, stored] = [p99(samples.reads), p99(samples.storedReads)];
  expect({
    reads,
    stored,
    withinBound: reads < 100 || reads < 2 * stored + 20,
  }).toMatchObject({
    withinBound: true,
  });
  // A change is API-bound (a watch event, a reconcile's reads and apply): within 1 s, or as many times
  // that as the API server's own reads are slower than the 100 ms in this run.
  apiSlowness = Math.max(1, stored / 100);
  const slowest = Math.max(...samples.changes);
  expect({ slowest, stored, withinBound: slowest < 1_000 * apiSlowness }).toMatchObject({
    withinBound: true,
  });
  await waitFor(allReady, { what: `all ${COUNT} ZoneRecords Ready`, timeoutMs: 60_000 });
}, 180_000);

/**
 * When each record, as the controller logged its last failure before `before`, was to try again: what a
 * backoff alone would have done (its failures are logged at debug, each with its wait).
 */
function retriesBefore(logs: readonly string[], before: number): Map<string, number> {
  const retries = new Map<string, number>();
  for (const line of logs) {
    if (!line.includes('"external work failed"')) continue;
    const { time, name, retryInMs } = JSON.parse(line) as { time: string; name: string; retryInMs: number };
    const at = Date.parse(time);
    if (at < before) retries.set(name, at + retryInMs);
  }
  return retries;
}

it('makes every record Ready within 10 s of a provider answering again after a 45 s outage', async () => {
  // At debug, where each failure is logged with its backoff (retriesBefore).
  await controller!.stop();
  controller = await start('debug');
  await waitFor(allReady, { what: `all ${COUNT} ZoneRecords Ready`, timeoutMs: 60_000 });
  await provider.down();
  const down = Date.now();
  await waitFor(
    async () =>
      [...(await readiness()).values()].every((c) => c.status === 'False' && c.reason === UNREACHABLE),
    { what: `all ${COUNT} ZoneRecords Ready=False ${UNREACHABLE}`, timeoutMs: 30_000 },
  );
  const seenDown = (Date.now() - down) / 1000;
  // Long enough that a backoff alone (5 s doubling, with jitter) puts the next try of most well past 10 s.
  await new Promise((r) => setTimeout(r, Math.max(0, down + 45_000 - Date.now())));
  await provider.up();
  const up = Date.now();
  await waitFor(allReady, {
    what: `all ${COUNT} ZoneRecords Ready again`,
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  const ready = Date.now();
  // The provider answers 2 s after a call: "answering again" is its first answer, to the probe's call.
  const answered = provider.firstAnswerAt!;
  const late = [...retriesBefore(controller.logs, up).values()].filter((at) => at > answered + 10_000);
  console.log(
    `provider down: all ${COUNT} ZoneRecords said ${UNREACHABLE} after ${seenDown.toFixed(1)} s; up again after ` +
      `${((up - down) / 1000).toFixed(1)} s, its first answer ${((answered - up) / 1000).toFixed(1)} s later; all ` +
      `Ready ${((ready - answered) / 1000).toFixed(1)} s after that answer (${((ready - up) / 1000).toFixed(1)} s ` +
      `after it was up); ${late.length} records' backoff alone would have tried again more than 10 s after it`,
  );
  // The premise: many would have been late without the probe's success waking them.
  expect(late.length).toBeGreaterThanOrEqual(COUNT / 4);
  // 200 observes and status writes: within 10 s, scaled as the change above by the API server's reads.
  const recovered = ready - answered;
  expect({ recovered, apiSlowness, withinBound: recovered < 10_000 * apiSlowness }).toMatchObject({
    withinBound: true,
  });
});
