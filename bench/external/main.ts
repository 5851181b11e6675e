/**
 * External work against the event loop: `npm run bench:external [-- --count 200 --latency 2000]`.
 *
 * The real controller (a child process, its built-in kinds and ZoneRecord, kinds.ts) beside a provider over
 * HTTP (provider-server.ts, in this process). Each round creates `--count` ZoneRecords (16 creates in
 * flight) and, for `--seconds` from the first create, probes the controller (load.ts): /healthz every
 * 50 ms, a ZoneRecord read as v1alpha1 every 100 ms (through its conversion webhook), and a Memcached's
 * size changed one at a time, each timed until its Deployment shows it. Two kinds of round, alternated:
 *
 *  - **at once**, the baseline: the provider answers at once, so the same resources, creates, status
 *    writes and reconciles come and go without handlers waiting;
 *  - **slow**: every answer of the provider takes `--latency` ms, so the handlers of the kind (concurrency
 *    200) are in flight through the window.
 *
 * Between rounds the ZoneRecords are deleted (the provider answering at once) and waited for. The report
 * pools each kind of round's probes (p50 / p99 / max) and gives each round's p99, since only figures next
 * to a baseline of the same run mean something on a shared machine.
 */
import { parseArgs } from 'node:util';
import { CUSTOM_RESOURCE_DEFINITION, type KubeObject } from '../../constructs/kit';
import { loadClient, type KubeClient } from '../../controller/kube/client';
import { isNotFound } from '../../controller/kube/errors';
import { resourcePath } from '../../controller/kube/paths';
import { applyRequest } from '../../controller/kube/writer';
import { Cluster, isReady } from '../controller/cluster';
import { ControllerProcess, removeControllerLogs } from '../controller/controller-process';
import { guard, run } from '../controller/guard';
import { Observer } from '../controller/observer';
import { cpuSnapshot, cpuSpent, schedSeconds } from '../controller/proc';
import { reconstruct } from '../controller/reconstruct';
import { int } from '../controller/settings';
import { log, now, pool, quantile, until } from '../controller/support';
import { zoneRecordKind } from './kinds';
import { type LoadSamples, idleServer, providerSecret, sampleLoad, spread, zoneRecord } from './load';
import { ProviderServer } from './provider-server';
import { externalController } from './controller';

const HELP = `Usage: node dist/bench/external/main.js [options]   (npm run bench:external -- [options])

  --count N        ZoneRecords created in each round (default 200)
  --latency MS     how long the provider takes to answer in a slow round (default 2000)
  --seconds S      how long each round is probed, from its first create (default 30)
  --pairs N        pairs of rounds, at once and slow, alternating which goes first (default 2)
  --cpu-prof DIR   run the controller under node --cpu-prof, its profile written into DIR at exit
  --no-warmup      skip the unmeasured round (at once, 10 s) that warms up the controller first
  -h, --help
`;

type Mode = 'at once' | 'slow';
interface Round {
  readonly mode: Mode;
  readonly samples: LoadSamples;
  /** ZoneRecords Ready when the window ended, and seconds from the first create until all were. */
  readonly readyAtEnd: number;
  readonly allReadySeconds: number;
  /** The controller's event-loop thread in the window: on a CPU, and runnable but waiting for one. */
  readonly loopCpuSeconds: number;
  readonly loopWaitingSeconds: number;
  /** CPU seconds of the machine's processes outside this run (other work on the shared cores). */
  readonly otherCpuSeconds: number;
  /** Calls the provider answered in the window, per second. */
  readonly callsPerSecond: number;
}

interface Run {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly count: number;
  readonly latencyMs: number;
  readonly seconds: number;
  readonly memcacheds: Cluster;
  readonly observer: Observer;
  readonly provider: ProviderServer;
  readonly controller: ControllerProcess;
  readonly healthUrl: string;
  /** An idle server probed beside /healthz (load.ts, idleServer). */
  readonly idleUrl: string;
}

const TOKEN = 'bench-token';
const OTHER = 'other';

/** How many of `names` are Ready now. */
async function readyCount(r: Run, names: Set<string>): Promise<number> {
  const list = await r.client.request<{ items: KubeObject[] }>({
    method: 'GET',
    path: resourcePath(zoneRecordKind, r.namespace),
  });
  return list.items.filter((o) => names.has(o.metadata.name) && isReady(o)).length;
}

/** Deletes every ZoneRecord, the provider answering at once, and waits until the controller let them go. */
async function deleteRecords(r: Run): Promise<void> {
  r.provider.latencyMs = 0;
  await r.client.request({ method: 'DELETE', path: resourcePath(zoneRecordKind, r.namespace) });
  const gone = await until(() => empty(r), 120_000, 500);
  if (!gone) throw new Error('the ZoneRecords were not deleted within 2 minutes');
}

async function empty(r: Run): Promise<boolean> {
  const list = await r.client.request<{ items: unknown[] }>({
    method: 'GET',
    path: resourcePath(zoneRecordKind, r.namespace),
    query: { limit: 1 },
  });
  return list.items.length === 0;
}

async function round(r: Run, mode: Mode, index: number): Promise<Round> {
  log(
    `round ${index}: ${r.count} ZoneRecords, the provider answering ${mode === 'slow' ? `in ${r.latencyMs} ms` : 'at once'}`,
  );
  r.provider.latencyMs = mode === 'slow' ? r.latencyMs : 0;
  const names = Array.from({ length: r.count }, (_, i) => `r${index}-${i}`);
  const created: string[] = [];
  let next = 0;
  const pid = r.controller.proc.pid!;
  const cpu0 = cpuSnapshot(pid);
  const sched0 = schedSeconds(pid);
  const answered0 = r.provider.answered;
  const started = now();
  const creating = pool(names, 16, async (name) => {
    await r.client.request({
      method: 'POST',
      path: resourcePath(zoneRecordKind, r.namespace),
      body: zoneRecord(r.namespace, name),
    });
    created.push(name);
  });
  const samples = await sampleLoad(
    {
      client: r.client,
      namespace: r.namespace,
      healthUrl: r.healthUrl,
      idleUrl: r.idleUrl,
      readName: () => (created.length > 0 ? created[next++ % created.length] : undefined),
      cluster: r.memcacheds,
      observer: r.observer,
      memcached: OTHER,
      provider: r.provider,
    },
    { durationMs: r.seconds * 1000 },
  );
  const callsPerSecond = (r.provider.answered - answered0) / r.seconds;
  await creating;
  const otherCpuSeconds = cpuSpent(cpu0, cpuSnapshot(pid)).other ?? NaN;
  const sched1 = schedSeconds(pid);
  const loopCpuSeconds = sched0 && sched1 ? sched1.cpu - sched0.cpu : NaN;
  const loopWaitingSeconds = sched0 && sched1 ? sched1.waiting - sched0.waiting : NaN;
  const wanted = new Set(names);
  const readyAtEnd = await readyCount(r, wanted);
  const allReady = await until(async () => (await readyCount(r, wanted)) === r.count, 120_000, 250);
  const allReadySeconds = allReady ? (now() - started) / 1000 : NaN;
  if (samples.failures.length > 0)
    log(`${samples.failures.length} probes failed, e.g. ${samples.failures[0]}`);
  await deleteRecords(r);
  return {
    mode,
    samples,
    readyAtEnd,
    allReadySeconds,
    loopCpuSeconds,
    loopWaitingSeconds,
    otherCpuSeconds,
    callsPerSecond,
  };
}

function report(rounds: Round[], r: Run): string {
  const modes: Mode[] = ['at once', 'slow'];
  const of = (mode: Mode) => rounds.filter((x) => x.mode === mode);
  const pooled = (mode: Mode, pick: (s: LoadSamples) => number[]) => of(mode).flatMap((x) => pick(x.samples));
  const p99s = (mode: Mode, pick: (s: LoadSamples) => number[]) =>
    of(mode)
      .map((x) => quantile(pick(x.samples), 0.99).toFixed(1))
      .join(' ');
  const row = (figure: string, cell: (mode: Mode) => string) =>
    `| ${figure} | ${modes.map(cell).join(' | ')} |`;
  const probes: [string, (s: LoadSamples) => number[]][] = [
    ['/healthz, ms: p50 / p99 / max', (s) => s.healthz],
    ['an idle server in a process of its own, probed the same way', (s) => s.idle],
    ['read as v1alpha1 (conversion webhook), ms', (s) => s.reads],
    ['the same read as v1 (stored: no webhook), ms', (s) => s.storedReads],
    ['Memcached change to its Deployment, ms', (s) => s.changes],
  ];
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return [
    `${r.count} ZoneRecords a round, ${rounds.length / 2} pairs; slow: the provider answers in ${r.latencyMs} ms; ${r.seconds} s probed from the first create`,
    '',
    `| figure | provider at once (baseline) | provider in ${r.latencyMs} ms |`,
    '| --- | ---: | ---: |',
    ...probes.flatMap(([figure, pick]) => [
      row(figure, (m) => spread(pooled(m, pick))),
      row('  p99 of each round', (m) => p99s(m, pick)),
    ]),
    row('probes: /healthz, reads, changes (failed)', (m) =>
      [
        pooled(m, (s) => s.healthz).length,
        pooled(m, (s) => s.reads).length,
        `${pooled(m, (s) => s.changes).length} (${of(m).reduce((n, x) => n + x.samples.failures.length, 0)})`,
      ].join(', '),
    ),
    row('handlers in flight at the provider: mean / max', (m) => {
      const counts = pooled(m, (s) => s.inFlight);
      return `${mean(counts).toFixed(0)} / ${Math.max(0, ...counts)}`;
    }),
    row('calls the provider answered, per second', (m) =>
      of(m)
        .map((x) => x.callsPerSecond.toFixed(0))
        .join(' '),
    ),
    row('Ready at the end of the window; all Ready after, s', (m) =>
      of(m)
        .map((x) => `${x.readyAtEnd}; ${x.allReadySeconds.toFixed(1)}`)
        .join(', '),
    ),
    row("controller's event loop in the window: on a CPU / waiting for one, s", (m) =>
      of(m)
        .map((x) => `${x.loopCpuSeconds.toFixed(1)} / ${x.loopWaitingSeconds.toFixed(1)}`)
        .join(', '),
    ),
    row('CPU of processes outside the run in the window, s', (m) =>
      of(m)
        .map((x) => x.otherCpuSeconds.toFixed(1))
        .join(' '),
    ),
    row("the bench's own event-loop delay p99, ms", (m) =>
      of(m)
        .map((x) => x.samples.samplerDelayP99Ms.toFixed(1))
        .join(' '),
    ),
  ].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      latency: { type: 'string' },
      seconds: { type: 'string' },
      pairs: { type: 'string' },
      'no-warmup': { type: 'boolean' },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const count = int('count', values.count, 200, 1);
  const latencyMs = int('latency', values.latency, 2000, 0);
  const seconds = int('seconds', values.seconds, 30, 1);
  const pairs = int('pairs', values.pairs, 2, 1);
  const warmup = !values['no-warmup'];
  const namespace = `reconstruct-bench-external-${Math.random().toString(36).slice(2, 7)}`;
  const client = loadClient({ userAgent: 'reconstruct-bench', maxSockets: 64 });
  const memcacheds = new Cluster(client, namespace);
  const observer = new Observer(client, namespace, reconstruct.milestones);
  const provider = await ProviderServer.start({ token: TOKEN });
  let controller: ControllerProcess | undefined;
  let idle: { url: string; stop: () => void } | undefined;
  const crd = zoneRecordKind.crd;
  const crdPath = resourcePath(CUSTOM_RESOURCE_DEFINITION, undefined, crd.metadata.name);
  const cleanUp = guard(30 * 60_000, async () => {
    await observer.stop().catch(() => undefined);
    idle?.stop();
    await controller?.stop();
    // What a failed run left: the ZoneRecords, their finalizers dropped (no controller is left to act on them).
    await new Cluster(client, namespace, zoneRecordKind)
      .wipe(60_000)
      .catch((err) => log(`deleting the ZoneRecords: ${String(err)}`));
    await memcacheds.cleanUp();
    await provider.stop();
    await client.request({ method: 'DELETE', path: crdPath }).catch((err) => {
      if (!isNotFound(err)) log(`deleting the CRD: ${String(err)}`);
    });
  });
  try {
    await memcacheds.createNamespace();
    log(`namespace ${namespace}; provider at ${provider.endpoint}`);
    await client.request(applyRequest(crdPath, crd, 'reconstruct-bench'));
    await until(
      async () => isEstablished(await client.request<KubeObject>({ method: 'GET', path: crdPath })),
      30_000,
    );
    await client.request({
      method: 'POST',
      path: resourcePath(
        { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
        namespace,
      ),
      body: providerSecret(namespace, provider, TOKEN),
    });
    const target = externalController(namespace);
    controller = await ControllerProcess.start(target, {
      namespace,
      workers: 4,
      ...(values['cpu-prof'] ? { cpuProfDir: values['cpu-prof'] } : {}),
    });
    const healthUrl = controller.launch.readyUrl.replace('/readyz', '/healthz');
    idle = await idleServer();
    await observer.start();
    await memcacheds.createMemcached(OTHER, 1);
    if (!(await until(() => observer.replicas.has(OTHER), 30_000)))
      throw new Error('no Deployment for the Memcached');
    const state: Run = {
      client,
      namespace,
      count,
      latencyMs,
      seconds,
      memcacheds,
      observer,
      provider,
      controller,
      healthUrl,
      idleUrl: idle.url,
    };
    // The first round on a fresh controller and control plane pays for their warming up (JIT, caches,
    // the first conversions), whoever runs it: an unmeasured one first.
    if (warmup) {
      log('warm-up (not measured):');
      await round({ ...state, seconds: 10 }, 'at once', 0);
    }
    const rounds: Round[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      const order: Mode[] = pair % 2 === 0 ? ['at once', 'slow'] : ['slow', 'at once'];
      for (const mode of order) rounds.push(await round(state, mode, rounds.length + 1));
    }
    process.stdout.write(`\n${report(rounds, state)}\n`);
    const errors = controller.errorLines();
    if (errors.length > 0) log(`the controller logged ${errors.length} errors, e.g. ${errors[0]}`);
    // Stopped here, once: the clean-up's signal to every controller would cut a CPU profile short.
    await controller.stop();
  } finally {
    await cleanUp();
  }
  removeControllerLogs();
  return 0;
}

const isEstablished = (crd: KubeObject) =>
  ((crd.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );

run(main);
