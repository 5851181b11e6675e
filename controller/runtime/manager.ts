/**
 * Wiring and the worker loop: the caches opened from every kind's watch table (watches.ts; enqueue.ts:
 * resource events enqueue the resource, child events their owner, an object in the way the resources it
 * blocks, a kind's extra watches what they name), the watches of the objects inputs name
 * (controller/inputs/watches.ts: their readers), the reconciler reading them, a periodic resync, and the workers taking
 * keys from the queue. Only the resource's own events use the queue's normal priority; the rest refresh,
 * at low priority (see WorkQueue).
 */
import {
  CUSTOM_RESOURCE_DEFINITION,
  crdName,
  type ApiKind,
  type ClusterView,
  type Kind,
  type KindRegistry,
  type KubeObject,
  type LabelMatch,
  type RolloutOptions,
} from '../../constructs/kit';
import { KubeWriter } from '../kube/writer';
import { EventRecorder } from '../kube/events';
import { Caches } from './caches';
import { Informer, type InformerObserver } from './informer';
import { parseLabelSelector, type LabelSelector } from './label-selector';
import { nameAndSuspension, watchTable } from './watches';
import { GATHER_MS, watchHandlers } from './enqueue';
import { ReferenceWatches } from '../inputs/watches';
import { sameJson } from '../../constructs/kit/same-json';
import { ConnectionProbe } from './connection-probe';
import { KindStates, type KindState } from './kind-states';
import { kindOfKey, objectKey, parseObjectKey } from '../kube/object-key';
import type { KubeClient } from '../kube/client';
import { kubeLiveReads } from '../kube/live-reads';
import type { Logger } from '../log';
import type { Metrics } from './metrics';
import { WorkQueue, runWorkers } from './queue';
import { Reconciler } from '../reconcile/reconciler';
import { reportUnavailable } from '../reconcile/status';
import { ExternalRunner } from '../external/runner';
import { BUCKET_LABEL, type HashRanges } from '../sharding/ring';
import { Tracing } from '../tracing/tracing';

interface ManagerOptions {
  /** Namespaces to watch; empty for all. Cluster-scoped kinds are always watched cluster-wide. */
  namespaces: string[];
  workers: number;
  fieldManager: string;
  resyncMs: number;
  /** Rollout settings that override every kind's (see RolloutOptions). */
  rollout?: RolloutOptions;
  /** Only the resources this selects, and their children: a shard (`--watch-label-selector`). */
  watchLabelSelector?: string;
  /** A member of a sharded controller on the labels read path: its ring's labels (controller/sharding). */
  shard?: { label: string; drain: string };
  /**
   * A member of a sharded controller on the ranges read path: its caches hold the share the API server's
   * sharded list and watch give them (nothing until reshard).
   */
  shardedWatch?: boolean;
  /** The spans of the reconciles (controller/tracing). @default - Tracing.off */
  tracing?: Tracing;
}

export class Manager implements ClusterView {
  readonly queue: WorkQueue;
  private readonly caches: Caches;
  /** Where each kind stands: it is reconciled once the caches it reads have synced. */
  private readonly states: KindStates;
  /**
   * Metadata of the CRDs: one installed (or established) later wakes the informers waiting for it. Not
   * when confined to namespaces: a namespaced install grants nothing cluster-wide (the informers' backoff,
   * at most 30 s, picks a new CRD up then).
   */
  private readonly crds?: Informer;
  private readonly reconciler: Reconciler;
  private readonly selector?: LabelSelector;
  private readonly events: EventRecorder;
  /** Ends every watch as dead when the API server stops answering (see ConnectionProbe). */
  private readonly probe: ConnectionProbe;
  /** The handlers of kinds with external work, run beside the reconciles (controller/external); the writer. */
  readonly external: ExternalRunner;
  private readonly writer: KubeWriter;
  /** The objects resources' inputs name, each watched by name while read (controller/inputs/watches.ts). */
  private readonly inputWatches: ReferenceWatches;

  constructor(
    client: KubeClient,
    private readonly kinds: KindRegistry,
    private readonly options: ManagerOptions,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    this.selector = options.watchLabelSelector ? parseLabelSelector(options.watchLabelSelector) : undefined;
    // Each kind takes its turn: a burst of one kind's resources never holds up another kind's change.
    this.queue = new WorkQueue({ observer: metrics.queueObserver, groupOf: kindOfKey });
    metrics.watchQueue(this.queue);
    metrics.controllers(
      kinds.kinds.map((k) => k.kind),
      options.workers,
    );
    const writer = (this.writer = new KubeWriter(client, options.fieldManager));
    this.probe = new ConnectionProbe(
      client,
      {
        dead: () => {
          client.resetStalled?.();
          for (const informer of this.everyInformer()) informer.connectionLost();
        },
        // Requests still waiting on connections that died meanwhile fail now and are retried on new ones.
        back: () => {
          client.resetStalled?.();
          for (const informer of this.everyInformer()) informer.retryNow();
        },
        heardSince: (ms) => this.everyInformer().some((informer) => informer.lastHeardAt >= ms),
      },
      log,
    );
    // Events yield to reconciles: while resources wait in the queue, they go out at a trickle.
    const tracing = options.tracing ?? Tracing.off;
    this.events = new EventRecorder(writer, log, {
      busy: () => this.queue.length > 0,
      ...(tracing.on ? { annotations: tracing.eventAnnotations } : {}),
    });
    const enqueue = (kind: Kind, ns: string | undefined, name: string) =>
      this.queue.add(objectKey(kind, ns, name));
    this.external = new ExternalRunner({ reader: writer, enqueue, tracing });
    this.inputWatches = new ReferenceWatches(client, {
      enqueue: (key, type, event) => {
        this.queue.addBatched(key, GATHER_MS);
        metrics.watchEvent(parseObjectKey(key).kind, type.plural, event, true);
      },
      log,
      observer: { watchRestarts: (resource, reason) => metrics.watchRestarts(resource, reason) },
    });
    this.reconciler = new Reconciler({
      view: this,
      writer,
      events: this.events,
      log,
      kindAnnotations: (definition) => this.crds?.get(undefined, crdName(definition))?.metadata.annotations,
      reads: kubeLiveReads(client),
      rollout: options.rollout,
      copyLabels: this.selector?.keys,
      ...(options.shardedWatch ? { bucketLabel: BUCKET_LABEL } : {}),
      shard: options.shard,
      busy: () => this.queue.length > 0,
      enqueue,
      external: this.external,
      inputWatches: this.inputWatches,
      drifted: (kind, childKind) => metrics.drifted(kind, childKind),
      tracing,
    });
    const revised = kinds.kinds.filter((k) => k.revision !== undefined);
    if (revised.length > 0) {
      metrics.watchRollouts(() =>
        revised.map((k) => ({ kind: k.kind, ...this.reconciler.rolloutCounts(k) })),
      );
    }
    this.states = new KindStates(kinds.kinds, log, metrics, (definition) => this.enqueueKind(definition));
    const observer: InformerObserver = {
      watchRestarts: (resource, reason) => metrics.watchRestarts(resource, reason),
      stateChanged: () => this.states.refresh(),
    };
    this.caches = new Caches(client, options.namespaces, log, observer);
    const { reads } = this.reconciler.kindReads;
    for (const watch of watchTable(kinds.kinds, this.selector, options.shardedWatch, reads)) {
      const { reconciler } = this;
      const routing = {
        queue: this.queue,
        kinds,
        metrics,
        blockedBy: reconciler.blockedBy,
        echoes: reconciler.echoes(),
      };
      this.states.need(watch.kind, this.caches.open(watch, watchHandlers(watch, routing)));
    }
    // A CRD installed after the controller started (or reinstalled) is picked up within a second or so,
    // not after the informer's backoff (up to 30 s): as a kind installed after the operator, in
    // controller-runtime, starts working without a restart.
    if (options.namespaces.length > 0) return;
    this.crds = new Informer(
      client,
      { type: CUSTOM_RESOURCE_DEFINITION, metadataOnly: true, transform: nameAndSuspension },
      {
        onAdd: (crd) => this.wake(crd),
        onUpdate: (before, crd) => {
          this.wake(crd);
          // A kind suspended or resumed (reconstruct suspend KIND --kind): each of its resources says so now.
          if (!sameJson(before.metadata.annotations, crd.metadata.annotations)) {
            const definition = this.kinds.kinds.find((k) => crdName(k) === crd.metadata.name);
            if (definition && this.states.of(definition)?.state === 'ready') this.enqueueKind(definition);
          }
        },
      },
      log,
      { watchRestarts: (resource, reason) => metrics.watchRestarts(resource, reason) },
    );
  }

  /** Retries now every informer of the resource a CRD defines (its name is `plural.group`). */
  private wake(crd: KubeObject): void {
    for (const informer of this.caches.all()) {
      if (informer.resourceName === crd.metadata.name) informer.retryNow();
    }
  }

  private parseQueueKey(key: string): { definition: Kind; namespace?: string; name: string } {
    const { apiVersion, kind, namespace, name } = parseObjectKey(key);
    const definition = this.kinds.get(apiVersion, kind);
    if (!definition) throw new Error(`no kind for queue key ${key}`);
    return { definition, namespace, name };
  }

  get(type: ApiKind, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.caches.get(type, namespace, name);
  }

  list(type: ApiKind, namespace?: string, match?: LabelMatch): KubeObject[] {
    return this.caches.list(type, namespace, match);
  }

  exists(type: ApiKind, namespace: string | undefined, name: string): boolean {
    return this.caches.exists(type, namespace, name);
  }

  /** The caches, the watches of inputs and the CRD watch. */
  private everyInformer(): Informer[] {
    return [...this.caches.all(), ...this.inputWatches.informers(), ...(this.crds ? [this.crds] : [])];
  }

  /** Starts every watch; the caches fill whether or not this replica leads, so a takeover is quick. */
  start(): void {
    for (const informer of this.caches.all()) informer.start();
    this.inputWatches.start();
    this.crds?.start();
    this.probe.start();
  }

  /** Every kind's state, as /readyz?verbose shows it. */
  kindStates(): KindState[] {
    return this.states.all();
  }

  /**
   * Ready for traffic: no kind is still filling its caches (a refused kind does not hold the others up);
   * once ready, a member listing a new share stays so (its webhook serves on).
   */
  isReady(): boolean {
    this.readyOnce ||= this.states.isReady();
    return this.readyOnce;
  }
  private readyOnce = false;

  /**
   * A member of a sharded controller on the ranges read path holds `ranges` now (see Caches.reshard).
   * Until the new share is listed its kinds are not ready: nothing is reconciled from a cache that still
   * holds what the member is letting go of.
   */
  reshard(ranges: HashRanges): Promise<void> {
    return this.caches.reshard(ranges);
  }

  /** How many resources of each kind this controller holds (a member of a ring: its share). */
  heldCounts(): { kind: string; resources: number }[] {
    return this.kinds.kinds.map((k) => ({ kind: k.kind, resources: this.list(k).length }));
  }

  /**
   * Takes no work from now on until resume(): a member of a ring that lost its Lease, whose share goes to
   * the others. Keys taken from the queue meanwhile are dropped; resume() enqueues every resource again.
   */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.enqueueAll();
  }
  private paused = false;

  /** Resolves once the reconciles in flight now have finished. */
  async quiesce(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
  private readonly inFlight = new Set<Promise<unknown>>();

  /**
   * Enqueues every resource of every ready kind, as a periodic resync does (at low priority:
   * nothing changed). A kind that becomes ready, or unavailable, later has its resources enqueued then.
   */
  enqueueAll(): void {
    for (const definition of this.kinds.kinds) {
      if (this.states.of(definition)?.state === 'ready') this.enqueueKind(definition);
    }
  }

  private enqueueKind(definition: Kind): void {
    for (const obj of this.list(definition)) {
      this.queue.add(objectKey(definition, obj.metadata.namespace, obj.metadata.name), 'low');
    }
  }

  /** Runs the workers until the queue is shut down (see stop); resolves when they have finished. */
  async run(): Promise<void> {
    this.enqueueAll();
    const resync = setInterval(() => this.enqueueAll(), this.options.resyncMs);
    try {
      await runWorkers(
        this.queue,
        this.options.workers,
        async (key) => {
          if (this.paused) return {};
          const { definition, namespace, name } = this.parseQueueKey(key);
          const state = this.states.of(definition);
          // Its turn comes when the kind is ready (refreshStates enqueues it). A refused kind says so on
          // each resource it can read.
          if (state?.state !== 'ready') {
            if (state?.state === 'unavailable' && this.caches.of(definition).every((i) => i.hasSynced())) {
              await reportUnavailable(this, this.writer, definition, namespace, name, state.message ?? '');
            }
            return {};
          }
          const started = process.hrtime.bigint();
          let result: 'success' | 'requeue_after' | 'error' = 'success';
          this.metrics.activeWorker(definition.kind, 1);
          const reconciling = this.reconciler.reconcile(definition, namespace, name);
          this.inFlight.add(reconciling);
          try {
            const outcome = await reconciling;
            if (outcome.requeueAfterMs !== undefined) result = 'requeue_after';
            return outcome;
          } catch (err) {
            result = 'error';
            throw err;
          } finally {
            this.inFlight.delete(reconciling);
            this.metrics.activeWorker(definition.kind, -1);
            this.metrics.reconciled(definition.kind, result, Number(process.hrtime.bigint() - started) / 1e9);
          }
        },
        (key, err) => {
          const { definition, namespace, name } = this.parseQueueKey(key);
          this.log.error('reconcile failed', { kind: definition.kind, namespace, name, error: String(err) });
        },
      );
    } finally {
      clearInterval(resync);
    }
  }

  /** Resolves once the events queued so far have been sent. */
  drainEvents(): Promise<void> {
    return this.events.drain();
  }

  /** Stops taking work; `run` resolves once what is in flight has finished. */
  stopWorkers(): void {
    this.queue.shutDown();
  }

  async stop(): Promise<void> {
    this.stopWorkers();
    this.probe.stop();
    await Promise.all([...this.everyInformer().map((informer) => informer.stop()), this.inputWatches.stop()]);
  }
}
