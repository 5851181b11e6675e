/**
 * The phases that run the controller under test: creation (controller A, then its single updates, then, when
 * asked, a quiet minute) and the steady state (controller B, restarted with a short resync). See main.ts and
 * peer.ts for what each measures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '../../../controller/abortable';
import type { Cluster } from '../cluster';
import { ControllerProcess } from '../controller-process';
import type { ControllerUnderTest } from '../controller-under-test';
import { WRITE_VERBS, reconcileMeanMs, reconcileQuantileMs, requestMeanMs, type Snapshot } from '../metrics';
import { cpuSnapshot, cpuSpent } from '../proc';
import type { Results } from '../report';
import type { Settings } from '../settings';
import { log, now, quantile, until } from '../support';
import { type Workload, createAll, patchNextSize, readyAgain, updateTargets } from './workload';

const KiB_TO_MB = 1024 / 1e6;

/**
 * The monotonic clock in µs: the clock of V8's CPU profiles (their startTime and samples), so that the
 * profile of controller A can be cut into the bench's phases (bench/profile-phases.ts --window).
 */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Where each phase of controller A began and ended, on the profile's clock: `windows.json` beside it. */
export type ProfileWindows = Record<'burst' | 'untilReady' | 'updates', [number, number]>;

/** No resync during a phase: a day. */
const NO_RESYNC = 86_400;

export async function controllerPhase(
  w: Workload,
  target: ControllerUnderTest,
  s: Settings,
  r: Results,
): Promise<void> {
  const { cluster, observer, names } = w;
  if (s.cpuProfDir) mkdirSync(s.cpuProfDir, { recursive: true });
  const resync = s.ownResync ? 'its own resync period' : 'no resync during the phase';
  log(`controller A: --workers ${s.workers}, ${resync}${s.cpuProfDir ? ', --cpu-prof' : ''}`);
  const a = await ControllerProcess.start(target, {
    namespace: cluster.namespace,
    workers: s.workers,
    resyncSeconds: s.ownResync ? undefined : NO_RESYNC,
    cpuProfDir: s.cpuProfDir,
  });
  let progress: NodeJS.Timeout | undefined;
  try {
    r.idleRssMB = a.rssKiB * KiB_TO_MB;
    const m0 = await a.metrics();
    log(`creating ${s.count} Memcached resources, ${s.concurrency} requests in flight`);
    const t0 = now();
    const us0 = monotonicUs();
    const cpu0 = cpuSnapshot(a.proc.pid);
    progress = setInterval(() => {
      const withChildren = names.filter((n) => observer.childrenApplied(n) !== undefined).length;
      log(
        `  ${((now() - t0) / 1000).toFixed(0)} s: ${observer.created.size} created, ` +
          `${withChildren} with children applied, ${observer.readyAt.size} Ready`,
      );
    }, 15_000);
    await createAll(w, s);
    r.controllerCreateSeconds = (now() - t0) / 1000;
    const applied = await until(
      () => names.every((n) => observer.childrenApplied(n) !== undefined),
      60_000 + 200 * s.count,
    );
    const missing = names.filter((n) => observer.childrenApplied(n) === undefined).length;
    if (!applied) throw new Error(`children of ${missing} resources not applied in time`);
    const tApplied = observer.lastChildApplied(names);
    const windows: Partial<ProfileWindows> = { burst: [us0, monotonicUs()] };
    r.controllerCpuUntilApplied = cpuSpent(cpu0, cpuSnapshot(a.proc.pid));
    r.controllerAppliedSeconds = (tApplied - t0) / 1000;
    const lat = observer.latencies(names);
    r.controllerLatencyMedianMs = quantile(lat, 0.5);
    r.controllerLatencyP99Ms = quantile(lat, 0.99);
    r.controllerLatencyMaxMs = quantile(lat, 1);
    r.rssAtAppliedMB = a.rssKiB * KiB_TO_MB;
    const mApplied = await a.metrics();
    log(`children of all ${s.count} applied after ${(r.controllerAppliedSeconds as number).toFixed(1)} s`);

    if (!s.overheadOnly) {
      log('waiting for Ready');
      const readyTimeout = 120_000 + 600 * s.count * Math.max(1, s.size);
      const allReady = await until(() => observer.readyAt.size >= s.count, readyTimeout, 250);
      r.readyCount = observer.readyAt.size;
      r.readySeconds = allReady ? (Math.max(...observer.readyAt.values()) - t0) / 1000 : NaN;
      if (!allReady) log(`only ${observer.readyAt.size}/${s.count} Ready after ${readyTimeout / 1000} s`);
      const settled = await a.settle(3000, 120_000);
      if (!settled) log('controller A still writing 120 s after the last resource became Ready');
      windows.untilReady = [us0, monotonicUs()];
    }
    const m1 = await a.metrics();
    r.peakRssMB = a.peakRssKiB * KiB_TO_MB;
    r.rssAfterReadyMB = a.rssKiB * KiB_TO_MB;
    r.heapAfterReadyMB = m1.heapMB();

    const per = (x: number) => x / s.count;
    const verb = (v: string) => per(m1.requests([v]) - m0.requests([v]));
    r.writesPerResource = per(m1.writes() - m0.writes());
    r.writesByVerb = Object.fromEntries(WRITE_VERBS.map((v) => [v, verb(v)]));
    r.readsPerResource = { get: verb('get'), list: verb('list') };
    r.writesPerResourceUntilApplied = per(mApplied.writes() - m0.writes());
    const failed0 = m0.failedRequests();
    r.non2xx = Object.fromEntries(
      [...m1.failedRequests()]
        .map(([k, v]) => [k, v - (failed0.get(k) ?? 0)])
        .filter(([, v]) => Number(v) > 0),
    );
    r.statusChangesPerResource = per(observer.statusChanges);
    r.reconcilesPerResourceUntilApplied = per(mApplied.reconciles() - m0.reconciles());
    r.reconcilesPerResource = per(m1.reconciles() - m0.reconciles());
    r.wakeupsPerResource = wakeups(m0, m1, 'enqueued', s.count);
    r.echoesPerResource = wakeups(m0, m1, 'echo', s.count);
    r.reconcileErrors = m1.reconcileErrors() - m0.reconcileErrors();
    r.reconcileMedianMsUntilApplied = reconcileQuantileMs(m0, mApplied, 0.5);
    r.reconcileP99MsUntilApplied = reconcileQuantileMs(m0, mApplied, 0.99);
    r.reconcileMeanMs = reconcileMeanMs(m0, m1);
    r.patchMeanMsUntilApplied = requestMeanMs(m0, mApplied, 'patch');
    r.getMeanMsUntilApplied = requestMeanMs(m0, mApplied, 'get');
    r.createMeanMsUntilApplied = requestMeanMs(m0, mApplied, 'create');
    r.cpuSecondsUntilApplied = mApplied.cpuSeconds() - m0.cpuSeconds();
    r.cpuSecondsUntilReady = m1.cpuSeconds() - m0.cpuSeconds();
    r.eventLoopLagP99Ms = m1.eventLoopLagP99Ms();

    clearInterval(progress);
    if (!s.overheadOnly) {
      const updates0 = monotonicUs();
      await updatePhase(w, s, r, a);
      windows.updates = [updates0, monotonicUs()];
    }
    if (s.cpuProfDir) writeFileSync(join(s.cpuProfDir, 'windows.json'), `${JSON.stringify(windows)}\n`);
    if (!s.overheadOnly && s.idleSeconds) await idlePhase(s.idleSeconds, r, a);
  } finally {
    clearInterval(progress);
    r.peakRssMB = Math.max(Number(r.peakRssMB ?? 0), a.peakRssKiB * KiB_TO_MB);
    await a.stop();
    const errors = a.errorLines();
    r.controllerErrorLines = errors.length;
    if (errors.length > 0)
      log(
        `controller A logged ${errors.length} errors (${a.logFile}); the last:\n${errors.slice(-5).join('\n')}`,
      );
  }
}

/**
 * Per resource, the watch events that woke a resource (`enqueued`) or were its own writes coming back
 * (`echo`), by `resource event`; reconstruct's own metric, none for another controller.
 */
function wakeups(m0: Snapshot, m1: Snapshot, result: string, count: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { labels, value } of m1.series(WATCH_EVENTS)) {
    if (labels.result !== result) continue;
    const key = `${labels.resource} ${labels.event}`;
    const before = m0.sum(
      WATCH_EVENTS,
      (l) => l.resource === labels.resource && l.event === labels.event && l.result === result,
    );
    out[key] = (out[key] ?? 0) + (value - before) / count;
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v > 0));
}

/** reconstruct's counter of watch events, by resource, event and result. */
const WATCH_EVENTS = 'reconstruct_watch_events_total';

async function updatePhase(w: Workload, s: Settings, r: Results, a: ControllerProcess): Promise<void> {
  if (s.updates === 0) return;
  log(`${s.updates} single updates, one at a time, on an idle cluster`);
  const m0 = await a.metrics();
  const cpu0 = cpuSnapshot(a.proc.pid);
  const latencies: number[] = [];
  const byDirection: Record<'up' | 'down', number[]> = { up: [], down: [] };
  let timeouts = 0;
  // Half of them one size up, then the same resources back down (scaling down measured as well).
  const targets = updateTargets(w.names, Math.ceil(s.updates / 2));
  const steps = [...targets.map((name) => [name, 1] as const), ...targets.map((name) => [name, -1] as const)];
  for (const [name, delta] of steps.slice(0, s.updates)) {
    const { started, patched, seen } = await patchNextSize(w, name, s, delta);
    if (await seen) {
      latencies.push(now() - started);
      byDirection[delta > 0 ? 'up' : 'down'].push(now() - started);
    } else timeouts++;
    // Idle again before the next one: the resource Ready at its new spec, and no writes for 500 ms.
    await readyAgain(w, patched);
    await a.settle(500, 10_000);
  }
  const m1 = await a.metrics();
  r.updateCpu = cpuSpent(cpu0, cpuSnapshot(a.proc.pid));
  r.updateUpMedianMs = quantile(byDirection.up, 0.5);
  r.updateDownMedianMs = quantile(byDirection.down, 0.5);
  r.updateLatencyMedianMs = quantile(latencies, 0.5);
  r.updateLatencyP90Ms = quantile(latencies, 0.9);
  r.updateLatencyMinMs = quantile(latencies, 0);
  r.updateTimeouts = timeouts;
  r.updateReconcileMedianMs = reconcileQuantileMs(m0, m1, 0.5);
  r.updateWritesPerUpdate = (m1.writes() - m0.writes()) / s.updates;
  r.updateReconcilesPerUpdate = (m1.reconciles() - m0.reconciles()) / s.updates;
}

/** The controller left alone once everything converged: what it still spends and sends. */
async function idlePhase(seconds: number, r: Results, a: ControllerProcess): Promise<void> {
  const settled = await a.settle(3000, 120_000);
  if (!settled) log('controller A still writing 120 s after the updates');
  // Two windows back to back: the first begins as the work ends, when a runtime may still tidy up after
  // it (V8's memory reducer compacts the heap once allocation stops); the second is the steady state.
  for (const window of ['', 'Second'] as const) {
    log(`${seconds} s idle${window ? ', a second window' : ''}`);
    const m0 = await a.metrics();
    const cpu0 = cpuSnapshot(a.proc.pid);
    await sleep(seconds * 1000);
    const m1 = await a.metrics();
    r[`idle${window}WindowSeconds`] = (m1.at - m0.at) / 1000;
    r[`idle${window}CpuSeconds`] = cpuSpent(cpu0, cpuSnapshot(a.proc.pid)).controller;
    r[`idle${window}Reconciles`] = m1.reconciles() - m0.reconciles();
    r[`idle${window}Writes`] = m1.writes() - m0.writes();
    r[`idle${window}Reads`] = m1.requests(['get', 'list']) - m0.requests(['get', 'list']);
    r[`idle${window}RssAfterMB`] = a.rssKiB * KiB_TO_MB;
  }
}

export async function steadyPhase(
  cluster: Cluster,
  target: ControllerUnderTest,
  s: Settings,
  r: Results,
): Promise<void> {
  log(`controller B: restarted with --resync ${s.resyncSeconds}`);
  const started = now();
  const b = await ControllerProcess.start(target, {
    namespace: cluster.namespace,
    workers: s.workers,
    resyncSeconds: s.resyncSeconds,
  });
  try {
    r.restartReadySeconds = (now() - started) / 1000;
    // Settled: the start-up pass over every resource done, then no write for 3 s.
    await until(async () => (await b.metrics()).reconciles() >= s.count, 120_000, 250);
    const settled = await b.settle(3000, 120_000);
    if (!settled) log('controller B did not settle within 120 s');
    const m0 = await b.metrics();
    r.restartWrites = m0.writes();
    const periods = 2;
    await sleep(periods * s.resyncSeconds * 1000 + 1000);
    const m1 = await b.metrics();
    r.resyncWindowSeconds = (m1.at - m0.at) / 1000;
    r.resyncWrites = m1.writes() - m0.writes();
    r.resyncReconciles = m1.reconciles() - m0.reconciles();
    r.resyncReads = m1.requests(['get', 'list']) - m0.requests(['get', 'list']);
    r.resyncCpuSecondsPerPeriod =
      ((m1.cpuSeconds() - m0.cpuSeconds()) / (r.resyncWindowSeconds as number)) * s.resyncSeconds;
    r.steadyRssMB = b.rssKiB * KiB_TO_MB;
    r.steadyPeakRssMB = b.peakRssKiB * KiB_TO_MB;
    r.steadyHeapMB = m1.heapMB();
  } finally {
    await b.stop();
  }
}
