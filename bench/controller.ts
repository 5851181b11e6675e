/**
 * Controller benchmark: how fast the real controller turns N Memcached resources into children, what it
 * costs the API server and in memory, and how it compares with the API server's own limit.
 *
 *   npm run bench:controller                      # 500 resources, on a local control plane
 *   npm run bench:controller -- --count 1000      # or BENCH_COUNT=1000
 *   RECONSTRUCT_USE_EXISTING_CLUSTER=1 KUBECONFIG=... npm run bench:controller
 *
 * It runs against the cluster of KUBECONFIG, in a namespace of its own that it deletes at the end, and
 * starts `node dist/cli/main.js controller` as a child process, the way a user runs it (with the
 * NODE_OPTIONS of the install manifest). Phases:
 *
 *  0. Warm-up (unless --no-warmup): one unmeasured baseline pass, then everything deleted.
 *  1. Controller A (no resync during the phase): N Memcached resources are created at once, `--concurrency`
 *     requests in flight. Measured: the time until the children of every one are applied, and until every
 *     one is Ready; per resource, the latency from its create (the create's response) to both of its
 *     children being applied; the controller's API requests (its /metrics) per resource; its peak RSS.
 *  2. Single updates, same controller, idle cluster: spec.size + 1 on one resource, time until the
 *     Deployment's spec.replicas shows it; the next one once the resource is Ready again.
 *  3. Controller B, restarted with `--resync R`: writes sent at start-up and over two resync periods once
 *     settled (both should be 0), its RSS with N resources managed.
 *  4. Baseline, no controller: everything deleted, then the same N resources created the same way, and a
 *     minimal loop (`--workers` loops, no cache, no reads, no status, no events) synthesizes each one's
 *     children with synthesize() and the owner's uid as soon as its create returns and server-side applies
 *     them. Compared with phase 1 like for like: from the first create sent to the last child applied.
 *     Also the floor of an update: patch spec.size, then apply the Deployment, time until it is seen.
 *
 * "Applied" is when this process's watch (one informer each for Memcached, Deployment and Service)
 * delivers the object: the same for the controller and the baseline. Times are from a monotonic clock.
 * Every wait is bounded, and a deadline (--deadline) stops the run, cleaning up, whatever happens.
 *
 * On a kwok cluster (every node annotated kwok.x-k8s.io/node=fake), fake nodes are added for the pods
 * the three default ones cannot hold, and a ServiceCIDR for the ClusterIPs its /24 service range cannot
 * hold, both removed at the end. Elsewhere nothing outside the namespace is touched: pods beyond capacity
 * stay Pending and Ready is not reached (use --size 0), Services beyond the range fail.
 *
 * `--overhead-only` runs phase 1 up to "children applied" and phase 4: a quick look at the ratio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  DEPLOYMENT,
  SERVICE,
  memcachedKind,
  synthesize,
  type CustomResource,
  type Manifest,
  type MemcachedSpec,
} from '../constructs';
import { withAppliedHash } from '../controller/converge';
import { Informer } from '../controller/informer';
import { CONTROLLER_NODE_OPTIONS } from '../controller/install';
import { freePort } from '../controller/server';
import { type KubeClient, loadClient } from '../controller/kube/client';
import { ApiError } from '../controller/kube/errors';
import { NAMESPACE, NODE, POD, type KubeObject } from '../constructs/kit';
import { type ResourceType, resourcePath } from '../controller/kube/paths';

const CLI = join(__dirname, '../cli/main.js');

const HELP = `Usage: node dist/bench/controller.js [options]   (npm run bench:controller -- [options])

  --count N          Memcached resources (default 500) [BENCH_COUNT]
  --workers N        controller workers, and loops of the baseline (default 4) [BENCH_WORKERS]
  --concurrency N    create requests in flight (default 32) [BENCH_CONCURRENCY]
  --size N           spec.size of each resource (default 1) [BENCH_SIZE]
  --resync SECONDS   resync period of the steady-state phase (default 5) [BENCH_RESYNC]
  --updates N        single updates timed (default 20) [BENCH_UPDATES]
  --namespace NS     default reconstruct-bench-<random>; created and deleted by the run
  --deadline MIN     stop (and clean up) after this many minutes whatever happens (default 40)
  --cpu-prof DIR     run controller A under node --cpu-prof, profile written into DIR
  --json FILE        also write the figures as JSON
  --no-nodes         never add fake nodes nor a ServiceCIDR (both only ever on kwok clusters)
  --rounds N         controller/baseline pairs for the overhead ratio, its median (default 3) [BENCH_ROUNDS]
  --overhead-only    only phase 1 until the children are applied, and the baseline (no Ready, updates, resync)
  --no-warmup        skip the unmeasured baseline pass that warms up the API server and etcd first
  -h, --help
`;

// ---------------------------------------------------------------------------------------------------
// Settings

interface Settings {
  count: number;
  workers: number;
  concurrency: number;
  size: number;
  resyncSeconds: number;
  updates: number;
  namespace: string;
  deadlineMs: number;
  cpuProfDir?: string;
  json?: string;
  addNodes: boolean;
  overheadOnly: boolean;
  warmup: boolean;
  rounds: number;
}

function settings(): Settings | undefined {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      workers: { type: 'string' },
      concurrency: { type: 'string' },
      size: { type: 'string' },
      resync: { type: 'string' },
      updates: { type: 'string' },
      namespace: { type: 'string' },
      deadline: { type: 'string' },
      'cpu-prof': { type: 'string' },
      json: { type: 'string' },
      'no-nodes': { type: 'boolean' },
      'no-warmup': { type: 'boolean' },
      'overhead-only': { type: 'boolean' },
      rounds: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return undefined;
  }
  const int = (flag: string, text: string | undefined, fallback: number, min: number): number => {
    if (text === undefined || text === '') return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag}: "${text}" is not an integer >= ${min}`);
    return n;
  };
  const env = process.env;
  return {
    count: int('count', values.count ?? env.BENCH_COUNT, 500, 1),
    workers: int('workers', values.workers ?? env.BENCH_WORKERS, 4, 1),
    concurrency: int('concurrency', values.concurrency ?? env.BENCH_CONCURRENCY, 32, 1),
    size: int('size', values.size ?? env.BENCH_SIZE, 1, 0),
    resyncSeconds: int('resync', values.resync ?? env.BENCH_RESYNC, 5, 1),
    updates: int('updates', values.updates ?? env.BENCH_UPDATES, 20, 0),
    namespace: values.namespace ?? `reconstruct-bench-${Math.random().toString(16).slice(2, 8)}`,
    deadlineMs: int('deadline', values.deadline, 40, 1) * 60_000,
    cpuProfDir: values['cpu-prof'] ? resolve(values['cpu-prof']) : undefined,
    json: values.json,
    addNodes: !values['no-nodes'],
    overheadOnly: values['overhead-only'] ?? false,
    warmup: !values['no-warmup'],
    rounds: int('rounds', values.rounds ?? env.BENCH_ROUNDS, 3, 1),
  };
}

// ---------------------------------------------------------------------------------------------------
// Small helpers

const MEMCACHED = memcachedKind;
const REPLICA_SET: ResourceType = { apiVersion: 'apps/v1', plural: 'replicasets', namespaced: true };
const ENDPOINT_SLICE: ResourceType = {
  apiVersion: 'discovery.k8s.io/v1',
  plural: 'endpointslices',
  namespaced: true,
};
const ENDPOINTS: ResourceType = { apiVersion: 'v1', plural: 'endpoints', namespaced: true };
const SERVICE_CIDR: ResourceType = {
  apiVersion: 'networking.k8s.io/v1',
  plural: 'servicecidrs',
  namespaced: false,
};
const EVENT: ResourceType = { apiVersion: 'v1', plural: 'events', namespaced: true };

const now = () => performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The middle value; the mean of the two middle ones for an even count (not the lower one, as quantile). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Polls `check` every `everyMs` until it returns true; false when `timeoutMs` ran out first. */
async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (now() >= deadline) return false;
    await sleep(everyMs);
  }
}

/** Runs `task` on each item with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, loop));
}

/** A request retried a few times on errors a loaded API server gives (5xx, no response, 429 beyond the client's retries). */
async function retrying<T>(what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const status = err instanceof ApiError ? err.status : -1;
      const transient = status === 0 || status === 429 || status >= 500;
      if (!transient || attempt >= 5) throw new Error(`${what}: ${String(err)}`, { cause: err });
      await sleep(200 * attempt);
    }
  }
}

function isReady(obj: KubeObject): boolean {
  const status = obj.status as { conditions?: { type: string; status: string }[] } | undefined;
  return status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** An IPv4 CIDR as [first address, number of addresses]; undefined for IPv6. */
function parseCidr(cidr: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) return undefined;
  const address = m.slice(1, 5).reduce((a, x) => ((a << 8) | Number(x)) >>> 0, 0);
  const size = 2 ** (32 - Number(m[5]));
  return [address - (address % size), size];
}

const memcachedName = (i: number) => `mc-${String(i).padStart(4, '0')}`;

function memcached(namespace: string, name: string, size: number): CustomResource<MemcachedSpec> {
  return {
    apiVersion: MEMCACHED.apiVersion,
    kind: MEMCACHED.kind,
    metadata: { name, namespace },
    spec: { size },
  };
}

// ---------------------------------------------------------------------------------------------------
// Prometheus text: just enough to read the controller's counters and histograms.

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([0-9.eE+-]+|NaN|\+Inf)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

class Snapshot {
  constructor(
    readonly samples: Sample[],
    readonly at: number,
  ) {}

  sum(name: string, filter: (labels: Record<string, string>) => boolean = () => true): number {
    return this.samples.filter((s) => s.name === name && filter(s.labels)).reduce((a, s) => a + s.value, 0);
  }

  requests(verbs?: string[]): number {
    return this.sum('reconstruct_api_requests_total', (l) => !verbs || verbs.includes(l.verb));
  }

  writes(): number {
    return this.requests(WRITE_VERBS);
  }

  /** Cumulative counts by upper bound `le`, summed over the other labels. */
  buckets(
    name: string,
    filter: (labels: Record<string, string>) => boolean = () => true,
  ): Map<number, number> {
    const out = new Map<number, number>();
    for (const s of this.samples) {
      if (s.name !== `${name}_bucket` || !filter(s.labels)) continue;
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      out.set(le, (out.get(le) ?? 0) + s.value);
    }
    return out;
  }
}

const WRITE_VERBS = ['create', 'update', 'patch', 'delete'];

/** histogram_quantile over the increase between two snapshots (linear within a bucket). */
function histogramQuantile(
  before: Snapshot,
  after: Snapshot,
  name: string,
  q: number,
  filter?: (labels: Record<string, string>) => boolean,
): number {
  const a = before.buckets(name, filter);
  const b = after.buckets(name, filter);
  const bounds = [...b.keys()].sort((x, y) => x - y);
  const counts = bounds.map((le) => (b.get(le) ?? 0) - (a.get(le) ?? 0));
  const total = counts[counts.length - 1] ?? 0;
  if (total <= 0) return NaN;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (counts[i] >= rank) {
      const lower = i === 0 ? 0 : bounds[i - 1];
      const below = i === 0 ? 0 : counts[i - 1];
      if (bounds[i] === Infinity) return lower;
      return lower + ((bounds[i] - lower) * (rank - below)) / Math.max(1, counts[i] - below);
    }
  }
  return NaN;
}

// ---------------------------------------------------------------------------------------------------
// The controller as a child process

/**
 * The controller's logs go to a file, as a container runtime keeps them: a pipe read by this process
 * would block the controller's writes whenever the benchmark, busy on the same two cores, is slow to
 * read (Node writes to pipes synchronously), and charge that stall to the controller.
 */
let logDir: string | undefined;
let logFiles = 0;

class Controller {
  peakRssKiB = 0;
  hwmKiB = 0;
  rssKiB = 0;
  private readonly poller: NodeJS.Timeout;
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly proc: ChildProcess,
    readonly port: number,
    readonly logFile: string,
  ) {
    this.exited = new Promise((r) => proc.once('exit', (code) => r(code)));
    this.poller = setInterval(() => this.pollMemory(), 100);
  }

  /** Its log lines so far. */
  logs(): string[] {
    return readFileSync(this.logFile, 'utf8').split('\n').filter(Boolean);
  }

  static async start(args: string[], nodeArgs: string[] = []): Promise<Controller> {
    const port = await freePort();
    logDir ??= mkdtempSync(join(tmpdir(), 'reconstruct-bench-'));
    const logFile = join(logDir, `controller-${++logFiles}.log`);
    const stderr = openSync(logFile, 'w');
    const proc = spawn(
      process.execPath,
      [
        ...nodeArgs,
        CLI,
        'controller',
        '--health-addr',
        `127.0.0.1:${port}`,
        '--metrics-addr',
        '0',
        '--log-format',
        'json',
        ...args,
      ],
      // The Node options the install manifest and the image give it.
      { stdio: ['ignore', 'ignore', stderr], env: { ...process.env, NODE_OPTIONS: CONTROLLER_NODE_OPTIONS } },
    );
    closeSync(stderr); // the child has its own copy
    running.add(proc);
    const controller = new Controller(proc, port, logFile);
    const ready = await until(async () => {
      if (proc.exitCode !== null) return true;
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200;
    }, 60_000);
    if (proc.exitCode !== null || !ready) {
      await controller.stop();
      throw new Error(`the controller did not become ready:\n${controller.logs().slice(-20).join('\n')}`);
    }
    return controller;
  }

  /** VmRSS and VmHWM (the peak) from /proc; zeros where there is no /proc. */
  private pollMemory(): void {
    if (this.proc.pid === undefined || this.proc.exitCode !== null) return;
    try {
      const status = readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
      const kib = (field: string) =>
        Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
      this.rssKiB = kib('VmRSS');
      this.hwmKiB = Math.max(this.hwmKiB, kib('VmHWM'));
      this.peakRssKiB = Math.max(this.peakRssKiB, this.rssKiB, this.hwmKiB);
    } catch {
      // Gone meanwhile, or no /proc.
    }
  }

  async metrics(): Promise<Snapshot> {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(`http://127.0.0.1:${this.port}/metrics`, {
          signal: AbortSignal.timeout(10_000),
        });
        return new Snapshot(parseMetrics(await res.text()), now());
      } catch (err) {
        if (attempt >= 3) throw err;
        await sleep(500);
      }
    }
  }

  /** Writes stayed the same for `quietMs` (polled every 250 ms); false when `timeoutMs` ran out first. */
  async settle(quietMs: number, timeoutMs: number): Promise<boolean> {
    let last = -1;
    let since = now();
    return until(
      async () => {
        const m = await this.metrics();
        const writes = m.writes();
        const reconciling = m.sum('reconstruct_workqueue_depth');
        if (writes !== last || reconciling > 0) {
          last = writes;
          since = now();
        }
        return now() - since >= quietMs;
      },
      timeoutMs,
      250,
    );
  }

  async stop(): Promise<number | null> {
    this.pollMemory();
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 30_000);
    const code = await this.exited;
    clearTimeout(timer);
    clearInterval(this.poller);
    running.delete(this.proc);
    return code;
  }
}

/** Controllers still running: killed if the bench exits early. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

// ---------------------------------------------------------------------------------------------------
// What the bench sees through its own watches

class Observer {
  created = new Map<string, number>();
  deploymentSeen = new Map<string, number>();
  serviceSeen = new Map<string, number>();
  readyAt = new Map<string, number>();
  replicas = new Map<string, number>();
  uids = new Map<string, string>();
  statusChanges = 0;
  private replicaWaiters = new Map<string, { want: number; resolve: () => void }>();
  private readonly informers: Informer[];

  constructor(client: KubeClient, namespace: string) {
    this.informers = [
      new Informer(
        client,
        { type: MEMCACHED, namespace },
        {
          onAdd: (obj) => this.memcached(obj),
          onUpdate: (old, obj) => {
            if (JSON.stringify(old.status) !== JSON.stringify(obj.status)) this.statusChanges++;
            this.memcached(obj);
          },
        },
      ),
      new Informer(
        client,
        { type: DEPLOYMENT, namespace },
        {
          onAdd: (obj) => this.deployment(obj),
          onUpdate: (_, obj) => this.deployment(obj),
        },
      ),
      new Informer(client, { type: SERVICE, namespace }, { onAdd: (obj) => this.service(obj) }),
    ];
  }

  private memcached(obj: KubeObject): void {
    if (isReady(obj) && !this.readyAt.has(obj.metadata.name)) this.readyAt.set(obj.metadata.name, now());
  }

  private deployment(obj: KubeObject): void {
    const name = obj.metadata.name;
    if (!this.deploymentSeen.has(name)) this.deploymentSeen.set(name, now());
    const replicas = (obj.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    this.replicas.set(name, replicas);
    const waiter = this.replicaWaiters.get(name);
    if (waiter && waiter.want === replicas) {
      this.replicaWaiters.delete(name);
      waiter.resolve();
    }
  }

  private service(obj: KubeObject): void {
    if (!this.serviceSeen.has(obj.metadata.name)) this.serviceSeen.set(obj.metadata.name, now());
  }

  async start(): Promise<void> {
    this.informers.forEach((i) => i.start());
    await Promise.all(this.informers.map((i) => i.waitForSync(AbortSignal.timeout(60_000))));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Forgets everything seen so far (between phases). */
  reset(): void {
    this.created = new Map();
    this.deploymentSeen = new Map();
    this.serviceSeen = new Map();
    this.readyAt = new Map();
    this.replicas = new Map();
    this.uids = new Map();
    this.statusChanges = 0;
    this.replicaWaiters = new Map();
  }

  /** Resolves true once the Deployment `name` has spec.replicas == want, false after timeoutMs. */
  replicasBecome(name: string, want: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolveWait) => {
      const timer = setTimeout(() => {
        this.replicaWaiters.delete(name);
        resolveWait(false);
      }, timeoutMs);
      this.replicaWaiters.set(name, {
        want,
        resolve: () => {
          clearTimeout(timer);
          resolveWait(true);
        },
      });
    });
  }

  childrenApplied(name: string): number | undefined {
    const d = this.deploymentSeen.get(name);
    const s = this.serviceSeen.get(name);
    return d !== undefined && s !== undefined ? Math.max(d, s) : undefined;
  }

  /** Per resource: both children seen, minus its create's response. */
  latencies(names: string[]): number[] {
    return names.map((n) => (this.childrenApplied(n) ?? NaN) - (this.created.get(n) ?? NaN));
  }

  lastChildApplied(names: string[]): number {
    return Math.max(...names.map((n) => this.childrenApplied(n) ?? NaN));
  }
}

// ---------------------------------------------------------------------------------------------------
// The cluster

class Cluster {
  readonly nodes: string[] = [];
  readonly serviceCidrs: string[] = [];

  constructor(
    readonly client: KubeClient,
    readonly namespace: string,
  ) {}

  async createNamespace(): Promise<void> {
    await this.client.request({
      method: 'POST',
      path: resourcePath(NAMESPACE),
      body: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: this.namespace, labels: { 'reconstruct.dev/bench': 'controller' } },
      },
    });
  }

  /** True when every node is a kwok fake: a throwaway cluster the bench may add nodes and service IPs to. */
  async isKwok(): Promise<boolean> {
    const list = await this.client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path: resourcePath(NODE),
    });
    return (
      list.items.length > 0 &&
      list.items.every((n) => n.metadata.annotations?.['kwok.x-k8s.io/node'] === 'fake')
    );
  }

  /**
   * Makes room for `services` more ClusterIPs: a kwok cluster's range is a /24. On a kwok cluster, adds a
   * ServiceCIDR (networking.k8s.io/v1) that does not overlap the existing ones; removed at the end.
   */
  async addServiceIpsFor(services: number): Promise<string> {
    const cidrs = await this.client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path: resourcePath(SERVICE_CIDR),
    });
    const rangesOf = (items: KubeObject[]) =>
      items.flatMap((c) => (c.spec as { cidrs?: string[] } | undefined)?.cidrs ?? []);
    const v4Of = (ranges: string[]) =>
      ranges.map(parseCidr).filter((x): x is [number, number] => x !== undefined);
    // Every range counts for overlaps, only those not being deleted for capacity.
    const v4 = v4Of(rangesOf(cidrs.items));
    const ranges = rangesOf(cidrs.items.filter((c) => !c.metadata.deletionTimestamp));
    const capacity = v4Of(ranges).reduce((sum, [, size]) => sum + size - 2, 0);
    const used = await this.client.request<{ items: unknown[] }>({
      method: 'GET',
      path: resourcePath(SERVICE),
    });
    const missing = services + used.items.length + 10 - capacity;
    if (missing <= 0) return `service IP ranges ${ranges.join(', ')} have room: no ServiceCIDR added`;
    if (!(await this.isKwok())) {
      return `WARNING: service IP ranges ${ranges.join(', ')} may be too small for ${services} more Services`;
    }
    const prefix = 32 - Math.ceil(Math.log2(missing + 2));
    const size = 2 ** (32 - prefix);
    for (let second = 200; second < 256; second++) {
      const start = ((10 << 24) | (second << 16)) >>> 0;
      if (v4.some(([s, n]) => start < s + n && s < start + size)) continue;
      const cidr = `10.${second}.0.0/${prefix}`;
      const name = `${this.namespace}-ips`;
      await this.client.request({
        method: 'POST',
        path: resourcePath(SERVICE_CIDR),
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'ServiceCIDR',
          metadata: { name },
          spec: { cidrs: [cidr] },
        },
      });
      this.serviceCidrs.push(name);
      const ready = await until(
        async () => {
          const got = await this.client.request<KubeObject>({
            method: 'GET',
            path: resourcePath(SERVICE_CIDR, undefined, name),
          });
          const conditions = (got.status as { conditions?: { type: string; status: string }[] } | undefined)
            ?.conditions;
          return conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
        },
        30_000,
        250,
      );
      return `added ServiceCIDR ${cidr} (${ranges.join(', ')} hold ${capacity} IPs)${ready ? '' : ', not Ready after 30 s'}`;
    }
    return 'WARNING: no free 10.x range for a ServiceCIDR';
  }

  /** On a kwok cluster, adds fake nodes so that `pods` more pods fit. */
  async addNodesFor(pods: number): Promise<string> {
    const list = await this.client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path: resourcePath(NODE),
    });
    const fake = list.items.every((n) => n.metadata.annotations?.['kwok.x-k8s.io/node'] === 'fake');
    if (!fake || list.items.length === 0) return 'not a kwok cluster: no nodes added';
    const capacity = list.items.reduce((sum, n) => {
      const alloc = (n.status as { allocatable?: { pods?: string } } | undefined)?.allocatable?.pods;
      return sum + Number(alloc ?? 0);
    }, 0);
    const running = await this.client.request<{ items: unknown[] }>({
      method: 'GET',
      path: resourcePath(POD),
      query: { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' },
    });
    const missing = pods + running.items.length + 20 - capacity;
    if (missing <= 0) return `${list.items.length} kwok nodes hold ${capacity} pods: no nodes added`;
    const perNode = 500;
    const count = Math.ceil(missing / perNode);
    for (let i = 0; i < count; i++) {
      const name = `${this.namespace}-node-${i}`;
      await this.client.request({
        method: 'POST',
        path: resourcePath(NODE),
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name,
            annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
            labels: {
              'kubernetes.io/hostname': name,
              'kubernetes.io/os': 'linux',
              'kubernetes.io/arch': 'amd64',
              type: 'kwok',
              'reconstruct.dev/bench': 'controller',
            },
          },
          status: {
            allocatable: { cpu: '1000', memory: '1Ti', pods: String(perNode) },
            capacity: { cpu: '1000', memory: '1Ti', pods: String(perNode) },
            nodeInfo: {
              architecture: 'amd64',
              operatingSystem: 'linux',
              kubeletVersion: 'fake',
              kubeProxyVersion: 'fake',
            },
          },
        },
      });
      this.nodes.push(name);
    }
    const ready = await until(
      async () => {
        const got = await this.client.request<{ items: KubeObject[] }>({
          method: 'GET',
          path: resourcePath(NODE),
          query: { labelSelector: 'reconstruct.dev/bench=controller' },
        });
        const conditions = (n: KubeObject) =>
          (n.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
        return (
          got.items.filter((n) => conditions(n).some((c) => c.type === 'Ready' && c.status === 'True'))
            .length >= count
        );
      },
      60_000,
      500,
    );
    return `added ${count} kwok nodes of ${perNode} pods (the ${list.items.length} there hold ${capacity})${
      ready ? '' : ', not Ready after 60 s'
    }`;
  }

  /** Number of objects of a type in the namespace (up to 1: whether there are any). */
  private async any(type: ResourceType): Promise<boolean> {
    const list = await this.client.request<{ items: unknown[] }>({
      method: 'GET',
      path: resourcePath(type, this.namespace),
      query: { limit: 1 },
    });
    return list.items.length > 0;
  }

  private async deleteCollection(
    type: ResourceType,
    query: Record<string, string | number> = {},
  ): Promise<void> {
    try {
      await this.client.request({
        method: 'DELETE',
        path: resourcePath(type, this.namespace),
        query,
        timeoutMs: 120_000,
      });
    } catch (err) {
      if (!(err instanceof ApiError && (err.status === 404 || err.status === 405))) throw err;
    }
  }

  /** Deletes every resource and child in the namespace and waits until they are gone. */
  async wipe(timeoutMs: number): Promise<boolean> {
    const types = [MEMCACHED, DEPLOYMENT, REPLICA_SET, SERVICE];
    const gone = await until(
      async () => {
        for (const type of types) await this.deleteCollection(type, { propagationPolicy: 'Background' });
        await this.deleteCollection(POD, { gracePeriodSeconds: 0 });
        for (const type of [...types, POD]) if (await this.any(type)) return false;
        return true;
      },
      timeoutMs,
      1000,
    );
    for (const type of [ENDPOINT_SLICE, ENDPOINTS, EVENT])
      await this.deleteCollection(type).catch(() => undefined);
    return gone;
  }

  async cleanUp(): Promise<void> {
    await this.wipe(120_000).catch((err) => log(`wiping ${this.namespace}: ${String(err)}`));
    try {
      await this.client.request({
        method: 'DELETE',
        path: resourcePath(NAMESPACE, undefined, this.namespace),
      });
      const gone = await until(
        async () =>
          this.client
            .request({ method: 'GET', path: resourcePath(NAMESPACE, undefined, this.namespace) })
            .then(() => false)
            .catch((err) => err instanceof ApiError && err.status === 404),
        120_000,
        1000,
      );
      if (!gone) log(`namespace ${this.namespace} still terminating after 120 s; left to the API server`);
    } catch (err) {
      log(`deleting namespace ${this.namespace}: ${String(err)}`);
    }
    for (const name of this.serviceCidrs.splice(0)) {
      // Its finalizer holds it until the IPs in it are released, i.e. the Services are gone.
      await this.client
        .request({ method: 'DELETE', path: resourcePath(SERVICE_CIDR, undefined, name) })
        .catch((err) => log(`deleting ServiceCIDR ${name}: ${String(err)}`));
      const gone = await until(
        () =>
          this.client
            .request({ method: 'GET', path: resourcePath(SERVICE_CIDR, undefined, name) })
            .then(() => false)
            .catch((err) => err instanceof ApiError && err.status === 404),
        60_000,
        500,
      );
      if (!gone) log(`ServiceCIDR ${name} still there after 60 s; left to the API server`);
    }
    for (const name of this.nodes.splice(0)) {
      await this.client
        .request({ method: 'DELETE', path: resourcePath(NODE, undefined, name) })
        .catch((err) => log(`deleting node ${name}: ${String(err)}`));
    }
  }

  async createMemcached(name: string, size: number): Promise<KubeObject> {
    return retrying(`create Memcached ${name}`, () =>
      this.client.request<KubeObject>({
        method: 'POST',
        path: resourcePath(MEMCACHED, this.namespace),
        body: memcached(this.namespace, name, size),
      }),
    );
  }

  async patchSize(name: string, size: number): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'PATCH',
      path: resourcePath(MEMCACHED, this.namespace, name),
      body: { spec: { size } },
    });
  }

  async getMemcached(name: string): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'GET',
      path: resourcePath(MEMCACHED, this.namespace, name),
    });
  }

  /** Server-side apply, as the controller's Writer does (field manager reconstruct, force). */
  async apply(child: Manifest): Promise<void> {
    const type = child.kind === 'Deployment' ? DEPLOYMENT : SERVICE;
    await retrying(`apply ${child.kind} ${child.metadata.name}`, () =>
      this.client.request({
        method: 'PATCH',
        path: resourcePath(type, child.metadata.namespace, child.metadata.name),
        query: { fieldManager: 'reconstruct', force: true },
        body: withAppliedHash(child),
        contentType: 'application/apply-patch+yaml',
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// CPU by process: where the machine's two cores went during a run (Linux /proc only).

/** The processes worth naming; every other process counts as "other". */
const CONTROL_PLANE = ['etcd', 'kube-apiserver', 'kube-controller', 'kube-scheduler', 'kwok-controller'];
const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux architecture Node runs on

type CpuSnapshot = Map<string, number>;
type CpuSpent = Record<string, number>;

/** utime + stime of a process, in seconds; undefined when it is gone or /proc is not there. */
function processCpuSeconds(pid: number | string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** CPU seconds so far: each control-plane process, the controller, this benchmark, and the whole machine. */
function cpuSnapshot(controllerPid?: number): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  let dirs: string[] = [];
  try {
    dirs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of dirs) {
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    const name = CONTROL_PLANE.find((c) => comm.startsWith(c));
    if (!name) continue;
    out.set(name, (out.get(name) ?? 0) + (processCpuSeconds(pid) ?? 0));
  }
  if (controllerPid !== undefined) out.set('controller', processCpuSeconds(controllerPid) ?? 0);
  out.set('benchmark', processCpuSeconds(process.pid) ?? 0);
  try {
    // The first line of /proc/stat: user nice system idle iowait irq softirq steal ...
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const t = ticks.map(Number);
    out.set('machine', (t[0] + t[1] + t[2] + t[5] + t[6] + t[7]) / CLOCK_TICKS);
  } catch {
    // no /proc/stat: no machine total
  }
  return out;
}

/** CPU seconds spent between two snapshots, per process, plus "other" (the machine minus the named ones). */
function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSpent {
  const spent: CpuSpent = {};
  let named = 0;
  for (const [name, seconds] of after) {
    if (name === 'machine') continue;
    spent[name] = seconds - (before.get(name) ?? 0);
    named += spent[name];
  }
  const machine = after.get('machine');
  if (machine !== undefined) spent.other = machine - (before.get('machine') ?? 0) - named;
  return spent;
}

// ---------------------------------------------------------------------------------------------------
// The phases

interface Results {
  [key: string]: unknown;
}

/** Creates the resources, `concurrency` at a time; records each create's response time and uid. */
async function createAll(
  cluster: Cluster,
  observer: Observer,
  names: string[],
  s: Settings,
  onCreated?: (name: string, obj: KubeObject) => void,
): Promise<void> {
  await pool(names, s.concurrency, async (name) => {
    const obj = await cluster.createMemcached(name, s.size);
    observer.created.set(name, now());
    observer.uids.set(name, obj.metadata.uid ?? '');
    onCreated?.(name, obj);
  });
}

const KiB_TO_MB = 1024 / 1e6;

/** The controller's V8 heap from its process metrics: used and total (reserved), in MB. */
const heapMB = (m: Snapshot) => ({
  used: m.sum('nodejs_heap_size_used_bytes') / 1e6,
  total: m.sum('nodejs_heap_size_total_bytes') / 1e6,
});

function heapText(heap: unknown): string {
  const h = heap as { used: number; total: number } | undefined;
  return h ? `${h.used.toFixed(0)} used / ${h.total.toFixed(0)} MB` : 'n/a';
}

async function controllerPhase(
  cluster: Cluster,
  observer: Observer,
  names: string[],
  s: Settings,
  r: Results,
): Promise<void> {
  const nodeArgs = s.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', s.cpuProfDir] : [];
  if (s.cpuProfDir) mkdirSync(s.cpuProfDir, { recursive: true });
  log(
    `controller A: --workers ${s.workers}, no resync during the phase${s.cpuProfDir ? ', --cpu-prof' : ''}`,
  );
  const a = await Controller.start(
    ['--namespaces', cluster.namespace, '--workers', String(s.workers), '--resync', '86400'],
    nodeArgs,
  );
  let progress: NodeJS.Timeout | undefined;
  try {
    r.idleRssMB = a.rssKiB * KiB_TO_MB;
    const m0 = await a.metrics();
    log(`creating ${s.count} Memcached resources, ${s.concurrency} requests in flight`);
    const t0 = now();
    const cpu0 = cpuSnapshot(a.proc.pid);
    progress = setInterval(() => {
      const withChildren = names.filter((n) => observer.childrenApplied(n) !== undefined).length;
      log(
        `  ${((now() - t0) / 1000).toFixed(0)} s: ${observer.created.size} created, ` +
          `${withChildren} with children applied, ${observer.readyAt.size} Ready`,
      );
    }, 15_000);
    await createAll(cluster, observer, names, s);
    r.controllerCreateSeconds = (now() - t0) / 1000;
    const applied = await until(
      () => names.every((n) => observer.childrenApplied(n) !== undefined),
      60_000 + 200 * s.count,
    );
    const missing = names.filter((n) => observer.childrenApplied(n) === undefined).length;
    if (!applied) throw new Error(`children of ${missing} resources not applied in time`);
    const tApplied = observer.lastChildApplied(names);
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
    }
    const m1 = await a.metrics();
    r.peakRssMB = a.peakRssKiB * KiB_TO_MB;
    r.rssAfterReadyMB = a.rssKiB * KiB_TO_MB;
    r.heapAfterReadyMB = heapMB(m1);

    const per = (x: number) => x / s.count;
    const verb = (v: string) => per(m1.requests([v]) - m0.requests([v]));
    r.writesPerResource = per(m1.writes() - m0.writes());
    r.writesByVerb = Object.fromEntries(WRITE_VERBS.map((v) => [v, verb(v)]));
    r.readsPerResource = { get: verb('get'), list: verb('list') };
    r.writesPerResourceUntilApplied = per(mApplied.writes() - m0.writes());
    const byCode = (m: Snapshot) => {
      const out = new Map<string, number>();
      for (const x of m.samples) {
        if (x.name !== 'reconstruct_api_requests_total' || /^2/.test(x.labels.code)) continue;
        const key = `${x.labels.verb} ${x.labels.code}`;
        out.set(key, (out.get(key) ?? 0) + x.value);
      }
      return out;
    };
    const codes0 = byCode(m0);
    r.non2xx = Object.fromEntries(
      [...byCode(m1)].map(([k, v]) => [k, v - (codes0.get(k) ?? 0)]).filter(([, v]) => Number(v) > 0),
    );
    r.statusChangesPerResource = per(observer.statusChanges);
    r.reconcilesPerResourceUntilApplied = per(
      mApplied.sum('reconstruct_reconcile_total') - m0.sum('reconstruct_reconcile_total'),
    );
    r.reconcilesPerResource = per(
      m1.sum('reconstruct_reconcile_total') - m0.sum('reconstruct_reconcile_total'),
    );
    r.reconcileErrors =
      m1.sum('reconstruct_reconcile_errors_total') - m0.sum('reconstruct_reconcile_errors_total');
    const rd = 'reconstruct_reconcile_duration_seconds';
    r.reconcileMedianMsUntilApplied = histogramQuantile(m0, mApplied, rd, 0.5) * 1000;
    r.reconcileP99MsUntilApplied = histogramQuantile(m0, mApplied, rd, 0.99) * 1000;
    r.reconcileMeanMs =
      ((m1.sum(`${rd}_sum`) - m0.sum(`${rd}_sum`)) / (m1.sum(`${rd}_count`) - m0.sum(`${rd}_count`))) * 1000;
    const rq = 'reconstruct_api_request_duration_seconds';
    const meanLatency = (v: string, x: Snapshot, y: Snapshot) =>
      ((y.sum(`${rq}_sum`, (l) => l.verb === v) - x.sum(`${rq}_sum`, (l) => l.verb === v)) /
        (y.sum(`${rq}_count`, (l) => l.verb === v) - x.sum(`${rq}_count`, (l) => l.verb === v))) *
      1000;
    r.patchMeanMsUntilApplied = meanLatency('patch', m0, mApplied);
    r.getMeanMsUntilApplied = meanLatency('get', m0, mApplied);
    r.createMeanMsUntilApplied = meanLatency('create', m0, mApplied);
    const cpu = (m: Snapshot) => m.sum('process_cpu_seconds_total');
    r.cpuSecondsUntilApplied = cpu(mApplied) - cpu(m0);
    r.cpuSecondsUntilReady = cpu(m1) - cpu(m0);
    r.eventLoopLagP99Ms = m1.sum('nodejs_eventloop_lag_p99_seconds') * 1000;

    clearInterval(progress);
    if (!s.overheadOnly) await updatePhase(cluster, observer, names, s, r, a);
  } finally {
    clearInterval(progress);
    r.peakRssMB = Math.max(Number(r.peakRssMB ?? 0), a.peakRssKiB * KiB_TO_MB);
    await a.stop();
    const logs = a.logs();
    const errors = logs.filter((line) => line.includes('"level":"error"'));
    r.controllerErrorLines = errors.length;
    if (errors.length > 0)
      log(
        `controller A logged ${errors.length} errors (${a.logFile}); the last:\n${errors.slice(-5).join('\n')}`,
      );
  }
}

/** The resources the single updates go to, spread over all of them. */
function updateTargets(names: string[], count: number): string[] {
  const step = Math.max(1, Math.floor(names.length / count));
  return Array.from({ length: count }, (_, i) => names[(i * step) % names.length]);
}

/** Patches spec.size + 1; `seen` resolves once the watch shows the Deployment with those replicas. */
async function patchNextSize(
  cluster: Cluster,
  observer: Observer,
  name: string,
  s: Settings,
): Promise<{ started: number; patched: KubeObject; seen: Promise<boolean> }> {
  const size = (observer.replicas.get(name) ?? s.size) + 1;
  const seen = observer.replicasBecome(name, size, 10_000);
  const started = now();
  const patched = await cluster.patchSize(name, size);
  return { started, patched, seen };
}

async function updatePhase(
  cluster: Cluster,
  observer: Observer,
  names: string[],
  s: Settings,
  r: Results,
  a: Controller,
): Promise<void> {
  if (s.updates === 0) return;
  log(`${s.updates} single updates, one at a time, on an idle cluster`);
  const m0 = await a.metrics();
  const latencies: number[] = [];
  let timeouts = 0;
  for (const name of updateTargets(names, s.updates)) {
    const { started, patched, seen } = await patchNextSize(cluster, observer, name, s);
    if (await seen) latencies.push(now() - started);
    else timeouts++;
    // Idle again before the next one: the resource Ready at its new generation, and no writes for 500 ms.
    const generation = patched.metadata.generation ?? 0;
    await until(
      async () => {
        const obj = await cluster.getMemcached(name);
        const observed = (obj.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0;
        return observed >= generation && isReady(obj);
      },
      30_000,
      100,
    );
    await a.settle(500, 10_000);
  }
  const m1 = await a.metrics();
  r.updateLatencyMedianMs = quantile(latencies, 0.5);
  r.updateLatencyP90Ms = quantile(latencies, 0.9);
  r.updateLatencyMinMs = quantile(latencies, 0);
  r.updateTimeouts = timeouts;
  r.updateReconcileMedianMs = histogramQuantile(m0, m1, 'reconstruct_reconcile_duration_seconds', 0.5) * 1000;
  r.updateWritesPerUpdate = (m1.writes() - m0.writes()) / s.updates;
}

async function steadyPhase(cluster: Cluster, s: Settings, r: Results): Promise<void> {
  log(`controller B: restarted with --resync ${s.resyncSeconds}`);
  const started = now();
  const b = await Controller.start([
    '--namespaces',
    cluster.namespace,
    '--workers',
    String(s.workers),
    '--resync',
    String(s.resyncSeconds),
  ]);
  try {
    r.restartReadySeconds = (now() - started) / 1000;
    // Settled: the start-up pass over every resource done, then no write for 3 s.
    await until(async () => (await b.metrics()).sum('reconstruct_reconcile_total') >= s.count, 120_000, 250);
    const settled = await b.settle(3000, 120_000);
    if (!settled) log('controller B did not settle within 120 s');
    const m0 = await b.metrics();
    r.restartWrites = m0.writes();
    const periods = 2;
    await sleep(periods * s.resyncSeconds * 1000 + 1000);
    const m1 = await b.metrics();
    r.resyncWindowSeconds = (m1.at - m0.at) / 1000;
    r.resyncWrites = m1.writes() - m0.writes();
    r.resyncReconciles = m1.sum('reconstruct_reconcile_total') - m0.sum('reconstruct_reconcile_total');
    r.resyncReads = m1.requests(['get', 'list']) - m0.requests(['get', 'list']);
    r.resyncCpuSecondsPerPeriod =
      ((m1.sum('process_cpu_seconds_total') - m0.sum('process_cpu_seconds_total')) /
        (r.resyncWindowSeconds as number)) *
      s.resyncSeconds;
    r.steadyRssMB = b.rssKiB * KiB_TO_MB;
    r.steadyPeakRssMB = b.peakRssKiB * KiB_TO_MB;
    r.steadyHeapMB = heapMB(m1);
  } finally {
    await b.stop();
  }
}

async function directPhase(
  cluster: Cluster,
  observer: Observer,
  names: string[],
  s: Settings,
  r: Results,
): Promise<void> {
  log(`baseline: the same ${s.count} resources, children applied by a minimal loop of ${s.workers} workers`);
  const queue: { name: string; obj: KubeObject }[] = [];
  const sleeping: (() => void)[] = [];
  const wakeOne = () => sleeping.shift()?.();
  let done = false;
  let failure: Error | undefined;
  const worker = async () => {
    for (;;) {
      const item = queue.shift();
      if (!item) {
        if (done) return;
        await new Promise<void>((w) => sleeping.push(w));
        continue;
      }
      const resource = {
        ...memcached(cluster.namespace, item.name, s.size),
        metadata: item.obj.metadata,
      } as CustomResource;
      const started = now();
      const children = synthesize(MEMCACHED, resource, { owner: { uid: item.obj.metadata.uid ?? '' } });
      await Promise.all(
        children.map(async (c) => {
          const sent = now();
          await cluster.apply(c);
          applyMs.push(now() - sent);
        }),
      ).catch((err: unknown) => {
        failure ??= err as Error; // retrying() throws Errors
      });
      itemMs.push(now() - started);
    }
  };
  const applyMs: number[] = [];
  const itemMs: number[] = [];
  const workers = Array.from({ length: s.workers }, worker);
  const t0 = now();
  const cpu0 = cpuSnapshot();
  await createAll(cluster, observer, names, s, (name, obj) => {
    queue.push({ name, obj });
    wakeOne();
  });
  r.directCreateSeconds = (now() - t0) / 1000;
  done = true;
  sleeping.splice(0).forEach((w) => w());
  const drained = await Promise.race([
    Promise.all(workers).then(() => true),
    sleep(60_000 + 200 * s.count).then(() => false),
  ]);
  if (failure) throw failure;
  if (!drained) throw new Error('the baseline loop did not finish in time');
  const applied = await until(() => names.every((n) => observer.childrenApplied(n) !== undefined), 60_000);
  if (!applied) throw new Error('baseline: children not all seen by the watch');
  r.directCpuUntilApplied = cpuSpent(cpu0, cpuSnapshot());
  r.directAppliedSeconds = (observer.lastChildApplied(names) - t0) / 1000;
  const lat = observer.latencies(names);
  r.directLatencyMedianMs = quantile(lat, 0.5);
  r.directLatencyP99Ms = quantile(lat, 0.99);
  r.directApplyMeanMs = applyMs.reduce((a, x) => a + x, 0) / applyMs.length;
  r.directItemMeanMs = itemMs.reduce((a, x) => a + x, 0) / itemMs.length;

  // The floor of an update: patch spec.size, then apply the Deployment it gives, until the watch sees it.
  if (s.updates > 0 && !s.overheadOnly) {
    // Idle first: the Deployments' pods started, as they were in the controller's update phase.
    await waitPodsRunning(cluster, s.count * s.size, 120_000 + 400 * s.count);
    const latencies: number[] = [];
    for (const name of updateTargets(names, s.updates)) {
      const { started, patched, seen } = await patchNextSize(cluster, observer, name, s);
      const [deployment] = synthesize(MEMCACHED, patched as unknown as CustomResource<MemcachedSpec>, {
        owner: { uid: patched.metadata.uid ?? '' },
      }).filter((c) => c.kind === 'Deployment');
      await cluster.apply(deployment);
      if (await seen) latencies.push(now() - started);
      await sleep(500);
    }
    r.floorUpdateLatencyMedianMs = quantile(latencies, 0.5);
  }
}

async function waitPodsRunning(cluster: Cluster, pods: number, timeoutMs: number): Promise<boolean> {
  return until(
    async () => {
      const list = await cluster.client.request<{ items: KubeObject[] }>({
        method: 'GET',
        path: resourcePath(POD, cluster.namespace),
        query: { fieldSelector: 'status.phase=Running' },
      });
      return list.items.length >= pods;
    },
    timeoutMs,
    1000,
  );
}

// ---------------------------------------------------------------------------------------------------
// Report

function report(s: Settings, r: Results): string {
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
        .map(([c, d]) => `${c.toFixed(1)}/${d.toFixed(1)}`)
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
      'GET (a child missing from the cache is read first)',
    ],
    [
      'reconciles per resource',
      n(r.reconcilesPerResource, 2),
      `until children applied ${n(r.reconcilesPerResourceUntilApplied, 2)}; errors ${n(r.reconcileErrors)}; ` +
        `non-2xx: ${codes(r.non2xx as Record<string, number>)}`,
    ],
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
      `p90 ${n(r.updateLatencyP90Ms, 1)}, min ${n(r.updateLatencyMinMs, 1)} ms, ${s.updates} updates; target < 100 ms: ${yes(Number(r.updateLatencyMedianMs) < 100)}`,
    ],
    [
      '  floor: patch + direct apply, median',
      `${n(r.floorUpdateLatencyMedianMs, 1)} ms`,
      `reconcile median in the update phase ${n(r.updateReconcileMedianMs, 1)} ms`,
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
  rows.push(...cpuRows(r, pairs));
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) =>
    row
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    `controller benchmark: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; controller NODE_OPTIONS=${CONTROLLER_NODE_OPTIONS} (as installed)`,
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
  const cpuPairs = r.cpuPairs as [CpuSpent, CpuSpent][];
  const total = (side: 0 | 1, name: string) =>
    cpuPairs.reduce((sum, pair) => sum + (pair[side][name] ?? 0), 0);
  const names = [...new Set(cpuPairs.flatMap(([c, d]) => [...Object.keys(c), ...Object.keys(d)]))];
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

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  let s: Settings | undefined;
  try {
    s = settings();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (!s) return 0;
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const client = loadClient({ userAgent: 'reconstruct-bench', maxSockets: 64 });
  const cluster = new Cluster(client, s.namespace);
  const observer = new Observer(client, s.namespace);
  const names = Array.from({ length: s.count }, (_, i) => memcachedName(i));
  const r: Results = { count: s.count, workers: s.workers, concurrency: s.concurrency, size: s.size };
  const settingsUsed = s;

  let cleaning: Promise<void> | undefined;
  const cleanUp = () => {
    cleaning ??= (async () => {
      for (const proc of running) proc.kill('SIGTERM');
      await observer.stop().catch(() => undefined);
      log(`cleaning up namespace ${settingsUsed.namespace}`);
      await cluster.cleanUp();
    })();
    return cleaning;
  };
  const abort = (why: string) => {
    log(`${why}: stopping${logDir ? ` (the controllers' logs are in ${logDir})` : ''}`);
    const hard = setTimeout(() => process.exit(1), 240_000);
    hard.unref();
    void cleanUp().finally(() => process.exit(1));
  };
  setTimeout(
    () => abort(`deadline of ${settingsUsed.deadlineMs / 60_000} min reached`),
    s.deadlineMs,
  ).unref();
  process.once('SIGINT', () => abort('SIGINT'));
  process.once('SIGTERM', () => abort('SIGTERM'));

  try {
    await cluster.createNamespace();
    log(`namespace ${s.namespace}`);
    if (s.addNodes && s.size > 0) log(await cluster.addNodesFor(s.count * s.size + s.updates));
    if (s.addNodes) log(await cluster.addServiceIpsFor(s.count));
    await observer.start();

    const wipe = async () => {
      log('deleting everything');
      const wiped = await cluster.wipe(120_000 + 300 * s.count);
      if (!wiped) throw new Error('the namespace did not empty in time');
      observer.reset();
      await sleep(2000);
    };
    // The first burst on a fresh control plane is slower, whoever sends it (the API server's and etcd's
    // memory grows, caches fill): without a warm-up that cost lands on the controller's first run.
    if (s.warmup) {
      log('warm-up (not measured):');
      await directPhase(cluster, observer, names, { ...s, overheadOnly: true }, {});
      await wipe();
    }

    await controllerPhase(cluster, observer, names, s, r);
    if (!s.overheadOnly) await steadyPhase(cluster, s, r);
    await wipe();
    await directPhase(cluster, observer, names, s, r);
    const pairs = [r];
    // More pairs, back to back: the machine's load moves, and a ratio of two runs made a minute apart is
    // only as good as the load was steady. Every other pair runs the baseline first, so that neither side
    // always runs on a cluster still settling from the other's deletions.
    for (let round = 2; round <= s.rounds; round++) {
      const quick: Settings = { ...s, overheadOnly: true, cpuProfDir: undefined, updates: 0 };
      const ri: Results = {};
      const baselineFirst = round % 2 === 0;
      log(`overhead round ${round} of ${s.rounds}${baselineFirst ? ', baseline first' : ''}`);
      await wipe();
      if (baselineFirst) {
        await directPhase(cluster, observer, names, quick, ri);
        await wipe();
        await controllerPhase(cluster, observer, names, quick, ri);
      } else {
        await controllerPhase(cluster, observer, names, quick, ri);
        await wipe();
        await directPhase(cluster, observer, names, quick, ri);
      }
      pairs.push(ri);
    }
    // Each pair: the two runs' seconds until the children were applied, and their CPU by process.
    r.overheadPairs = pairs.map((x) => [Number(x.controllerAppliedSeconds), Number(x.directAppliedSeconds)]);
    r.cpuPairs = pairs.map((x) => [x.controllerCpuUntilApplied, x.directCpuUntilApplied]);
  } finally {
    await cleanUp();
  }
  if (logDir) rmSync(logDir, { recursive: true, force: true }); // kept when the run fails
  const table = report(s, r);
  process.stdout.write(`\n${table}\n`);
  if (s.json) writeFileSync(s.json, `${JSON.stringify({ settings: s, results: r }, null, 2)}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    if (logDir) log(`the controllers' logs are in ${logDir}`);
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 2000).unref();
  },
);
