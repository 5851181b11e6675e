/**
 * The report of bench:peer: per count, one table of the figures of reconstruct and of its peers (medians of
 * their runs): the Go peer with its defaults and with as many workers as reconstruct, kro with its defaults
 * and tuned (those workers, a client QPS that never throttles), and reconstruct's ratio to each.
 */
import type { CpuSpent } from './proc';
import type { Results } from './report';
import { median } from './support';

/** The table's columns: reconstruct, then each peer in its two configurations. */
export type Column = 'reconstruct' | 'http1' | 'peer' | 'peer4' | 'kro' | 'kroTuned';

/** A peer's column header, and whether reconstruct's ratio to it is given beside it. */
const PEERS: { column: Exclude<Column, 'reconstruct'>; title: (workers: string | number) => string }[] = [
  { column: 'http1', title: (w) => `reconstruct over HTTP/1.1 (${w} workers)` },
  { column: 'peer', title: (w) => `Go peer (${w} worker)` },
  { column: 'peer4', title: (w) => `Go peer, ${w} workers` },
  { column: 'kro', title: (w) => `kro (${w} worker)` },
  { column: 'kroTuned', title: (w) => `kro, ${w} workers, QPS 1000` },
];

/** One run's figures, and which column they go to. */
export interface PeerRun {
  count: number;
  column: Column;
  controller: string;
  workers: number;
  results: Results;
}

interface Figure {
  label: string;
  unit: string;
  digits: number;
  value(r: Results): number;
}

const num = (v: unknown) => (typeof v === 'number' ? v : NaN);
const perResource = (r: Results, x: number) => x / num(r.count);

/** Requests answered 409 Conflict, from the phase's "verb code" counts. */
const conflicts = (r: Results) =>
  Object.entries((r.non2xx as Record<string, number> | undefined) ?? {})
    .filter(([key]) => key.endsWith(' 409'))
    .reduce((sum, [, v]) => sum + v, 0);

const figure = (label: string, unit: string, digits: number, value: (r: Results) => number): Figure => ({
  label,
  unit,
  digits,
  value,
});
/** CPU seconds of the named processes (see proc.ts) from the first create to the last Deployment. */
const burstCpu =
  (...names: string[]) =>
  (r: Results): number => {
    const spent = r.controllerCpuUntilApplied as CpuSpent | undefined;
    return spent ? names.reduce((sum, name) => sum + num(spent[name] ?? 0), 0) : NaN;
  };
const cpuInBurst = burstCpu('controller');
/** The control plane: a controller's requests cost it, and a Service costs kube-controller-manager more. */
const CONTROL_PLANE_CPU = ['kube-apiserver', 'etcd', 'kube-controller', 'kube-scheduler', 'kwok-controller'];
const gets = (r: Results) => num((r.readsPerResource as { get?: number } | undefined)?.get);

export const FIGURES: Figure[] = [
  figure('time to the last Deployment', 's', 2, (r) => num(r.controllerAppliedSeconds)),
  figure('create to Deployment, median resource', 's', 2, (r) => num(r.controllerLatencyMedianMs) / 1000),
  figure('time to all Ready (Deployment readyReplicas == size)', 's', 1, (r) => num(r.readySeconds)),
  figure('controller CPU during the burst (to the last Deployment)', 's', 2, cpuInBurst),
  figure('control plane CPU during the burst', 's', 1, burstCpu(...CONTROL_PLANE_CPU)),
  figure('  of which kube-apiserver', 's', 1, burstCpu('kube-apiserver')),
  figure('  of which kube-controller-manager', 's', 1, burstCpu('kube-controller')),
  figure('API writes per resource (until all Ready, settled)', '', 2, (r) => num(r.writesPerResource)),
  figure('API reads (GET) per resource', '', 2, gets),
  figure('conflicts (409) per resource', '', 2, (r) => perResource(r, conflicts(r))),
  figure('reconciles per resource in the burst', '', 1, (r) => num(r.reconcilesPerResourceUntilApplied)),
  figure('reconciles per resource until all Ready, settled', '', 2, (r) => num(r.reconcilesPerResource)),
  figure('RSS at start', 'MB', 0, (r) => num(r.idleRssMB)),
  figure('peak RSS', 'MB', 0, (r) => num(r.peakRssMB)),
  figure('RSS idle, all converged', 'MB', 0, (r) => num(r.idleRssAfterMB)),
  figure('single update -> Deployment replicas, median', 'ms', 1, (r) => num(r.updateLatencyMedianMs)),
  figure('single update -> Deployment replicas, p90', 'ms', 1, (r) => num(r.updateLatencyP90Ms)),
  figure('  of which size + 1, median', 'ms', 1, (r) => num(r.updateUpMedianMs)),
  figure('  of which size - 1, median', 'ms', 1, (r) => num(r.updateDownMedianMs)),
  figure('idle: CPU', 's', 2, (r) => num(r.idleCpuSeconds)),
  figure('idle: reconciles', '', 0, (r) => num(r.idleReconciles)),
  figure('idle: writes', '', 0, (r) => num(r.idleWrites)),
  figure('idle, the next window: CPU', 's', 2, (r) => num(r.idleSecondCpuSeconds)),
  figure('idle, the next window: reconciles', '', 0, (r) => num(r.idleSecondReconciles)),
  figure('idle, the next window: writes', '', 0, (r) => num(r.idleSecondWrites)),
];

/** The median of a figure over the runs of one column; NaN without runs. */
export function columnValue(runs: PeerRun[], column: Column, figure: Figure): number {
  const values = runs.filter((x) => x.column === column).map((x) => figure.value(x.results));
  return values.length === 0 ? NaN : median(values);
}

/** reconstruct's figure over the peer's, two digits; '-' where either is missing or the peer's is 0. */
export function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? (a / b).toFixed(2) : '-';
}

/** The table of one count: a column per configuration that ran, reconstruct's ratio after each peer's. */
export function peerTable(count: number, runs: PeerRun[], idleSeconds: number): string {
  const mine = runs.filter((x) => x.count === count);
  const of = (column: Column) => mine.filter((x) => x.column === column);
  const text = (v: number, f: Figure) =>
    Number.isFinite(v) ? `${v.toFixed(f.digits)}${f.unit ? ` ${f.unit}` : ''}` : 'n/a';
  const workers = (column: Column) => of(column)[0]?.workers ?? '?';
  const medianOf = (column: Column) => (of(column).length > 1 ? `, median of ${of(column).length}` : '');
  const peers = PEERS.filter((p) => of(p.column).length > 0);
  const rows: string[][] = [
    [
      `N = ${count}`,
      `reconstruct (${workers('reconstruct')} workers${medianOf('reconstruct')})`,
      ...peers.flatMap((p) => [`${p.title(workers(p.column))}${medianOf(p.column)}`, 'ratio']),
    ],
    ...FIGURES.map((f) => {
      const r = columnValue(mine, 'reconstruct', f);
      const label = f.label.startsWith('idle:')
        ? `${f.label} over ${idleSeconds} s, all converged`
        : f.label.startsWith('idle, the next window:')
          ? `${f.label} of ${idleSeconds} s`
          : f.label;
      return [
        label,
        text(r, f),
        ...peers.flatMap((p) => {
          const v = columnValue(mine, p.column, f);
          return [text(v, f), ratio(r, v)];
        }),
      ];
    }),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const lastDeployment = (column: Column) =>
    of(column)
      .map((x) => FIGURES[0].value(x.results).toFixed(1))
      .join(', ');
  const inOrder = [
    `reconstruct ${lastDeployment('reconstruct')}`,
    ...peers.map((p) => `${p.title(workers(p.column))} ${lastDeployment(p.column)}`),
  ];
  return [
    line(rows[0]),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.slice(1).map(line),
    '',
    `runs, time to the last Deployment (s), in order: ${inOrder.join('; ')}`,
  ].join('\n');
}
