/**
 * A controller's Prometheus metrics, read the way the phases need them: just enough of the text format to
 * parse counters and histograms, and a Snapshot that names the figures (requests, writes, reconciles, queue
 * depth, CPU, heap) whatever metric names the controller under test gives them.
 */

type Labels = Record<string, string>;

interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

/** Where a controller keeps each figure the bench reads; every name is a metric of its /metrics. */
export interface MetricNames {
  /** Counter of the API requests it sent, with a `code` label (the HTTP status). */
  requests: string;
  /** Histogram of those requests' durations in seconds, with the same labels. */
  requestSeconds: string;
  /** The Kubernetes verb of a request sample (get, list, create, update, patch, delete), from its labels. */
  verb(labels: Labels): string | undefined;
  /** Counter of reconciles, and of those that failed. */
  reconciles: string;
  reconcileErrors: string;
  /** Histogram of reconcile durations in seconds. */
  reconcileSeconds: string;
  /** Gauge of the items waiting in its work queue(s). */
  queueDepth: string;
  /** Gauges of its heap in bytes: in use, and reserved. */
  heapUsedBytes: string;
  heapTotalBytes: string;
  /** Gauge of its event loop's p99 lag in seconds, for a runtime that has one. */
  eventLoopLagP99Seconds?: string;
}

/** The standard process collector's CPU counter (Node's prom-client and Go's client_golang alike). */
const CPU_SECONDS = 'process_cpu_seconds_total';

export const WRITE_VERBS = ['create', 'update', 'patch', 'delete'];

function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([0-9.eE+-]+|NaN|\+Inf)$/.exec(line);
    if (!m) continue;
    const labels: Labels = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** One scrape of a controller's /metrics, taken at `at` (ms on the bench's monotonic clock). */
export class Snapshot {
  private readonly samples: Sample[];

  constructor(
    text: string,
    readonly names: MetricNames,
    readonly at: number,
  ) {
    this.samples = parseMetrics(text);
  }

  /** Every sample of the metric `name`, with its labels. */
  series(name: string): readonly Sample[] {
    return this.samples.filter((s) => s.name === name);
  }

  sum(name: string, filter: (labels: Labels) => boolean = () => true): number {
    return this.samples.filter((s) => s.name === name && filter(s.labels)).reduce((a, s) => a + s.value, 0);
  }

  /** API requests sent so far, of the given verbs or all. */
  requests(verbs?: string[]): number {
    return this.sum(this.names.requests, (l) => !verbs || verbs.includes(this.names.verb(l) ?? ''));
  }

  writes(): number {
    return this.requests(WRITE_VERBS);
  }

  /** The requests answered other than 2xx so far, by "verb code". */
  failedRequests(): Map<string, number> {
    const out = new Map<string, number>();
    for (const x of this.samples) {
      if (x.name !== this.names.requests || /^2/.test(x.labels.code)) continue;
      const key = `${this.names.verb(x.labels)} ${x.labels.code}`;
      out.set(key, (out.get(key) ?? 0) + x.value);
    }
    return out;
  }

  reconciles(): number {
    return this.sum(this.names.reconciles);
  }

  reconcileErrors(): number {
    return this.sum(this.names.reconcileErrors);
  }

  queueDepth(): number {
    return this.sum(this.names.queueDepth);
  }

  cpuSeconds(): number {
    return this.sum(CPU_SECONDS);
  }

  /** The heap, used and total (reserved), in MB. */
  heapMB(): { used: number; total: number } {
    return {
      used: this.sum(this.names.heapUsedBytes) / 1e6,
      total: this.sum(this.names.heapTotalBytes) / 1e6,
    };
  }

  eventLoopLagP99Ms(): number {
    const name = this.names.eventLoopLagP99Seconds;
    return name ? this.sum(name) * 1000 : NaN;
  }

  /** Cumulative counts by upper bound `le`, summed over the other labels. */
  buckets(name: string, filter: (labels: Labels) => boolean = () => true): Map<number, number> {
    const out = new Map<number, number>();
    for (const s of this.samples) {
      if (s.name !== `${name}_bucket` || !filter(s.labels)) continue;
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      out.set(le, (out.get(le) ?? 0) + s.value);
    }
    return out;
  }
}

/** histogram_quantile over the increase between two snapshots (linear within a bucket). */
function histogramQuantile(
  before: Snapshot,
  after: Snapshot,
  name: string,
  q: number,
  filter?: (labels: Labels) => boolean,
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

/** The mean of what a histogram observed between two snapshots. */
function histogramMean(
  before: Snapshot,
  after: Snapshot,
  name: string,
  filter?: (labels: Labels) => boolean,
): number {
  const increase = (suffix: string) =>
    after.sum(`${name}${suffix}`, filter) - before.sum(`${name}${suffix}`, filter);
  return increase('_sum') / increase('_count');
}

/** Quantile `q` of the reconcile durations between two snapshots, in ms. */
export function reconcileQuantileMs(before: Snapshot, after: Snapshot, q: number): number {
  return histogramQuantile(before, after, after.names.reconcileSeconds, q) * 1000;
}

/** The mean reconcile duration between two snapshots, in ms. */
export function reconcileMeanMs(before: Snapshot, after: Snapshot): number {
  return histogramMean(before, after, after.names.reconcileSeconds) * 1000;
}

/** The mean duration of the API requests of one verb between two snapshots, in ms. */
export function requestMeanMs(before: Snapshot, after: Snapshot, verb: string): number {
  return histogramMean(before, after, after.names.requestSeconds, (l) => after.names.verb(l) === verb) * 1000;
}
