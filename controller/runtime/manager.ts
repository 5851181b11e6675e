/**
 * Wires the informers, the work queue and the reconciler for every registered kind: resource events
 * enqueue the resource, child events enqueue their controller owner, a kind's extra watches enqueue what
 * they name, and a periodic resync enqueues everything. Only the resource's own events use the queue's
 * normal priority; the rest refresh, at low priority (see WorkQueue).
 */
import {
  CUSTOM_RESOURCE_DEFINITION,
  LABEL_INSTANCE,
  LABEL_MANAGED_BY,
  LABEL_PART_OF,
  MANAGER,
  applySetId,
  isWriteOnly,
  type ApiKind,
  type ClusterView,
  type Kind,
  type KindRegistry,
  type KubeObject,
  type LabelMatch,
} from '../../constructs/kit';
import { kindKey } from '../../constructs/kit/api-kind';
import { KubeWriter } from '../kube/writer';
import { EventRecorder } from '../kube/events';
import { Informer, type InformerObserver, type InformerOptions } from './informer';
import { ConnectionProbe } from './connection-probe';
import { KindStates, type KindState } from './kind-states';
import { objectKey, parseObjectKey } from '../kube/object-key';
import type { KubeClient } from '../kube/client';
import type { Logger } from '../log';
import type { Metrics } from './metrics';
import { anyUpdate, metadataOrSpecChanged, type UpdatePredicate } from './predicates';
import { WorkQueue, runWorkers } from './queue';
import { Reconciler } from '../reconcile/reconciler';

interface ManagerOptions {
  /** Namespaces to watch; empty for all. Cluster-scoped kinds are always watched cluster-wide. */
  namespaces: string[];
  workers: number;
  fieldManager: string;
  resyncMs: number;
}

/** What the existence cache keeps of an object: enough to name it. */
const nameOnly = (obj: KubeObject): KubeObject => ({
  metadata: {
    name: obj.metadata.name,
    namespace: obj.metadata.namespace,
    resourceVersion: obj.metadata.resourceVersion,
  },
});

export class Manager implements ClusterView {
  readonly queue: WorkQueue;
  private readonly informers = new Map<string, Informer[]>();
  /** Metadata-only, per child kind: the objects without our managed-by label (see exists()). */
  private readonly existing = new Map<string, Informer[]>();
  /** Where each kind stands: it is reconciled once the caches it reads have synced. */
  private readonly states: KindStates;
  /**
   * Metadata of the CRDs: one installed (or established) later wakes the informers waiting for it. Not
   * when confined to namespaces: a namespaced install grants nothing cluster-wide (the informers' backoff,
   * at most 30 s, picks a new CRD up then).
   */
  private readonly crds?: Informer;
  private readonly reconciler: Reconciler;
  private readonly events: EventRecorder;
  /** Ends every watch as dead when the API server stops answering (see ConnectionProbe). */
  private readonly probe: ConnectionProbe;

  constructor(
    client: KubeClient,
    private readonly kinds: KindRegistry,
    private readonly options: ManagerOptions,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    this.queue = new WorkQueue({ observer: metrics.queueObserver });
    metrics.watchQueue(this.queue);
    metrics.controllers(
      kinds.kinds.map((k) => k.kind),
      options.workers,
    );
    const writer = new KubeWriter(client, options.fieldManager);
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
    this.events = new EventRecorder(writer, log, { busy: () => this.queue.length > 0 });
    this.reconciler = new Reconciler(this, writer, this.events, log);
    this.states = new KindStates(kinds.kinds, log, metrics, (definition) => this.enqueueKind(definition));
    const observer: InformerObserver = {
      watchRestarts: (resource, reason) => metrics.watchRestarts(resource, reason),
      stateChanged: () => this.states.refresh(),
    };
    const informers = (
      type: ApiKind,
      options: Omit<InformerOptions, 'type' | 'namespace'>,
      handlers: ConstructorParameters<typeof Informer>[2],
    ) =>
      (type.namespaced && this.options.namespaces.length > 0 ? this.options.namespaces : [undefined]).map(
        (namespace) => new Informer(client, { ...options, type, namespace }, handlers, log, observer),
      );
    const add = (
      type: ApiKind,
      options: Omit<InformerOptions, 'type' | 'namespace'>,
      onEvent: (obj: KubeObject) => void,
      worthIt: UpdatePredicate = anyUpdate,
    ) => {
      const key = kindKey(type);
      const found = this.informers.get(key);
      if (found) return found;
      const made = informers(type, options, {
        onAdd: onEvent,
        onUpdate: (before, obj) => {
          if (worthIt(before, obj)) onEvent(obj);
        },
        onDelete: onEvent,
      });
      this.informers.set(key, made);
      return made;
    };
    const need = (definition: Kind, found: Informer[]) => this.states.need(definition, found);

    for (const definition of kinds.kinds) {
      const own = add(
        definition,
        {},
        (obj) => this.queue.add(objectKey(definition, obj.metadata.namespace, obj.metadata.name)),
        metadataOrSpecChanged,
      );
      need(definition, own);
    }
    // Children are filtered by the managed-by label: memory grows with what we manage, not with the cluster.
    // Indexed by ApplySet, so that pruning looks at one resource's children, not the namespace's.
    // Write-only kinds are never read: no cache, and no permission to list them.
    for (const type of kinds.kinds.flatMap((k) => k.children).filter((t) => !isWriteOnly(t))) {
      add(type, { labelSelector: `${LABEL_MANAGED_BY}=${MANAGER}`, indexLabels: [LABEL_PART_OF] }, (obj) =>
        this.enqueueOwner(obj),
      );
      // What the filtered cache cannot tell: whether a name is taken by an object that is not ours. The
      // complement of the filtered watch's selector (`!=` matches objects without the label too), so our own
      // children, and every status change of theirs, reach the controller once, not twice.
      const key = kindKey(type);
      if (!this.existing.has(key)) {
        this.existing.set(
          key,
          informers(
            type,
            { labelSelector: `${LABEL_MANAGED_BY}!=${MANAGER}`, metadataOnly: true, transform: nameOnly },
            // An object in a resource's way (ErrResourceExists) that goes, or changes (a user marks it for
            // adoption): the resource it blocks is reconciled now, not at the next resync.
            {
              onUpdate: (_before, obj) => this.unblock(type, obj),
              onDelete: (obj) => this.unblock(type, obj),
            },
          ),
        );
      }
    }
    for (const definition of kinds.kinds) {
      for (const type of definition.children.filter((t) => !isWriteOnly(t))) {
        need(definition, [...this.informersFor(type), ...(this.existing.get(kindKey(type)) ?? [])]);
      }
      for (const watch of definition.watches) {
        const { type, labelSelector, indexLabels, metadataOnly } = watch;
        const found = add(
          type,
          { labelSelector, indexLabels, metadataOnly },
          (obj) => {
            for (const owner of watch.owners(obj)) {
              if (owner.name) this.queue.add(objectKey(definition, owner.namespace, owner.name), 'low');
            }
          },
          metadataOnly ? metadataOrSpecChanged : anyUpdate,
        );
        need(definition, found);
      }
    }
    // A CRD installed after the controller started (or reinstalled) is picked up within a second or so,
    // not after the informer's backoff (up to 30 s): as a kind installed after the operator, in
    // controller-runtime, starts working without a restart.
    if (options.namespaces.length > 0) return;
    this.crds = new Informer(
      client,
      { type: CUSTOM_RESOURCE_DEFINITION, metadataOnly: true, transform: nameOnly },
      { onAdd: (crd) => this.wake(crd), onUpdate: (_before, crd) => this.wake(crd) },
      log,
      { watchRestarts: (resource, reason) => metrics.watchRestarts(resource, reason) },
    );
  }

  /** Retries now every informer of the resource a CRD defines (its name is `plural.group`). */
  private wake(crd: KubeObject): void {
    for (const informer of this.all()) {
      if (informer.resourceName === crd.metadata.name) informer.retryNow();
    }
  }

  private parseQueueKey(key: string): { definition: Kind; namespace?: string; name: string } {
    const { apiVersion, kind, namespace, name } = parseObjectKey(key);
    const definition = this.kinds.get(apiVersion, kind);
    if (!definition) throw new Error(`no kind for queue key ${key}`);
    return { definition, namespace, name };
  }

  /**
   * Enqueues the resource a child belongs to: its controller ownerReference, or, for a child without one (a
   * retained child, or one marked for adoption), the resource its instance and ApplySet labels name.
   */
  private enqueueOwner(obj: KubeObject): void {
    const enqueue = (definition: Kind, name: string) =>
      this.queue.add(
        objectKey(definition, definition.namespaced ? obj.metadata.namespace : undefined, name),
        'low',
      );
    let owned = false;
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (!ref.controller) continue;
      owned = true;
      const definition = this.kinds.get(ref.apiVersion, ref.kind);
      if (definition) enqueue(definition, ref.name);
    }
    const name = obj.metadata.labels?.[LABEL_INSTANCE];
    const partOf = obj.metadata.labels?.[LABEL_PART_OF];
    if (owned || !name || !partOf) return;
    for (const definition of this.kinds.kinds) {
      const namespace = definition.namespaced ? obj.metadata.namespace : undefined;
      const parent = {
        apiVersion: definition.apiVersion,
        kind: definition.kind,
        metadata: { name, namespace },
      };
      if (applySetId(parent) === partOf) enqueue(definition, name);
    }
  }

  private unblock(type: ApiKind, obj: KubeObject): void {
    for (const { definition, namespace, name } of this.reconciler.blockedBy(
      type,
      obj.metadata.namespace,
      obj.metadata.name,
    )) {
      this.queue.add(objectKey(definition, namespace, name));
    }
  }

  private informersFor(type: ApiKind): Informer[] {
    const found = this.informers.get(kindKey(type));
    if (!found) throw new Error(`no informer for ${kindKey(type)}`);
    return found;
  }

  get(type: ApiKind, namespace: string | undefined, name: string): KubeObject | undefined {
    for (const informer of this.informersFor(type)) {
      const obj = informer.get(type.namespaced ? namespace : undefined, name);
      if (obj) return obj;
    }
    return undefined;
  }

  list(type: ApiKind, namespace?: string, match?: LabelMatch): KubeObject[] {
    return this.informersFor(type).flatMap((informer) =>
      informer.list(type.namespaced ? namespace : undefined, match),
    );
  }

  exists(type: ApiKind, namespace: string | undefined, name: string): boolean {
    const found = this.existing.get(kindKey(type));
    if (!found) throw new Error(`no existence cache for ${kindKey(type)}`);
    return (
      this.get(type, namespace, name) !== undefined ||
      found.some((informer) => informer.get(type.namespaced ? namespace : undefined, name) !== undefined)
    );
  }

  private all(): Informer[] {
    return [...this.informers.values(), ...this.existing.values()].flat();
  }

  /** The caches and the CRD watch. */
  private everyInformer(): Informer[] {
    return [...this.all(), ...(this.crds ? [this.crds] : [])];
  }

  /** Starts every watch; the caches fill whether or not this replica leads, so a takeover is quick. */
  start(): void {
    for (const informer of this.all()) informer.start();
    this.crds?.start();
    this.probe.start();
  }

  /** Every kind's state, as /readyz?verbose shows it. */
  kindStates(): KindState[] {
    return this.states.all();
  }

  /** Ready for traffic: no kind is still filling its caches (a refused kind does not hold the others up). */
  isReady(): boolean {
    return this.states.isReady();
  }

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
          const { definition, namespace, name } = this.parseQueueKey(key);
          const state = this.states.of(definition);
          // Its turn comes when the kind is ready (refreshStates enqueues it). A refused kind says so on
          // each resource it can read.
          if (state?.state !== 'ready') {
            if (state?.state === 'unavailable' && this.informersFor(definition).every((i) => i.hasSynced())) {
              await this.reconciler.reportUnavailable(definition, namespace, name, state.message ?? '');
            }
            return {};
          }
          const started = process.hrtime.bigint();
          let result: 'success' | 'requeue_after' | 'error' = 'success';
          this.metrics.activeWorker(definition.kind, 1);
          try {
            const outcome = await this.reconciler.reconcile(definition, namespace, name);
            if (outcome.requeueAfterMs !== undefined) result = 'requeue_after';
            return outcome;
          } catch (err) {
            result = 'error';
            throw err;
          } finally {
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
    await Promise.all(this.everyInformer().map((informer) => informer.stop()));
  }
}
