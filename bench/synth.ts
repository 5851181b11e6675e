/**
 * Synthesis throughput: how many custom resources per second one core turns into children, per kind, and
 * how that compares with building the same children by hand. Run with `npm run bench:synth`
 * (node --expose-gc, so that heap figures after a collection are real); `npm run bench:synth -- --phases`
 * also splits the time into App creation, building the Chart and toJson; `-- <kind>` runs only the kinds
 * whose name starts with it; `-- --validate-children` also checks every child of the kind's side against
 * the Kubernetes schemas, as offline rendering does (validateChild).
 *
 * Every resource differs from the one before (bench/synth/resources.ts), and every one gets an owner, as
 * in-cluster. Each kind has a baseline of its own (bench/synth/baselines.ts): the same children, with the
 * same fields and values, written directly with cdk8s-plus-27 and cdk8s in a fresh App, without the kit's
 * defaults, checks and policies. The ratio to it is what the kit and the construct cost over plain cdk8s.
 *
 * The kinds take turns, round after round, each kind next to its own baseline (which goes first alternates),
 * and each figure is its median round: a neighbour that takes the CPU for a moment then costs one round of
 * one kind, not the whole result. The ratio is the median of the rounds' ratios, each of a kind and its
 * baseline measured back to back, so that the load moves both sides of it alike.
 */
import { App, Chart } from 'cdk8s';
import { cpus, loadavg } from 'node:os';
import { synthCases, withChildValidation, type SynthCase } from './synth/cases';

/** Resources per round and kind. */
const COUNT = Number(process.env.BENCH_COUNT ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** V8 needs a few thousand syntheses before its optimized code settles; a controller runs far longer. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
/** Heap is sampled every this many resources: often enough to see the peak, rarely enough not to cost. */
const HEAP_SAMPLE_EVERY = 10;
/** The targets: every kind at least this fast on one core... */
const TARGET_PER_SECOND = 2000;
/** ...and at least this fraction of the rate of its own baseline, in the same rounds. */
const TARGET_OF_BASELINE = 0.8;

/** Synthesizes the `i`-th resource one way or the other; returns the children. */
type Run = (i: number) => unknown[];

interface Round {
  readonly children: number;
  /** Resources per second of wall-clock time: what a controller sees, other processes included. */
  readonly perSecond: number;
  /** Resources per second of this process's CPU time (V8's helper threads included). */
  readonly perCpuSecond: number;
  readonly latenciesMs: number[];
  readonly peakHeap: number;
}

function gc(): void {
  if (!global.gc) throw new Error('run with node --expose-gc (npm run bench:synth)');
  global.gc();
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const ms = (value: number) => value.toFixed(3);

/** The value below which `q` of the sorted `values` lie (nearest rank). */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** One round of `COUNT` resources, numbered from `first` so that no two rounds repeat a resource. */
function round(run: Run, first: number): Round {
  gc();
  let peak = process.memoryUsage().heapUsed;
  let children = 0;
  const latenciesMs = new Array<number>(COUNT);
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i++) {
    const t0 = process.hrtime.bigint();
    children += run(first + i).length;
    latenciesMs[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i % HEAP_SAMPLE_EVERY === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuStart);
  return {
    children: children / COUNT,
    perSecond: (COUNT * 1000) / elapsedMs,
    perCpuSecond: (COUNT * 1e6) / (cpu.user + cpu.system),
    latenciesMs,
    peakHeap: Math.max(peak, process.memoryUsage().heapUsed),
  };
}

/**
 * Where the time of one synthesis goes: a fresh App, the Chart with its children and ownerReferences, and
 * toJson; for the kind (`resourceChart`, without the checks `synthesize` makes on the JSON) and for its
 * baseline. Medians, so that a collection or a neighbour landing in one phase does not skew it.
 */
function phases(name: string, chartOf: (i: number) => (app: App) => Chart): string {
  const spent: Record<'app' | 'build' | 'toJson', number[]> = { app: [], build: [], toJson: [] };
  for (let i = 0; i < COUNT; i++) {
    const build = chartOf(i);
    const t0 = process.hrtime.bigint();
    const app = new App();
    const t1 = process.hrtime.bigint();
    const chart = build(app);
    const t2 = process.hrtime.bigint();
    chart.toJson();
    const t3 = process.hrtime.bigint();
    spent.app.push(Number(t1 - t0));
    spent.build.push(Number(t2 - t1));
    spent.toJson.push(Number(t3 - t2));
  }
  const us = (ns: number[]) => (median(ns) / 1e3).toFixed(1);
  return `| ${name} | ${us(spent.app)} | ${us(spent.build)} | ${us(spent.toJson)} |`;
}

/** A fresh App and an empty Chart synthesized: what every resource pays before its children (median). */
function emptyChartUs(): string {
  const times: number[] = [];
  for (let i = 0; i < COUNT; i++) {
    const t0 = process.hrtime.bigint();
    new Chart(new App(), 'resource', { disableResourceNameHashes: true }).toJson();
    times.push(Number(process.hrtime.bigint() - t0));
  }
  return (median(times) / 1e3).toFixed(1);
}

interface Measured {
  readonly kind: Round[];
  readonly baseline: Round[];
}

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** A kind's row: its rounds, its baseline's in the same rounds, their ratio, and the targets. */
function row(c: SynthCase, { kind, baseline }: Measured): { line: string; missed: boolean } {
  const rates = kind.map((r) => r.perSecond);
  const perSecond = median(rates);
  const ratios = kind.map((r, n) => r.perSecond / baseline[n].perSecond);
  const ratio = median(ratios);
  const latencies = (rounds: Round[]) => rounds.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const [own, base] = [latencies(kind), latencies(baseline)];
  const perCpuSecond = (rounds: Round[]) => Math.round(median(rounds.map((r) => r.perCpuSecond)));
  const meetsRate = perSecond >= TARGET_PER_SECOND;
  const meetsRatio = ratio >= TARGET_OF_BASELINE;
  const line =
    `| ${c.name} | ${kind[0]?.children.toFixed(1)} | ${Math.round(perSecond)} | ` +
    `${Math.round(Math.min(...rates))} | ${Math.round(Math.max(...rates))} | ` +
    `${Math.round(median(baseline.map((r) => r.perSecond)))} | **${ratio.toFixed(2)}** | ` +
    `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} | ` +
    `${perCpuSecond(kind)} / ${perCpuSecond(baseline)} | ` +
    `${ms(quantile(own, 0.5))} / ${ms(quantile(base, 0.5))} | ${ms(quantile(own, 0.99))} / ${ms(quantile(base, 0.99))} | ` +
    `${mib(Math.max(...kind.map((r) => r.peakHeap)))} | ${meetsRate ? 'met' : 'MISSED'} | ${meetsRatio ? 'met' : 'MISSED'} |`;
  return { line, missed: !meetsRate || !meetsRatio };
}

function main(): void {
  const args = process.argv.slice(2);
  const only = args.find((a) => !a.startsWith('--'));
  const validate = args.includes('--validate-children');
  const selected = (
    only ? synthCases.filter((c) => c.name.toLowerCase().startsWith(only.toLowerCase())) : synthCases
  ).map((c) => (validate ? withChildValidation(c) : c));
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `Synthesis: ${ROUNDS} rounds of ${COUNT} resources per kind and per baseline, kinds in turn, ` +
      `after ${WARMUP} warm-up each; one process${validate ? '; children validated against the Kubernetes schemas' : ''}`,
  );
  console.log(
    `Node ${process.version}, ${cpus().length} cores (${cpu}), ${process.platform}/${process.arch}`,
  );
  // Other processes on the machine show in the load average: the figures are only as quiet as it.
  console.log(`Load average at start: ${loadAverage()}`);
  console.log('');

  // Warm-up uses resources numbered past the measured ones.
  const warmupFirst = COUNT * ROUNDS;
  for (const c of selected) {
    for (let i = 0; i < WARMUP; i++) {
      c.synthesize(warmupFirst + i);
      c.baseline(warmupFirst + i);
    }
  }

  const measured = new Map<SynthCase, Measured>(selected.map((c) => [c, { kind: [], baseline: [] }]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of selected) {
      const m = measured.get(c);
      if (!m) continue;
      // A kind and its baseline back to back, taking turns at going first, on the same resources.
      const pair: [Round[], Run][] = [
        [m.kind, c.synthesize],
        [m.baseline, c.baseline],
      ];
      if (r % 2 === 1) pair.reverse();
      for (const [results, run] of pair) results.push(round(run, r * COUNT));
    }
  }

  console.log(
    '| Kind | Children | Resources/s (median round) | Slowest round | Fastest round | ' +
      'Own baseline, resources/s (median round) | x own baseline (median of rounds) | x own baseline, rounds | ' +
      'Resources/CPU-s, kind / baseline | Median (ms), kind / baseline | p99 (ms), kind / baseline | ' +
      `Peak heap (MiB) | ${TARGET_PER_SECOND}/s | ${TARGET_OF_BASELINE}x own baseline |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
  let missed = false;
  for (const c of selected) {
    const m = measured.get(c);
    if (!m) continue;
    const { line, missed: missedHere } = row(c, m);
    console.log(line);
    missed ||= missedHere;
  }
  gc();
  console.log('');
  console.log(`Heap after the run and a global gc: ${mib(process.memoryUsage().heapUsed)} MiB.`);
  console.log(`Load average at end: ${loadAverage()}`);
  console.log(
    `Targets: at least ${TARGET_PER_SECOND} resources/s per kind on one core, and at least ` +
      `${TARGET_OF_BASELINE}x the kind's own baseline in the same rounds.`,
  );

  if (args.includes('--phases')) {
    console.log('');
    console.log(`Phases, microseconds per resource (median of ${COUNT}):`);
    console.log(`- fresh App + empty Chart + toJson: ${emptyChartUs()}`);
    console.log('');
    console.log('| Kind | new App() | build: Chart, children, owner | chart.toJson() |');
    console.log('|---|---:|---:|---:|');
    for (const c of selected) {
      console.log(phases(c.name, (i) => c.charts(i).kind));
      console.log(phases(`${c.name} baseline`, (i) => c.charts(i).baseline));
    }
  }
  // A missed target is a finding, not a crash: the figures are printed and the exit code says it.
  if (missed) process.exitCode = 1;
}

main();
