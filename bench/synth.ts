/**
 * Synthesis throughput: how many custom resources per second one core turns into children, per kind.
 * Run with `npm run bench:synth` (node --expose-gc, so that heap figures after a collection are real);
 * `npm run bench:synth -- --phases` also splits the time into App creation, construct building and toJson.
 *
 * Every resource differs from the one before (name, namespace, spec shape), as in a controller that
 * reconciles many objects, and every one gets an owner, as in-cluster. A baseline row synthesizes a bare
 * cdk8s-plus-27 Deployment and Service in a fresh App: the floor any construct built on them starts from.
 *
 * The kinds take turns, round after round, and each kind's figure is its median round: a neighbour that
 * takes the CPU for a moment then costs one round of one kind, not the whole result.
 */
import { App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { cpus, loadavg } from 'node:os';
import {
  balancerKind,
  databaseManagerKind,
  memcachedKind,
  mysqlClusterKind,
  nodePoolKind,
  resourceChart,
  synthesize,
  type BalancerSpec,
  type CustomResource,
  type DatabaseManagerSpec,
  type Kind,
  type MemcachedSpec,
  type MysqlClusterSpec,
  type NodePoolSpec,
} from '../constructs';

/** Resources per round and kind. */
const COUNT = Number(process.env.BENCH_COUNT ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** V8 needs a few thousand syntheses before its optimized code settles; a controller runs far longer. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
/** Heap is sampled every this many resources: often enough to see the peak, rarely enough not to cost. */
const HEAP_SAMPLE_EVERY = 10;
/** The target: every kind at least this fast on one core. */
const TARGET_PER_SECOND = 2000;

const OWNER = { uid: '0b6c8a39-5c8e-4f0e-9a57-2d7e4c1f9b21' };
const namespace = (i: number) => `team-${i % 17}`;

function memcached(i: number): CustomResource<MemcachedSpec> {
  return {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name: `cache-${i}`, namespace: namespace(i) },
    spec: { size: i % 6, ...(i % 3 === 0 ? { image: `memcached:1.6.${i % 30}-alpine` } : {}) },
  };
}

function nodePool(i: number): CustomResource<NodePoolSpec> {
  const effects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
  return {
    apiVersion: 'nodes.lailin.xyz/v1',
    kind: 'NodePool',
    metadata: { name: `pool-${i}` },
    spec: {
      labels: Object.fromEntries(
        Array.from({ length: 1 + (i % 4) }, (_, j) => [`pool.example.com/l${j}`, `v${i}`]),
      ),
      taints: Array.from({ length: i % 4 }, (_, j) => ({
        key: `pool.example.com/t${j}`,
        value: `pool-${i}`,
        effect: effects[j % 3],
      })),
      ...(i % 2 === 0 ? { handler: 'kata' } : {}),
    },
  };
}

function databaseManager(i: number): CustomResource<DatabaseManagerSpec> {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: `db-${i}`, namespace: namespace(i) },
    spec: {
      dbtype: i % 2 === 0 ? 'mysql' : 'mariadb',
      replicas: 1 + (i % 10),
      ...(i % 3 === 0 ? { deploymentName: `db-${i}-server` } : {}),
      ...(i % 4 === 0 ? { rootPasswordSecret: { name: `db-${i}-root` } } : {}),
    },
  };
}

/** 1 to 9 members, some upgraded, half with the user's own password Secret: 2 or 3 children. */
function mysqlCluster(i: number): CustomResource<MysqlClusterSpec> {
  return {
    apiVersion: 'mysql.oracle.com/v1alpha1',
    kind: 'Cluster',
    metadata: { name: `mysql-${i}`, namespace: namespace(i) },
    spec: {
      members: 1 + (i % 9),
      version: `8.0.${11 + (i % 5)}`,
      ...(i % 2 === 0 ? { rootPasswordSecret: { name: `mysql-${i}-root` } } : {}),
    },
  };
}

/** 1 to 3 ports and 1 to 4 backends: 3 to 7 children, 5.5 on average. */
function balancer(i: number): CustomResource<BalancerSpec> {
  const ports = [
    { name: 'http', protocol: 'TCP' as const, port: 80, targetPort: 8080 },
    { name: 'dns', protocol: 'UDP' as const, port: 53 },
    { name: 'https', protocol: 'TCP' as const, port: 443, targetPort: 8443 },
  ];
  return {
    apiVersion: 'exposer.hliangzhao.io/v1alpha1',
    kind: 'Balancer',
    metadata: { name: `lb-${i}`, namespace: namespace(i) },
    spec: {
      ports: ports.slice(0, 1 + (i % 3)),
      selector: { app: `app-${i % 50}` },
      backends: Array.from({ length: 1 + (i % 4) }, (_, j) => ({
        name: `v${j + 1}`,
        weight: 10 * (j + 1) + (i % 7),
        selector: { version: `v${j + 1}` },
      })),
    },
  };
}

/** A bare cdk8s-plus-27 Deployment and Service in a fresh App, for comparison. */
function baseline(i: number): unknown[] {
  const chart = new Chart(new App(), 'baseline', {
    namespace: namespace(i),
    disableResourceNameHashes: true,
  });
  const deployment = new kplus.Deployment(chart, 'deployment', {
    metadata: { name: `web-${i}` },
    containers: [{ image: 'nginx', portNumber: 80 }],
  });
  deployment.exposeViaService({ name: `web-${i}`, ports: [{ port: 80 }] });
  return chart.toJson();
}

interface Case {
  readonly name: string;
  readonly kind?: Kind;
  /** The `i`-th resource, for the kinds; absent for the baseline. */
  readonly resource?: (i: number) => CustomResource;
  /** Synthesizes the `i`-th resource; returns the children. */
  readonly run: (i: number) => unknown[];
}

const kind = <Spec>(k: Kind<Spec>, resource: (i: number) => CustomResource<Spec>): Case => ({
  name: k.kind,
  kind: k,
  resource: resource,
  run: (i) => synthesize(k, resource(i), { owner: OWNER }),
});

const cases: Case[] = [
  kind(memcachedKind, memcached),
  kind(nodePoolKind, nodePool),
  kind(databaseManagerKind, databaseManager),
  kind(balancerKind, balancer),
  kind(mysqlClusterKind, mysqlCluster),
  { name: 'baseline: kplus Deployment + Service', run: baseline },
];

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
function round(c: Case, first: number): Round {
  gc();
  let peak = process.memoryUsage().heapUsed;
  let children = 0;
  const latenciesMs = new Array<number>(COUNT);
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i++) {
    const t0 = process.hrtime.bigint();
    children += c.run(first + i).length;
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
 * Where the time of one synthesis goes: a fresh App, the Chart with its constructs and ownerReferences,
 * and toJson. Medians, so that a collection or a neighbour landing in one phase does not skew it.
 */
function phases(c: Case): string {
  const { resource, kind: k } = c;
  if (!resource || !k) return '';
  const spent: Record<'app' | 'build' | 'toJson', number[]> = { app: [], build: [], toJson: [] };
  for (let i = 0; i < COUNT; i++) {
    const r = resource(i);
    const t0 = process.hrtime.bigint();
    const app = new App();
    const t1 = process.hrtime.bigint();
    const chart = resourceChart(app, 'resource', k, r, { owner: OWNER });
    const t2 = process.hrtime.bigint();
    chart.toJson();
    const t3 = process.hrtime.bigint();
    spent.app.push(Number(t1 - t0));
    spent.build.push(Number(t2 - t1));
    spent.toJson.push(Number(t3 - t2));
  }
  const us = (ns: number[]) => (median(ns) / 1e3).toFixed(1);
  return `| ${c.name} | ${us(spent.app)} | ${us(spent.build)} | ${us(spent.toJson)} |`;
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

function main(): void {
  const args = process.argv.slice(2);
  const only = args.find((a) => !a.startsWith('--'));
  const selected = only ? cases.filter((c) => c.name.toLowerCase().startsWith(only.toLowerCase())) : cases;
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `Synthesis: ${ROUNDS} rounds of ${COUNT} resources per kind, kinds in turn, after ${WARMUP} warm-up each; one process`,
  );
  console.log(
    `Node ${process.version}, ${cpus().length} cores (${cpu}), ${process.platform}/${process.arch}`,
  );
  // Other processes on the machine show in the load average: the figures are only as quiet as it.
  console.log(
    `Load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('');

  // Warm-up uses resources numbered past the measured ones.
  const warmupFirst = COUNT * ROUNDS;
  for (const c of selected) for (let i = 0; i < WARMUP; i++) c.run(warmupFirst + i);

  const rounds = new Map<Case, Round[]>(selected.map((c) => [c, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of selected) rounds.get(c)?.push(round(c, r * COUNT));
  }

  console.log(
    '| Kind | Children | Resources/s (median round) | Slowest round | Fastest round | Resources/CPU-s | x baseline | Median (ms) | p99 (ms) | Peak heap (MiB) | Target |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  // The baseline runs in the same rounds, so the ratio to it holds even on a machine others are using.
  const baselineCase = selected.find((c) => c.resource === undefined);
  const baselineRate = baselineCase ? median((rounds.get(baselineCase) ?? []).map((r) => r.perSecond)) : NaN;
  let missed = false;
  for (const c of selected) {
    const results = rounds.get(c) ?? [];
    const rates = results.map((r) => r.perSecond);
    const perSecond = median(rates);
    const latencies = results.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
    const isKind = c.resource !== undefined;
    const meets = perSecond >= TARGET_PER_SECOND;
    if (isKind && !meets) missed = true;
    console.log(
      `| ${c.name} | ${results[0]?.children.toFixed(1)} | ${Math.round(perSecond)} | ` +
        `${Math.round(Math.min(...rates))} | ${Math.round(Math.max(...rates))} | ` +
        `${Math.round(median(results.map((r) => r.perCpuSecond)))} | ${(perSecond / baselineRate).toFixed(2)} | ` +
        `${ms(quantile(latencies, 0.5))} | ${ms(quantile(latencies, 0.99))} | ` +
        `${mib(Math.max(...results.map((r) => r.peakHeap)))} | ${isKind ? (meets ? 'met' : 'MISSED') : '-'} |`,
    );
  }
  gc();
  console.log('');
  console.log(`Heap after the run and a global gc: ${mib(process.memoryUsage().heapUsed)} MiB.`);
  console.log(
    `Load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`Target: at least ${TARGET_PER_SECOND} resources/s per kind on one core.`);

  if (args.includes('--phases')) {
    console.log('');
    console.log(`Phases, microseconds per resource (median of ${COUNT}):`);
    console.log(`- fresh App + empty Chart + toJson: ${emptyChartUs()}`);
    console.log('');
    console.log('| Kind | new App() | resourceChart (Chart, constructs, owner) | chart.toJson() |');
    console.log('|---|---:|---:|---:|');
    for (const c of selected) if (c.resource) console.log(phases(c));
  }
  // A missed target is a finding, not a crash: the figures are printed and the exit code says it.
  if (missed) process.exitCode = 1;
}

main();
