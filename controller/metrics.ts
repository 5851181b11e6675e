/**
 * The controller's Prometheus metrics, on a registry of its own (not prom-client's global one, so
 * that several controllers in one test process do not collide). Names follow controller-runtime's
 * where there is one, with the `reconstruct_` prefix.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Verb } from './kube/client';

const WRITE_VERBS: ReadonlySet<string> = new Set<Verb>(['create', 'update', 'patch', 'delete']);

export interface MetricsOptions {
  /** Also export Node.js process metrics (CPU, memory, event loop lag). Default: true. */
  processMetrics?: boolean;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly reconcileTotal: Counter<'kind' | 'result'>;
  private readonly reconcileDuration: Histogram<'kind' | 'result'>;
  private readonly reconcileErrors: Counter<'kind'>;
  private readonly depth: Gauge;
  private readonly restarts: Counter<'resource' | 'reason'>;
  private readonly requests: Counter<'verb' | 'code'>;
  private readonly requestDuration: Histogram<'verb'>;
  /** Plain tallies, so tests and the benchmark need not parse the exposition format. */
  private readonly byVerb = new Map<Verb, number>();

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    this.reconcileTotal = new Counter({
      name: 'reconstruct_reconcile_total',
      help: 'Reconciles by kind and result (success, requeue, error).',
      labelNames: ['kind', 'result'],
      registers,
    });
    this.reconcileDuration = new Histogram({
      name: 'reconstruct_reconcile_duration_seconds',
      help: 'Time of one reconcile, by kind and result.',
      labelNames: ['kind', 'result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'reconstruct_reconcile_errors_total',
      help: 'Reconciles that failed, by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.depth = new Gauge({
      name: 'reconstruct_workqueue_depth',
      help: 'Keys waiting in the work queue.',
      registers,
    });
    this.restarts = new Counter({
      name: 'reconstruct_watch_restarts_total',
      help: 'Watches that ended and were started again, by resource and reason (timeout, expired, inactive, error).',
      labelNames: ['resource', 'reason'],
      registers,
    });
    this.requests = new Counter({
      name: 'reconstruct_api_requests_total',
      help: 'Requests to the API server by verb and HTTP status code (0: no response).',
      labelNames: ['verb', 'code'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'reconstruct_api_request_duration_seconds',
      help: 'Latency of API requests by verb (watches: how long the stream was open).',
      labelNames: ['verb'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 600],
      registers,
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** One reconcile; result `error` also counts in reconstruct_reconcile_errors_total. */
  reconciled(kind: string, result: string, seconds: number): void {
    this.reconcileTotal.inc({ kind, result });
    this.reconcileDuration.observe({ kind, result }, seconds);
    if (result === 'error') this.reconcileErrors.inc({ kind });
  }

  queueDepth(depth: number): void {
    this.depth.set(depth);
  }

  watchRestarts(resource: string, reason: string): void {
    this.restarts.inc({ resource, reason });
  }

  /** Wire to KubeClient.onRequest. */
  apiRequest(verb: Verb, code: number, seconds: number): void {
    this.requests.inc({ verb, code: String(code) });
    this.requestDuration.observe({ verb }, seconds);
    this.byVerb.set(verb, (this.byVerb.get(verb) ?? 0) + 1);
  }

  /** API requests so far with this verb (any status), or all of them. */
  apiRequests(verb?: Verb): number {
    if (verb) return this.byVerb.get(verb) ?? 0;
    let total = 0;
    for (const n of this.byVerb.values()) total += n;
    return total;
  }

  /** API write requests so far (create, update, patch, delete; any status). */
  writes(): number {
    let total = 0;
    for (const [verb, n] of this.byVerb) if (WRITE_VERBS.has(verb)) total += n;
    return total;
  }

  /** The Prometheus text exposition, for /metrics. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
