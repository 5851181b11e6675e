/**
 * The report of bench:peer: per count, one table of the figures of reconstruct and of the Go peer (medians of
 * their runs), their ratio, and the Go peer with as many workers as reconstruct.
 */
import type { CpuSpent } from './proc';
import type { Results } from './report';
import { median } from './support';

/** One run's figures, and which column they go to. */
export interface PeerRun {
  count: number;
  column: 'reconstruct' | 'peer' | 'peer4';
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
  figure('RSS at start', 'MB', 0, (r) => num(r.idleRssMB)),
  figure('peak RSS', 'MB', 0, (r) => num(r.peakRssMB)),
  figure('RSS idle, all converged', 'MB', 0, (r) => num(r.idleRssAfterMB)),
  figure('single update -> Deployment replicas, median', 'ms', 1, (r) => num(r.updateLatencyMedianMs)),
  figure('single update -> Deployment replicas, p90', 'ms', 1, (r) => num(r.updateLatencyP90Ms)),
  figure('idle: CPU', 's', 2, (r) => num(r.idleCpuSeconds)),
  figure('idle: reconciles', '', 0, (r) => num(r.idleReconciles)),
  figure('idle: writes', '', 0, (r) => num(r.idleWrites)),
  figure('idle, the next window: CPU', 's', 2, (r) => num(r.idleSecondCpuSeconds)),
  figure('idle, the next window: reconciles', '', 0, (r) => num(r.idleSecondReconciles)),
  figure('idle, the next window: writes', '', 0, (r) => num(r.idleSecondWrites)),
];

/** The median of a figure over the runs of one column; NaN without runs. */
export function columnValue(runs: PeerRun[], column: PeerRun['column'], figure: Figure): number {
  const values = runs.filter((x) => x.column === column).map((x) => figure.value(x.results));
  return values.length === 0 ? NaN : median(values);
}

/** The table of one count. */
export function peerTable(count: number, runs: PeerRun[], idleSeconds: number): string {
  const mine = runs.filter((x) => x.count === count);
  const of = (column: PeerRun['column']) => mine.filter((x) => x.column === column);
  const text = (v: number, f: Figure) =>
    Number.isFinite(v) ? `${v.toFixed(f.digits)}${f.unit ? ` ${f.unit}` : ''}` : 'n/a';
  const ratio = (a: number, b: number) =>
    Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? (a / b).toFixed(2) : '-';
  const workers = (column: PeerRun['column']) => of(column)[0]?.workers ?? '?';
  const rows: string[][] = [
    [
      `N = ${count}`,
      `reconstruct (${workers('reconstruct')} workers, median of ${of('reconstruct').length})`,
      `Go peer (${workers('peer')} worker, median of ${of('peer').length})`,
      'ratio',
      `Go peer, ${workers('peer4')} workers`,
    ],
    ...FIGURES.map((f) => {
      const [r, p, p4] = (['reconstruct', 'peer', 'peer4'] as const).map((c) => columnValue(mine, c, f));
      const label = f.label.startsWith('idle:')
        ? `${f.label} over ${idleSeconds} s, all converged`
        : f.label.startsWith('idle, the next window:')
          ? `${f.label} of ${idleSeconds} s`
          : f.label;
      return [label, text(r, f), text(p, f), ratio(r, p), text(p4, f)];
    }),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const lastDeployment = (column: PeerRun['column']) =>
    of(column)
      .map((x) => FIGURES[0].value(x.results).toFixed(1))
      .join(', ');
  return [
    line(rows[0]),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.slice(1).map(line),
    '',
    `runs, time to the last Deployment (s), in order: reconstruct ${lastDeployment('reconstruct')}; ` +
      `Go peer ${lastDeployment('peer')}; Go peer, ${workers('peer4')} workers ${lastDeployment('peer4')}`,
  ].join('\n');
}
