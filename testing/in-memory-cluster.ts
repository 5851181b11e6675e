/**
 * An in-memory cluster for unit tests of a kind's reconcile (`cdk8s-reconstruct/testing`): the
 * controller's own reconciler runs against a map of objects, and every write it makes is recorded and
 * applied to the map. A test puts the world (a resource, the status another controller would write, a
 * foreign object), reconciles, and asserts the exact writes, the status and the events, in milliseconds.
 *
 * The objects, the writer and what they model of the API server are in-memory-objects.ts; here, the
 * custom resources as `kubectl apply` stores them, and the controller that runs on them.
 */
import {
  CUSTOM_RESOURCE_DEFINITION,
  crdName,
  type Kind,
  type KubeObject,
  type ApiKind,
} from '../constructs/kit';
import { createLogger, type Logger } from '../controller/log';
import { objectKey } from '../controller/kube/object-key';
import { Reconciler, type ReconcileResult } from '../controller/reconcile/reconciler';
import type { ReconcilerOptions } from '../controller/reconcile/options';
import type { Schedule } from '../controller/reconcile/troubles';
import { ExternalRunner } from '../controller/external/runner';
import { admit, admitAs } from './api-server';
import { liveReads } from './live-reads';
import { InMemoryObjects } from './in-memory-objects';

export class InMemoryCluster extends InMemoryObjects {
  readonly events: { type: string; reason: string; message: string }[] = [];
  /** Where the controller's log lines go: nowhere below errors, unless a test gives a logger of its own. */
  log: Logger = createLogger({ write: () => {}, level: 'error' });

  /**
   * Puts a custom resource of `kind`, generation 1, as the API server stores what `kubectl apply` sent:
   * admitted by its CRD (schema and CEL rules; AdmissionError names each field as kubectl would), defaulted.
   */
  putResource<Spec>(kind: Kind<Spec>, name: string, spec: Spec, namespace?: string): KubeObject {
    return this.putResourceAs(kind, kind.apiVersion, name, spec, namespace);
  }

  /**
   * Puts a custom resource sent in `apiVersion` (any of the kind's versions) as the API server does:
   * admitted by that version's schema, kept in the kind's own (`kind.convert` reads it in another).
   */
  putResourceAs(kind: Kind, apiVersion: string, name: string, spec: unknown, namespace?: string): KubeObject {
    const resource = admitAs(kind, apiVersion, { name, ...(namespace ? { namespace } : {}) }, spec);
    return this.put(kind, { ...resource, metadata: { ...resource.metadata, generation: 1 } });
  }

  /**
   * Replaces a resource's spec as the API server records a spec change: admitted as an update (transition
   * rules see the old object: a refused downgrade throws AdmissionError), defaulted, a new generation.
   */
  setSpec<Spec>(kind: Kind<Spec>, namespace: string | undefined, name: string, spec: Spec): void {
    const old = this.any(kind, namespace, name);
    if (!old) throw new Error(`no ${kind.kind} ${namespace ? `${namespace}/` : ''}${name}`);
    const metadata = { name, ...(namespace ? { namespace } : {}) };
    const admitted = admit(kind, { apiVersion: kind.apiVersion, kind: kind.kind, metadata, spec }, old);
    const generation = (old.metadata.generation ?? 0) + 1;
    this.patch(kind, namespace, name, { spec: null });
    this.patch(kind, namespace, name, { spec: admitted.spec, metadata: { generation } });
  }

  /** The resource's Ready condition. */
  ready(
    kind: ApiKind,
    namespace: string | undefined,
    name: string,
  ): { status: string; reason: string; message: string } | undefined {
    const status = this.any(kind, namespace, name)?.status as
      { conditions?: { type: string; status: string; reason: string; message: string }[] } | undefined;
    return status?.conditions?.find((c) => c.type === 'Ready');
  }

  private running?: Reconciler;

  /**
   * The external handlers of the running controller (KindOptions.external): they run in the background, as
   * in the controller; `converge` waits for them, `external.idle()` too.
   */
  external = this.externalRunner();

  /**
   * One reconcile of a resource by the controller running on this cluster (see restart()), after the
   * controller's timers that are due by `clock` (a stuck child's first read, which queues its resource
   * only when it has something to say).
   */
  async reconcile(kind: Kind, namespace: string | undefined, name: string): Promise<ReconcileResult> {
    this.running ??= this.reconciler();
    await this.runTimers();
    return this.running.reconcile(kind, namespace, name);
  }

  /** The running controller's timers, on this cluster's clock. */
  private timers: { at: number; fn: () => Promise<void>; cancelled: boolean }[] = [];

  private readonly schedule: Schedule = (ms, fn) => {
    const timer = { at: this.clock + ms, fn, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };

  private async runTimers(): Promise<void> {
    for (;;) {
      const due = this.timers.find((t) => !t.cancelled && t.at <= this.clock);
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      await due.fn();
    }
    this.timers = this.timers.filter((t) => !t.cancelled);
  }

  /**
   * Reconciles a resource as the controller would until it settles: again while a reconcile writes (its
   * watch events would bring the next) or starts an external handler (whose end queues the resource; it
   * is waited for), at most `rounds` times. Returns the last result.
   */
  async converge(
    kind: Kind,
    namespace: string | undefined,
    name: string,
    rounds = 20,
  ): Promise<ReconcileResult> {
    let result: ReconcileResult = {};
    const key = objectKey(kind, kind.namespaced ? namespace : undefined, name);
    for (let round = 0; round < rounds; round++) {
      const written = this.writes.length;
      this.queued.delete(key);
      result = await this.reconcile(kind, namespace, name);
      // A handler that settled already (a fake with no latency) queued the resource as one running does.
      const busy = this.external.busy(key) || this.queued.has(key);
      if (!busy && this.writes.length === written) return result;
      await this.external.idle();
    }
    return result;
  }

  /** Forgets what the running controller remembers between reconciles, as a restart or a new leader does. */
  restart(): void {
    this.running = undefined;
    this.timers = [];
    this.external = this.externalRunner();
  }

  /** The resources a settled handler queued (as the controller's queue would be asked to). */
  private readonly queued = new Set<string>();

  private externalRunner(): ExternalRunner {
    return new ExternalRunner({
      reader: this.writer(),
      enqueue: (kind, namespace, name) => this.queued.add(objectKey(kind, namespace, name)),
      now: () => this.clock,
    });
  }

  /** A new reconciler working on this cluster (a controller that just started), its events in `events`. */
  /** A reconciler of this cluster; `tracing` for a test of its spans (controller/tracing). */
  reconciler(extra: Pick<ReconcilerOptions, 'tracing'> = {}): Reconciler {
    return new Reconciler({
      ...extra,
      view: this,
      writer: this.writer(),
      events: { emit: (_obj, type, reason, message) => this.events.push({ type, reason, message }) },
      log: this.log,
      now: () => new Date(this.clock),
      // A kind is suspended by the annotation on its CRD, when a test puts one (as the CRD watch sees it).
      kindAnnotations: (kind) =>
        this.any(CUSTOM_RESOURCE_DEFINITION, undefined, crdName(kind))?.metadata.annotations,
      reads: liveReads(this),
      external: this.external,
      schedule: this.schedule,
      enqueue: (kind, namespace, name) => this.queued.add(objectKey(kind, namespace, name)),
    });
  }
}
