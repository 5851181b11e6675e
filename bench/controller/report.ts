/**
 * The report of a run: the figures the phases recorded, as one table on stdout (the JSON file holds them
 * all, by name).
 */
import { cpus, totalmem } from 'node:os';
import type { ControllerUnderTest } from './controller-under-test';
import { budgetRows } from './budget';
import type { CpuSpent } from './proc';
import type { Settings } from './settings';
import { median } from './support';

/** The figures of a run, by name: what the phases record and the table and the JSON print. */
export interface Results {
  [key: string]: unknown;
}

/** The table: the figures of a run, with what each is compared with. */
export function report(s: Settings, r: Results, target: ControllerUnderTest): string {
  const n = (v: unknown, digits = 0) =>
    typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : 'n/a';
  const yes = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const pairs = r.overheadPairs as [number, number][];
  const ratios = pairs.map(([c, d]) => c / d);
  const ratio = median(ratios);
  r.overheadRatios = ratios;
  r.overheadRatio = ratio;
  const rows: [string, string, string][] = [
    [
      'resources (Memcached, size ' + s.size + ')',
      String(s.count),
      `${s.concurrency} creates in flight, ${s.workers} workers`,
    ],
    [
      'controller: all children applied',
      `${n(r.controllerAppliedSeconds, 2)} s`,
      `creates done at ${n(r.controllerCreateSeconds, 2)} s`,
    ],
    [
      'controller: all Ready',
      `${n(r.readySeconds, 1)} s`,
      `${String(r.readyCount)}/${s.count} Ready (pods via kube-controller-manager, kwok)`,
    ],
    ['controller: create -> children applied, median', `${n(r.controllerLatencyMedianMs)} ms`, ''],
    [
      'controller: create -> children applied, p99',
      `${n(r.controllerLatencyP99Ms)} ms`,
      `max ${n(r.controllerLatencyMaxMs)} ms`,
    ],
    [
      'baseline loop: all children applied',
      `${n(r.directAppliedSeconds, 2)} s`,
      `creates done at ${n(r.directCreateSeconds, 2)} s`,
    ],
    [
      'baseline loop: create -> children applied, median',
      `${n(r.directLatencyMedianMs)} ms`,
      `p99 ${n(r.directLatencyP99Ms)} ms`,
    ],
    [
      'baseline loop: time per resource (mean)',
      `${n(r.directItemMeanMs, 1)} ms`,
      `synthesize + both applies in parallel; apply latency mean ${n(r.directApplyMeanMs, 1)} ms`,
    ],
    [
      `overhead: controller / baseline, median of ${pairs.length}`,
      n(ratio, 2),
      `target <= 1.3: ${yes(ratio <= 1.3)}; pairs (s): ${pairs
        .map(([c, d]) => `${n(c, 1)}/${n(d, 1)}`)
        .join(', ')}`,
    ],
    [
      `API writes per resource (${s.overheadOnly ? 'until children applied' : 'until Ready, settled'})`,
      n(r.writesPerResource, 2),
      verbs(r.writesByVerb as Record<string, number>),
    ],
    ['  of which until children applied', n(r.writesPerResourceUntilApplied, 2), ''],
    [
      '  status changes seen per resource',
      n(r.statusChangesPerResource, 2),
      'Memcached updates that changed .status (each one a status write)',
    ],
    [
      'API reads per resource',
      n((r.readsPerResource as { get: number }).get, 2),
      'GET (a child missing from the cache is read first); ' +
        `LIST ${n((r.readsPerResource as { list?: number }).list ?? 0, 2)} (a stuck child's pods and events, on demand)`,
    ],
    [
      'reconciles per resource',
      n(r.reconcilesPerResource, 2),
      `until children applied ${n(r.reconcilesPerResourceUntilApplied, 2)}; errors ${n(r.reconcileErrors)}; ` +
        `non-2xx: ${codes(r.non2xx as Record<string, number>)}`,
    ],
    ...wakeupRows(r),
    [
      'reconcile duration while creating (median / p99)',
      `${n(r.reconcileMedianMsUntilApplied, 1)} / ${n(r.reconcileP99MsUntilApplied)} ms`,
      `mean over the phase ${n(r.reconcileMeanMs, 1)} ms`,
    ],
    [
      'controller API latency while creating (mean)',
      `patch ${n(r.patchMeanMsUntilApplied, 1)} ms`,
      `get ${n(r.getMeanMsUntilApplied, 1)} ms, create ${n(r.createMeanMsUntilApplied, 1)} ms`,
    ],
    [
      'controller CPU until children applied',
      `${n(r.cpuSecondsUntilApplied, 2)} s`,
      `until Ready and settled ${n(r.cpuSecondsUntilReady, 2)} s`,
    ],
    [
      'controller peak RSS (VmHWM)',
      `${n(r.peakRssMB, 1)} MB`,
      `idle ${n(r.idleRssMB, 1)}, after Ready ${n(r.rssAfterReadyMB, 1)} MB (V8 heap ${heapText(r.heapAfterReadyMB)})${s.count >= 1000 ? `; target < 150 MB: ${yes(Number(r.peakRssMB) < 150)}` : ''}`,
    ],
    [
      'single update -> Deployment replicas, median',
      `${n(r.updateLatencyMedianMs, 1)} ms`,
      `p90 ${n(r.updateLatencyP90Ms, 1)}, min ${n(r.updateLatencyMinMs, 1)} ms, ${s.updates} updates (median up ${n(r.updateUpMedianMs, 1)}, down ${n(r.updateDownMedianMs, 1)} ms); target < 100 ms: ${yes(Number(r.updateLatencyMedianMs) < 100)}`,
    ],
    [
      '  floor: patch + direct apply, median',
      `${n(r.floorUpdateLatencyMedianMs, 1)} ms`,
      `reconcile median in the update phase ${n(r.updateReconcileMedianMs, 1)} ms; per update ` +
        `${n(r.updateReconcilesPerUpdate, 1)} reconciles, ${n(r.updateWritesPerUpdate, 1)} writes`,
    ],
    [
      'restart: writes at start-up',
      n(r.restartWrites),
      `ready (caches synced) in ${n(r.restartReadySeconds, 2)} s`,
    ],
    [
      `steady state: writes over 2 resyncs of ${s.resyncSeconds} s`,
      n(r.resyncWrites),
      `${n(r.resyncReconciles)} reconciles, ${n(r.resyncReads)} reads; target 0: ${yes(r.resyncWrites === 0 && Number(r.resyncReconciles) >= s.count)}`,
    ],
    ['steady state: CPU per resync of all', `${n(r.resyncCpuSecondsPerPeriod, 2)} s`, ''],
    [
      'steady state: RSS',
      `${n(r.steadyRssMB, 1)} MB`,
      `peak ${n(r.steadyPeakRssMB, 1)} MB; V8 heap ${heapText(r.steadyHeapMB)}`,
    ],
  ];
  rows.push(...budgetRows(r, s.count, s.overheadOnly ? 0 : s.updates));
  rows.push(...cpuRows(r, pairs));
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) =>
    row
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    `controller benchmark: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; ${target.about}`,
    '',
    ...rows.map(line),
    '',
    "applied = seen by the bench's own watch; latency from the create's response; overhead compares the time from the",
    "first create sent to the last child applied, controller vs. a minimal loop given each create's response (same",
    `creates, ${s.workers} workers applying each resource's children in parallel, synthesize() included).`,
  ].join('\n');
}

/** CPU per process until the children were applied, summed over the pairs: controller runs / baseline runs. */
function cpuRows(r: Results, pairs: [number, number][]): [string, string, string][] {
  // Without a baseline (--no-baseline) its side is missing: 0 s, shown as such.
  const cpuPairs = r.cpuPairs as [CpuSpent | undefined, CpuSpent | undefined][];
  const total = (side: 0 | 1, name: string) =>
    cpuPairs.reduce((sum, pair) => sum + (pair[side]?.[name] ?? 0), 0);
  const names = [
    ...new Set(cpuPairs.flatMap(([c, d]) => [...Object.keys(c ?? {}), ...Object.keys(d ?? {})])),
  ];
  if (names.length === 0) return [];
  const seconds = (side: 0 | 1) => pairs.reduce((sum, pair) => sum + pair[side], 0);
  const busy = (side: 0 | 1) => names.reduce((sum, name) => sum + total(side, name), 0) / seconds(side);
  return [
    [
      `CPU until children applied, ${pairs.length} pair(s): controller / baseline runs`,
      `${busy(0).toFixed(2)} / ${busy(1).toFixed(2)} cores`,
      `busy on average over ${seconds(0).toFixed(1)} / ${seconds(1).toFixed(1)} s`,
    ],
    ...names.map((name): [string, string, string] => [
      `  ${name}`,
      `${total(0, name).toFixed(1)} / ${total(1, name).toFixed(1)} s`,
      '',
    ]),
  ];
}

function codes(byCode: Record<string, number> | undefined): string {
  const entries = Object.entries(byCode ?? {});
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k} x${v}`).join(', ');
}

function verbs(byVerb: Record<string, number> | undefined): string {
  if (!byVerb) return '';
  return Object.entries(byVerb)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');
}

function heapText(heap: unknown): string {
  const h = heap as { used: number; total: number } | undefined;
  return h ? `${h.used.toFixed(0)} used / ${h.total.toFixed(0)} MB` : 'n/a';
}

/** What woke each resource (watch events that enqueued it) and its own writes heard back, per resource. */
function wakeupRows(r: Results): [string, string, string][] {
  const woke = (r.wakeupsPerResource ?? {}) as Record<string, number>;
  const echoes = (r.echoesPerResource ?? {}) as Record<string, number>;
  if (Object.keys(woke).length === 0) return [];
  const total = (x: Record<string, number>) => Object.values(x).reduce((a, b) => a + b, 0);
  const list = (x: Record<string, number>) =>
    Object.entries(x)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ');
  return [
    ['  watch events that woke it, per resource', total(woke).toFixed(2), list(woke)],
    ['  its own writes heard back (echoes)', total(echoes).toFixed(2), list(echoes) || 'none'],
  ];
}
