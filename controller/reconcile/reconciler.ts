/**
 * One reconcile of one custom resource, the same for every kind, as its phases read top to bottom in
 * `reconcileResource`: gone (forget it), suspended (suspend.ts: no writes but its Suspended condition),
 * finalize (finalize.ts, ordered-deletion.ts: a resource being deleted is held or released there), a
 * terminating namespace (terminating.ts), synthesize (synthesize.ts: a spec the construct refuses is said,
 * not retried), the rollout's gate (rollout.ts), apply the children (apply.ts, each by its policy; a
 * child changed by hand is repaired or, in warn mode, left), prune and sync (prune.ts, finalize.ts), a
 * kind's external work (controller/external: its finalizer first, its handlers started in the
 * background), and status: drift reported (controller/drift), the outcomes folded into a summary
 * (summary.ts), the decision made from it in one pure function (decide.ts), carried out in one place (`settle`). The kind's
 * own code reads through a view that records what it reads (kind-reads.ts). Level-based: everything is
 * computed from the current world, so a missed event or a restart is harmless. What is remembered between
 * reconciles is in one object (memory.ts).
 */
import {
  SpecError,
  requestedReconcile,
  type ClusterView,
  type CustomResource,
  type Kind,
  type SyncWait,
} from '../../constructs/kit';
import { ChildError } from '../../constructs/kit/child-kinds';
import type { EventSink } from '../kube/events';
import { objectKey } from '../kube/object-key';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';
import { DriftPhase, driftModeOf, type DriftMode } from '../drift/phase';
import { reconcileSpan } from '../tracing/reconcile-span';
import { Tracing } from '../tracing/tracing';
import { applyChildren, type ApplyDeps, type ApplyScope } from './apply';
import type { ReconcilerOptions } from './options';
import { decide, decideInvalid, type Decision } from './decide';
import type { Echoes } from './echoes';
import { finalize } from './finalize';
import { KindReads, childInputTypes } from './kind-reads';
import { ResourceMemory } from './memory';
import { OrderedDeletion } from './ordered-deletion';
import { prune } from './prune';
import {
  HELD_RECHECK_MS,
  Rollouts,
  changesChildren,
  revisionRecord,
  rolloutEvent,
  type Gate,
} from './rollout';
import { handledReconcile, isFresh, kindReadiness, writeStatus, type OtherCondition } from './status';
import { summarize, type Summary } from './summary';
import { saysSuspended, suspend, suspensionOf } from './suspend';
import type { Intent } from './intent';
import { createdChildrenOf, sameRecords, type CreatedChild } from './write-only';
import { Written } from './written';
import { letGo } from '../sharding/let-go';
import { ExternalPhase } from '../external/phase';
import { ExternalRunner } from '../external/runner';
import type { ExternalState } from '../external/steps';

export type { BlockedResource } from './blocked';
export type { ReconcilerOptions } from './options';
export { ownedBy } from './intent';

export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** One reconcile's resource, its children and what it records, as the phases after synthesis see them. */
interface Scope extends ApplyScope {
  readonly definition: Kind;
  /** Whether its children may move to the kind's revision now (rollout.ts). */
  readonly gate: Gate;
  /** What a user asked of this reconcile: a reconcile now, a resume. */
  readonly asked: { readonly requested?: string; readonly resumed: boolean };
  /** What becomes of the children changed by hand (controller/drift). */
  readonly driftMode: DriftMode;
}

type ScopeBase = Pick<Scope, 'key' | 'definition' | 'resource' | 'desired' | 'log' | 'asked'>;

/** What the status records beside the kind's fields: the write-only children made, the reconcile handled. */
const recordsOf = (created: readonly CreatedChild[], resource: CustomResource) => ({
  ...(created.length > 0 ? { createdChildren: created } : {}),
  ...handledReconcile(resource),
});

export class Reconciler {
  private readonly memory: ResourceMemory;
  readonly kindReads: KindReads; // asked by the manager's predicate of child updates
  private readonly ordered: OrderedDeletion;
  private readonly apply: ApplyDeps;
  private readonly view: ClusterView;
  private readonly writer: Writer;
  private readonly events: EventSink;
  private readonly log: Logger;
  private readonly now: () => Date;
  private readonly kindAnnotations: NonNullable<ReconcilerOptions['kindAnnotations']>;
  private readonly rollouts: Rollouts;
  private readonly enqueue: ReconcilerOptions['enqueue'];
  private readonly shard: ReconcilerOptions['shard'];
  private readonly external: ExternalPhase;
  private readonly drift: DriftPhase;
  private readonly tracing: Tracing;
  private readonly busy: () => boolean;

  constructor(options: ReconcilerOptions) {
    const { view, writer, events, log, now = () => new Date(), kindAnnotations = () => undefined } = options;
    this.view = view;
    this.writer = writer;
    this.events = events;
    this.log = log;
    this.now = now;
    this.kindAnnotations = kindAnnotations;
    this.rollouts = new Rollouts(view, now, options.rollout);
    this.enqueue = options.enqueue;
    this.busy = options.busy ?? (() => false);
    this.shard = options.shard;
    const kindReads = (this.kindReads = new KindReads(view));
    this.memory = new ResourceMemory(view, writer, events, log, now, { ...options, kindReads });
    this.ordered = new OrderedDeletion(view, writer);
    const { drift, writeOnly, unseen, echoes } = this.memory;
    const tracing = (this.tracing = options.tracing ?? Tracing.off);
    this.apply = { view, writer, drift, writeOnly, unseen, echoes, tracing };
    const enqueue = options.enqueue ?? (() => undefined);
    const steps = options.external ?? new ExternalRunner({ reader: writer, enqueue, tracing });
    this.external = new ExternalPhase(steps, writer, (d) => kindReads.viewOf(d), now, events);
    this.drift = new DriftPhase({ events, counted: options.drifted });
  }

  /** Where the kind's rollout of its revision stands (rollout.ts), for the metrics. */
  rolloutCounts = (definition: Kind) => this.rollouts.counts(definition);

  /**
   * The resources that an object, not ours, of this kind and name blocks (ErrResourceExists): to reconcile
   * again once it goes, or changes (a user may mark it for adoption).
   */
  blockedBy: ResourceMemory['blockers']['blockedBy'] = (...args) => this.memory.blockers.blockedBy(...args);

  /** The versions its writes returned, which the children's watches hear as echoes (echoes.ts). */
  readonly echoes = (): Echoes => this.memory.echoes;
  async reconcile(definition: Kind, namespace: string | undefined, name: string): Promise<ReconcileResult> {
    const key = objectKey(definition, namespace, name);
    const resource = () => this.view.get(definition, namespace, name) as CustomResource | undefined;
    const result = await reconcileSpan(this.tracing, definition, namespace, name, resource, () =>
      this.reconcileResource(definition, key, namespace, name),
    );
    // A rollout moves on: the resources whose turn came are reconciled now, not at their recheck.
    if (this.enqueue && definition.revision !== undefined) {
      for (const next of this.rollouts.next(definition)) this.enqueue(definition, next.namespace, next.name);
    }
    const soonest = Math.min(result.requeueAfterMs ?? Infinity, this.memory.dueInMs(key) ?? Infinity);
    return soonest === Infinity ? result : { requeueAfterMs: soonest };
  }

  private async reconcileResource(
    definition: Kind,
    key: string,
    namespace: string | undefined,
    name: string,
  ): Promise<ReconcileResult> {
    const resource = this.view.get(definition, namespace, name) as CustomResource | undefined;
    // A member lets go only once no handler of the resource's external work runs (never two at once).
    const draining = this.shard && resource?.metadata.labels?.[this.shard.drain] !== undefined;
    if (draining && this.external.busy(key)) return { requeueAfterMs: 1_000 };
    // Gone (the garbage collector removes its children through their ownerReferences), or let go of as
    // its ring's leader asked (it moves to another member): forget it.
    if (!resource || (this.shard && (await letGo(this.writer, definition, resource, this.shard, this.log)))) {
      for (const memory of [this.memory, this.rollouts, this.external, this.drift]) memory.forget(key);
      return {};
    }
    const log = this.log.child({ kind: definition.kind, namespace, name, ...this.tracing.logFields() });
    // Suspended: no writes but its status's word for it (a deletion still goes through finalize).
    const suspension = suspensionOf(resource, definition.kind, this.kindAnnotations(definition));
    if (!resource.metadata.deletionTimestamp && suspension) {
      return suspend(
        { writer: this.writer, events: this.events },
        definition,
        resource,
        suspension,
        log,
        this.now(),
      );
    }
    const token = requestedReconcile(resource);
    const requested = token !== undefined && this.memory.requested(key, token) ? token : undefined;
    const asked = { requested, resumed: saysSuspended(resource) };
    const phase = this.tracing.phase.bind(this.tracing);
    const inputs = await phase('inputs', () =>
      this.memory.inputs.resolve(definition, resource, log, this.external.observed(key)),
    );
    const synthesis = () => this.memory.syntheses.intents(definition, key, resource, inputs);
    const { finalizer, terminating } = this.memory;
    const children = () => synthesis().map((i) => i.child);
    const outside = await phase('external finalize', () =>
      this.external.finalize(definition, resource, children, !!requested, log),
    );
    if (outside) return outside;
    const finalized = await phase('finalize', () =>
      finalize(finalizer, this.ordered, definition, resource, synthesis, log),
    );
    if (finalized) return finalized;
    const pausedMs = terminating.pausedMs(namespace);
    if (pausedMs !== undefined) return { requeueAfterMs: pausedMs };
    let desired: Intent[];
    try {
      desired = this.tracing.spanSync('synthesize', {}, synthesis);
    } catch (err) {
      if (!(err instanceof SpecError)) throw err;
      return this.invalid({ key, definition, resource, log, asked }, err);
    }
    const scope = this.scopeOf({ key, definition, resource, desired, log, asked });
    const applied = await phase('apply', () => this.applyPhase(scope));
    if (!('created' in applied)) return applied;
    const { summary, syncWaits } = await phase('prune', () => this.pruneAndSync(scope, applied));
    const external = await phase('external', () =>
      this.external.step(definition, resource, !!(requested || asked.resumed), scope.driftMode, log),
    );
    return phase('status', () => this.statusPhase(scope, summary, syncWaits, external));
  }

  /** What the apply, prune and status phases of one reconcile share, from its synthesis on. */
  private scopeOf(base: ScopeBase): Scope {
    const { key, definition, resource, desired } = base;
    const changes = () => changesChildren(desired, this.view, resource.metadata.namespace);
    const gate = this.rollouts.gate(definition, resource, changes);
    return {
      ...base,
      created: this.memory.writeOnly.records(key, resource),
      written: new Written(),
      readByInputs: childInputTypes(definition),
      gate,
      held: gate.held,
      driftMode: driftModeOf(resource, this.kindAnnotations(definition)),
    };
  }

  /** The synthesize phase's end when the construct refuses the spec: said, and not retried. */
  private invalid({ key, definition, resource, log, asked }: Omit<ScopeBase, 'desired'>, err: SpecError) {
    const child = err instanceof ChildError ? { child: err.child } : {};
    log.warn('cannot synthesize', { ...child, field: err.field, error: err.detail });
    const records = recordsOf(this.memory.writeOnly.records(key, resource), resource);
    return this.settle(key, definition, resource, decideInvalid(err, asked), () => records);
  }

  /**
   * The apply phase: the ordered-deletion finalizer kept, every child applied, the outcomes summarized; a
   * namespace being deleted pauses here. What blocks the resource and the write-only records it ends
   * with are remembered.
   */
  private async applyPhase(scope: Scope): Promise<Summary | ReconcileResult> {
    const { key, definition, resource, desired, created, log } = scope;
    const { namespace, name, uid = '' } = resource.metadata;
    // Children that wait for each other are deleted in reverse order: a finalizer while they do.
    await this.ordered.keep(definition, resource, desired);
    const summary = summarize(await applyChildren(this.apply, scope));
    if (summary.terminating.length > 0 && namespace !== undefined) {
      const retryInMs = this.memory.terminating.refused(namespace);
      log.info('namespace is being deleted: no writes to its resources', {
        retryInMs,
        error: summary.terminating.join('; '),
      });
      return { requeueAfterMs: retryInMs };
    }
    this.memory.blockers.set(key, summary.blockers, {
      definition,
      namespace: definition.namespaced ? namespace : undefined,
      name,
    });
    this.memory.writeOnly.remember(key, uid, created);
    if (summary.created.length > 0) {
      const fresh = isFresh(resource) ? { newResource: true } : {};
      log.info('created children', { children: summary.created, ...fresh });
    }
    return summary;
  }

  /**
   * The prune and sync phase, only when every child applied (what replaces a pruned child may not be
   * there otherwise): what is no longer wanted goes, then the kind's sync.
   */
  private async pruneAndSync(
    scope: Scope,
    summary: Summary,
  ): Promise<{ summary: Summary; syncWaits: SyncWait[] }> {
    const { key, definition, resource, desired, created, log } = scope;
    if (summary.failures.length > 0) {
      if (summary.undiscoveredOnly) {
        log.info('waiting for the API server to map the kind', { error: summary.failures.join('; ') });
      }
      return { summary, syncWaits: [] };
    }
    const wanted = new Set(
      desired.map((d) => objectKey(d.type, d.child.metadata.namespace, d.child.metadata.name)),
    );
    const { view, writer } = this;
    const { writeOnly } = this.memory;
    // Held back by a rollout: what the new revision no longer renders stays too, until its turn.
    const pruned = scope.held
      ? { pruned: [], retained: [] }
      : await prune({ view, writer, writeOnly }, definition, resource, wanted, created, log);
    // Without what was pruned (remembered before, in case pruning fails, with what was just created).
    writeOnly.remember(key, resource.metadata.uid ?? '', created);
    const syncWaits = await this.memory.finalizer.sync(definition, resource, log);
    return { summary: { ...summary, ...pruned }, syncWaits };
  }

  /** The status phase: the decision made from the summary and the kind's rules, and carried out. */
  private async statusPhase(
    scope: Scope,
    summary: Summary,
    syncWaits: readonly SyncWait[],
    external: ExternalState | undefined,
  ): Promise<ReconcileResult> {
    const { key, definition, resource, desired, created, written } = scope;
    const { troubles } = this.memory;
    const { namespace: ns, name } = resource.metadata;
    const wake = () => this.enqueue?.(definition, definition.namespaced ? ns : undefined, name);
    await troubles.refresh(key, desired, written.over(this.view), ns, wake);
    const waiting = summary.waiting.join('; ');
    const context = {
      resource,
      children: desired.map((d) => d.child),
      view: written.over(this.kindReads.viewOf(definition)),
      ...(waiting ? { waiting: { ready: false, reason: 'Waiting', message: waiting } } : {}),
      ...(external?.observed !== undefined ? { observed: external.observed } : {}),
    };
    const namespace = resource.metadata.namespace;
    const decision = decide(summary, {
      ...scope.asked,
      kind: definition.kind,
      fresh: isFresh(resource),
      holdFirstStatus: this.busy() || scope.readByInputs.size > 0,
      recordsKept: sameRecords(created, createdChildrenOf(resource)),
      // A child that fails is what the reconcile says (ApplyFailed, or the kind not mapped yet): a sibling
      // that waits for it meanwhile waits behind that, not a wait of its own to report.
      waitLasts: this.memory.waits.lasts(key, summary.failures.length > 0 ? '' : waiting),
      readiness: () =>
        // Held back by a rollout, its children run the older revision: what they are is what is Ready.
        troubles.explain(
          key,
          kindReadiness(definition, context, syncWaits, scope.held ? [] : desired, namespace, external),
        ),
    });
    const { gate } = scope;
    const records = {
      ...recordsOf(created, resource),
      ...revisionRecord(definition, resource, gate, summary.failures.length === 0),
    };
    const note = rolloutEvent(resource, gate, definition.revision);
    if (note) this.events.emit(resource, note.type, note.reason, note.message);
    const rollout = (ready: boolean) => this.rollouts.condition(gate, ready, definition.revision);
    const drifts = [...summary.drifts, ...(external?.drifts ?? [])];
    const drifted = this.drift.report(key, definition.kind, resource, scope.driftMode, drifts);
    const result = await this.settle(
      key,
      definition,
      resource,
      decision,
      () => ({ ...definition.status(context), ...records }),
      (ready) => [rollout(ready), drifted].filter((c) => c !== undefined),
    );
    // A resource held back by a rollout looks for its turn: looked at again then, whatever else comes.
    const due = Math.min(
      result.requeueAfterMs ?? Infinity,
      gate.held ? HELD_RECHECK_MS : Infinity,
      external?.afterMs ?? Infinity,
    );
    return due === Infinity ? result : { requeueAfterMs: due };
  }

  /**
   * Carries out a decision, the one place that does: its events emitted, the status written (only when it
   * changed, and a write that only reports progress held a moment), the error thrown, the requeue said.
   */
  private async settle(
    key: string,
    definition: Kind,
    resource: CustomResource,
    decision: Decision,
    fields: () => object,
    others: (ready: boolean) => OtherCondition[] = () => [],
  ): Promise<ReconcileResult> {
    for (const e of decision.events) this.events.emit(resource, e.type, e.reason, e.message);
    if (decision.status) {
      const { readiness, mayHold } = decision.status;
      const values = fields();
      const extra = others(readiness.ready);
      const now = this.now();
      const holdMs = mayHold ? this.memory.progress.holdMs(key, resource, values, readiness, now, extra) : 0;
      if (holdMs > 0) return { requeueAfterMs: holdMs };
      await writeStatus(this.writer, definition, resource, values, readiness, now, extra);
    }
    if (decision.error) throw new Error(decision.error); // Backs off and retries.
    if (decision.next === 'settled') {
      this.memory.recheck.forget(key);
      return {};
    }
    if (decision.next === 'recheck') return { requeueAfterMs: this.memory.recheck.afterMs(key, resource) };
    return { requeueAfterMs: decision.next.afterMs };
  }
}
