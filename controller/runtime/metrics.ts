/**
 * The controller's Prometheus metrics, on a registry of its own (not prom-client's global one, so
 * that several controllers in one test process do not collide): our own, prefixed `reconstruct_`, and
 * the families controller-runtime and client-go export under their names and labels
 * (`controller_runtime_reconcile_total{controller,result}`, `workqueue_depth{name}`,
 * `rest_client_requests_total{code,method,host}`, `leader_election_master_status{name}`, ...), so the
 * dashboards and alerts written for Go operators work unchanged.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Verb } from '../kube/http';
import type { KubeClient } from '../kube/client';
import { ApiError, isNamespaceTerminating, isOwnerKindUndiscovered } from '../kube/errors';
import type { Logger } from '../log';
import type { QueueObserver, WorkQueue } from './queue';
import {
  connectionGauges,
  externalGauges,
  queueGauges,
  rolloutGauges,
  type ExternalCounts,
  type RolloutCounts,
} from './scraped-gauges';

/** The HTTP method of each verb, for rest_client_requests_total. */
const METHODS: Record<Verb, string> = {
  get: 'GET',
  list: 'GET',
  watch: 'GET',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
};

/** controller-runtime's reconcile_time_seconds buckets (a subset: the same edges up to a minute). */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4, 5, 7.5, 10, 15,
  20, 30, 45, 60,
];
/** client-go's workqueue buckets: 10^-8 s to 10^1 s, one per decade. */
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];
/** The work queue's name in workqueue_* (controller-runtime names it after the controller). */
const QUEUE_NAME = 'reconstruct';

const WRITE_VERBS: ReadonlySet<string> = new Set<Verb>(['create', 'update', 'patch', 'delete']);

interface MetricsOptions {
  /** Also export Node.js process metrics (CPU, memory, event loop lag). Default: true. */
  processMetrics?: boolean;
  /** The API server's host:port, the `host` label of rest_client_requests_total. */
  apiHost?: string;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly reconcileTotal: Counter<'kind' | 'result'>;
  private readonly reconcileDuration: Histogram<'kind' | 'result'>;
  private readonly reconcileErrors: Counter<'kind'>;
  private queue?: WorkQueue;
  private readonly available: Gauge<'kind'>;
  private readonly restarts: Counter<'resource' | 'reason'>;
  private readonly drifts: Counter<'kind' | 'child_kind'>;
  private readonly watchEvents: Counter<'kind' | 'resource' | 'event' | 'result'>;
  private readonly requests: Counter<'verb' | 'code'>;
  private readonly requestDuration: Histogram<'verb'>;
  /** Plain tallies, so tests and the benchmark need not parse the exposition format. */
  private readonly byVerb = new Map<Verb, number>();
  // controller-runtime's and client-go's families.
  private readonly crReconcileTotal: Counter<'controller' | 'result'>;
  private readonly crReconcileErrors: Counter<'controller'>;
  private readonly crReconcileTime: Histogram<'controller'>;
  private readonly crActiveWorkers: Gauge<'controller'>;
  private readonly crMaxConcurrent: Gauge<'controller'>;
  private readonly restRequests: Counter<'code' | 'method' | 'host'>;
  private readonly leader: Gauge<'name'>;
  private readonly webhookLatency: Histogram<'webhook'>;
  private readonly webhookRequests: Counter<'webhook' | 'code'>;
  private readonly apiHost: string;
  /** client-go's workqueue metrics, for the manager's queue. */
  readonly queueObserver: QueueObserver;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    this.apiHost = options.apiHost ?? '';
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
    this.drifts = new Counter({
      name: 'reconstruct_drift_total',
      help: 'Children found changed by hand (drift), by kind and child kind: repaired, or left in warn mode.',
      labelNames: ['kind', 'child_kind'],
      registers,
    });
    const depth: Gauge = new Gauge({
      name: 'reconstruct_workqueue_depth',
      help: 'Keys waiting in the work queue.',
      registers,
      // Read at each scrape: no timer wakes an idle controller.
      collect: () => depth.set(this.queue?.length ?? 0),
    });
    this.available = new Gauge({
      name: 'reconstruct_kind_available',
      help: 'Whether a kind is reconciled (1) or waits: for its caches to sync, or for its CRD or RBAC (0).',
      labelNames: ['kind'],
      registers,
    });
    this.restarts = new Counter({
      name: 'reconstruct_watch_restarts_total',
      help: 'Watches that ended and were started again, by resource and reason (timeout, expired, inactive, error).',
      labelNames: ['resource', 'reason'],
      registers,
    });
    this.watchEvents = new Counter({
      name: 'reconstruct_watch_events_total',
      help: "Watch events, by the kind whose watch saw them, the resource watched, the event (add, update, delete) and result: enqueued; filtered (the watch's predicate found nothing a reconcile reads changed, or an object in the way blocks no resource); or echo (a child as this controller's own write returned it).",
      labelNames: ['kind', 'resource', 'event', 'result'],
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
    // controller-runtime's webhook families, for the conversion webhook.
    this.webhookLatency = new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.webhookRequests = new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
    });
    this.crReconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.crReconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.crReconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.crActiveWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    this.crMaxConcurrent = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
    this.leader = new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
      labelNames: ['name'],
      registers,
    });
    const queue = { name: QUEUE_NAME };
    const adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    const retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    const waited = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    const worked = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    // Zero values from the start, as client-go's are: a dashboard's rate() needs the series to exist.
    adds.inc(queue, 0);
    retries.inc(queue, 0);
    this.queueObserver = {
      added: () => adds.inc(queue),
      retried: () => retries.inc(queue),
      waited: (seconds) => waited.observe(queue, seconds),
      worked: (seconds) => worked.observe(queue, seconds),
    };
    // The event-loop delay monitor samples every eventLoopMonitoringPrecision ms: at prom-client's 10 ms
    // that alone is 0.3 CPU s a minute in an idle controller; once a second keeps the lag figures and
    // costs next to nothing.
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 1000 });
    }
  }

  /** The queue's depth and work in progress, read at each scrape: see queueGauges. */
  watchQueue(queue: WorkQueue): void {
    this.queue = queue;
    queueGauges(this.registry, QUEUE_NAME, queue);
  }

  /** Where each kind's rollout of a new revision stands, read at each scrape: see rolloutGauges. */
  watchRollouts(counts: () => RolloutCounts[]): void {
    rolloutGauges(this.registry, counts);
  }

  /** How many external handlers of each kind with external work run, and wait for a slot, at each scrape. */
  watchExternal(counts: () => ExternalCounts[]): void {
    externalGauges(this.registry, counts);
  }

  /** The client's connections and the streams on them, read at each scrape: see connectionGauges. */
  watchConnections(client: KubeClient): void {
    connectionGauges(this.registry, () => client.connections?.() ?? []);
  }

  /** The controllers (one per kind, named as controller-runtime names them: the kind in lower case). */
  controllers(kinds: readonly string[], workers: number): void {
    for (const kind of kinds) {
      const controller = kind.toLowerCase();
      this.crMaxConcurrent.set({ controller }, workers);
      this.crActiveWorkers.set({ controller }, 0);
      this.crReconcileErrors.inc({ controller }, 0);
      this.available.set({ kind }, 0);
    }
  }

  /** 1 while the kind's caches are synced and it is reconciled; 0 while it waits (see Manager.kindStates). */
  kindAvailable(kind: string, available: boolean): void {
    this.available.set({ kind }, available ? 1 : 0);
  }

  /** A worker started (+1) or finished (-1) a reconcile of this kind. */
  activeWorker(kind: string, delta: 1 | -1): void {
    this.crActiveWorkers.inc({ controller: kind.toLowerCase() }, delta);
  }

  /** 1 while this replica holds the lease, 0 otherwise. */
  leading(lease: string, leading: boolean): void {
    this.leader.set({ name: lease }, leading ? 1 : 0);
  }

  /**
   * One reconcile. Result as controller-runtime has it: `success`, `requeue_after` (a recheck was asked
   * for) or `error`, which also counts in the errors totals.
   */
  reconciled(kind: string, result: 'success' | 'requeue_after' | 'error', seconds: number): void {
    this.reconcileTotal.inc({ kind, result });
    this.reconcileDuration.observe({ kind, result }, seconds);
    const controller = kind.toLowerCase();
    this.crReconcileTotal.inc({ controller, result });
    this.crReconcileTime.observe({ controller }, seconds);
    if (result === 'error') {
      this.reconcileErrors.inc({ kind });
      this.crReconcileErrors.inc({ controller });
    }
  }

  /** A child of a resource of `kind` found changed by hand (controller/drift). */
  drifted(kind: string, childKind: string): void {
    this.drifts.inc({ kind, child_kind: childKind });
  }

  watchRestarts(resource: string, reason: string): void {
    this.restarts.inc({ resource, reason });
  }

  /** One event of a kind's watch of `resource` (a plural): whether it enqueued anything, or was an echo. */
  watchEvent(kind: string, resource: string, event: string, enqueued: boolean | 'echo'): void {
    const result = enqueued === 'echo' ? 'echo' : enqueued ? 'enqueued' : 'filtered';
    this.watchEvents.inc({ kind, resource, event, result });
  }

  /** One request the conversion webhook answered. */
  webhookRequest(webhook: string, code: number, seconds: number): void {
    this.webhookLatency.observe({ webhook }, seconds);
    this.webhookRequests.inc({ webhook, code: String(code) });
  }

  /** Wire to KubeClient.onRequest. */
  apiRequest(verb: Verb, code: number, seconds: number): void {
    this.requests.inc({ verb, code: String(code) });
    this.restRequests.inc({
      code: code === 0 ? '<error>' : String(code),
      method: METHODS[verb],
      host: this.apiHost,
    });
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

/**
 * Counts every request of `client` in `metrics`, and logs each write and read (not watches) at debug level: what a reader of the log
 * (the sharding fault tests: never two writers at once) needs to know who wrote what, when. A write refused
 * says why, in the same line as it is counted: `reason` tells a namespace being deleted or an owner kind not
 * yet discovered (the API server's 403s that are not RBAC's) from a refusal by RBAC, which the cluster tests
 * fail on.
 */
export function observeRequests(client: KubeClient, metrics: Metrics, log: Logger): void {
  client.onRequest = (verb, code, seconds, { path, query }, error) => {
    metrics.apiRequest(verb, code, seconds);
    if (WRITE_VERBS.has(verb))
      log.debug('api write', {
        verb,
        path,
        code,
        fieldManager: query?.fieldManager,
        ms: Math.round(seconds * 1000),
        ...(error instanceof ApiError ? { reason: refusalReason(error), error: error.message } : {}),
      });
    // Reads are few (the caches answer most): each one in the debug log says what made the count move.
    else if (verb === 'get' || verb === 'list') log.debug('api read', { verb, path, code });
  };
}

/** Why a request failed: the Status reason, or what a 403 that is not RBAC's is. */
function refusalReason(err: ApiError): string | undefined {
  if (isNamespaceTerminating(err)) return 'NamespaceTerminating';
  if (isOwnerKindUndiscovered(err)) return 'OwnerKindUndiscovered';
  return err.reason;
}
