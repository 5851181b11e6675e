/**
 * A new revision of a kind (`defineKind({ revision })`) reaches the resources that run an older one at a
 * bounded pace, as kro's GraphRevisions and Crossplane's CompositionRevisions do: oldest first, at most
 * `maxInFlight` moved and not Ready again yet, and none while `failureThreshold` moved resources are not
 * Ready `progressDeadlineSeconds` after they moved. A resource that is new, whose spec changed (its user
 * asked), or whose children the new revision leaves as they are, moves at once and takes no turn. A
 * resource held back keeps its children as they are (no update, no prune; a missing child is still
 * made) and says so in a `Rollout` condition; one moving says since when (`Rollout=True`, `Moving`) until
 * it is Ready again. Level-based: what is pending, moving or failed is read from the resources' status in
 * the caches (`status.lastAppliedRevision` and that condition), so a restart picks the rollout up where
 * it was; only the moves made since the caches last showed them are remembered. Suspending the kind
 * pauses it.
 */
import {
  isWriteOnly,
  type ClusterView,
  type CustomResource,
  type Kind,
  type RolloutOptions,
} from '../../constructs/kit';
import { applyNeeded } from './converge';
import type { Intent } from './intent';
import { objectKey } from '../kube/object-key';
import type { Condition, OtherCondition } from './status';

export const ROLLOUT_CONDITION = 'Rollout';

interface Status {
  lastAppliedRevision?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}
const statusOf = (r: CustomResource): Status => r.status ?? {};
const conditionOf = (r: CustomResource, type: string) => statusOf(r).conditions?.find((c) => c.type === type);
const isReady = (r: CustomResource) => conditionOf(r, 'Ready')?.status === 'True';
const createdAt = ({ metadata }: CustomResource): string =>
  typeof metadata.creationTimestamp === 'string' ? metadata.creationTimestamp : '';
const movingSince = (r: CustomResource): string | undefined => {
  const c = conditionOf(r, ROLLOUT_CONDITION);
  return c?.status === 'True' ? c.lastTransitionTime : undefined;
};

/** What a reconcile may do with a resource's children, for the kind's revision. */
export type Gate =
  /** Apply as usual. `moving`: it moves to the revision by the rollout (now, or since earlier). */
  | { readonly held: false; readonly moving?: { readonly from: string; readonly admitted: boolean } }
  /** Leave its children as they are: its turn has not come, or the rollout stopped. */
  | { readonly held: true; readonly condition: OtherCondition; readonly stopped: boolean };

const GO: Gate = { held: false };

/** The resources of a kind as the rollout sees them, at one moment. */
interface Snapshot {
  readonly at: number;
  /** Oldest first: those that run an older revision, their spec unchanged. */
  readonly pending: readonly CustomResource[];
  readonly moving: ReadonlySet<string>;
  /** Every resource that runs the revision: moving, failed, or Ready again. */
  readonly atRevision: ReadonlySet<string>;
  readonly failed: readonly string[];
  readonly done: number;
}

/** How long a snapshot of a kind's resources is used before it is taken again. */
const SNAPSHOT_MS = 500;
/** How soon a pending resource asked to reconcile is asked again. */
const KICK_AGAIN_MS = 5_000;

export class Rollouts {
  private readonly snapshots = new Map<string, Snapshot>();
  /** By kind and revision: the keys moved since, with when, until the caches show them moving. */
  private readonly admitted = new Map<string, Map<string, number>>();
  private readonly kicked = new Map<string, number>();

  constructor(
    private readonly view: ClusterView,
    private readonly now: () => Date,
    private readonly overrides: RolloutOptions = {},
  ) {}

  settings(definition: Kind): Required<RolloutOptions> {
    const defined = Object.fromEntries(Object.entries(this.overrides).filter(([, v]) => v !== undefined));
    return { ...definition.rollout, ...defined };
  }

  /**
   * Whether the resource's children may move to the kind's revision now. `changes`: whether applying the
   * new revision would change a child that exists (asked only for a resource that runs an older one).
   */
  gate(definition: Kind, resource: CustomResource, changes: () => boolean): Gate {
    const revision = definition.revision;
    const { lastAppliedRevision: applied, observedGeneration } = statusOf(resource);
    if (revision === undefined || applied === undefined) return GO;
    if (applied === revision) {
      return movingSince(resource) ? { held: false, moving: { from: '', admitted: false } } : GO;
    }
    // Its user changed the spec: the change goes at once, with the new revision.
    if (observedGeneration !== resource.metadata.generation) return GO;
    const key = this.key(definition, resource);
    const admitted = this.admittedOf(definition);
    // Moved since the caches last showed its status; or its children are at the revision already (moved
    // just now, or by a process that stopped before it could say so): moving until it is Ready.
    if (admitted.has(key) || !changes()) return { held: false, moving: { from: applied, admitted: false } };
    const { maxInFlight, failureThreshold, progressDeadlineSeconds } = this.settings(definition);
    const snapshot = this.snapshot(definition);
    if (snapshot.failed.length >= failureThreshold) {
      const message =
        `the rollout of revision ${revision} stopped: ${snapshot.failed.length} resource(s) moved to it are not ` +
        `Ready after ${progressDeadlineSeconds} s (${snapshot.failed.slice(0, 5).join(', ')}); ` +
        `this one runs ${applied} until fewer are`;
      return { held: true, stopped: true, condition: condition('False', 'Stopped', message) };
    }
    const free = maxInFlight - this.inFlight(definition, snapshot);
    const waiting = this.waiting(definition, snapshot);
    const turn = waiting.findIndex((r) => this.key(definition, r) === key);
    if (free > 0 && turn >= 0 && turn < free) {
      admitted.set(key, this.now().getTime());
      return { held: false, moving: { from: applied, admitted: true } };
    }
    const message =
      `revision ${revision} is rolled out ${maxInFlight} resource(s) at a time, oldest first: ` +
      `this one runs ${applied} until its turn (${waiting.length} waiting)`;
    return { held: true, stopped: false, condition: condition('False', 'Waiting', message) };
  }

  /** The condition a resource's status carries for the rollout, given its readiness now. */
  condition(gate: Gate, ready: boolean, revision: string | undefined): OtherCondition | undefined {
    if (gate.held) return gate.condition;
    if (!gate.moving || ready || revision === undefined) return undefined;
    const from = gate.moving.from ? ` from ${gate.moving.from}` : '';
    return condition('True', 'Moving', `moving to revision ${revision}${from}: until it is Ready again`);
  }

  /**
   * The resources of the kind to reconcile now because their turn has come (a moved one became Ready,
   * or failed no more), oldest first; each asked at most every few seconds.
   */
  next(definition: Kind): { namespace?: string; name: string }[] {
    if (definition.revision === undefined) return [];
    const snapshot = this.snapshot(definition);
    const { maxInFlight, failureThreshold } = this.settings(definition);
    if (snapshot.pending.length === 0 || snapshot.failed.length >= failureThreshold) return [];
    const free = maxInFlight - this.inFlight(definition, snapshot);
    const now = this.now().getTime();
    const due = this.waiting(definition, snapshot).slice(0, Math.max(0, free));
    return due
      .filter((r) => {
        const key = this.key(definition, r);
        if ((this.kicked.get(key) ?? 0) > now) return false;
        this.kicked.set(key, now + KICK_AGAIN_MS);
        return true;
      })
      .map((r) => ({ namespace: r.metadata.namespace, name: r.metadata.name }));
  }

  /** How the kind's resources stand, for the metrics. */
  counts(definition: Kind): { pending: number; moving: number; failed: number; done: number } {
    if (definition.revision === undefined) return { pending: 0, moving: 0, failed: 0, done: 0 };
    const s = this.snapshot(definition);
    const moving = this.inFlight(definition, s);
    return { pending: s.pending.length, moving, failed: s.failed.length, done: s.done };
  }

  forget(key: string): void {
    for (const admitted of this.admitted.values()) admitted.delete(key);
    this.kicked.delete(key);
  }

  /** The pending resources not moved since the snapshot, oldest first: the queue of turns. */
  private waiting(definition: Kind, snapshot: Snapshot): readonly CustomResource[] {
    const admitted = this.admittedOf(definition);
    return snapshot.pending.filter((r) => !admitted.has(this.key(definition, r)));
  }

  /** Moved and not Ready again, not failed: those the caches show moving, and those moved since. */
  private inFlight(definition: Kind, snapshot: Snapshot): number {
    const admitted = this.admittedOf(definition);
    for (const key of admitted.keys()) if (snapshot.atRevision.has(key)) admitted.delete(key);
    return snapshot.moving.size + admitted.size;
  }

  private key(definition: Kind, r: CustomResource): string {
    return objectKey(definition, r.metadata.namespace, r.metadata.name);
  }

  private admittedOf(definition: Kind): Map<string, number> {
    const id = `${definition.apiVersion}/${definition.kind}@${definition.revision}`;
    let admitted = this.admitted.get(id);
    if (!admitted) this.admitted.set(id, (admitted = new Map<string, number>()));
    return admitted;
  }

  private snapshot(definition: Kind): Snapshot {
    const id = `${definition.apiVersion}/${definition.kind}`;
    const now = this.now().getTime();
    const last = this.snapshots.get(id);
    if (last && now - last.at < SNAPSHOT_MS) return last;
    const revision = definition.revision;
    const deadlineMs = this.settings(definition).progressDeadlineSeconds * 1000;
    const pending: CustomResource[] = [];
    const moving = new Set<string>();
    const atRevision = new Set<string>();
    const failed: string[] = [];
    let done = 0;
    for (const r of this.view.list(definition) as CustomResource[]) {
      if (r.metadata.deletionTimestamp) continue;
      const { lastAppliedRevision: applied, observedGeneration } = statusOf(r);
      if (applied === undefined) continue;
      if (applied !== revision) {
        if (observedGeneration === r.metadata.generation) pending.push(r);
        continue;
      }
      done += 1;
      atRevision.add(this.key(definition, r));
      const since = movingSince(r);
      if (!since || isReady(r)) continue;
      if (now - Date.parse(since) > deadlineMs) failed.push(r.metadata.name);
      else moving.add(this.key(definition, r));
    }
    pending.sort(
      (a, b) =>
        createdAt(a).localeCompare(createdAt(b)) ||
        this.key(definition, a).localeCompare(this.key(definition, b)),
    );
    const snapshot = { at: now, pending, moving, atRevision, failed: failed.sort(), done };
    this.snapshots.set(id, snapshot);
    return snapshot;
  }
}

const condition = (status: string, reason: string, message: string): OtherCondition => ({
  type: ROLLOUT_CONDITION,
  status,
  reason,
  message,
});

/** How often a resource held back by a rollout looks for its turn, should nothing call it sooner. */
export const HELD_RECHECK_MS = 30_000;

/**
 * Whether applying `desired` would change a child that exists (a missing one is made whatever the
 * revision: that is repair, not a rollout).
 */
export function changesChildren(desired: readonly Intent[], view: ClusterView, namespace?: string): boolean {
  return desired.some(({ type, child, policy, applied }) => {
    if (isWriteOnly(type) || policy.createOnly) return false;
    const live = view.get(
      type,
      type.namespaced ? (child.metadata.namespace ?? namespace) : undefined,
      child.metadata.name,
    );
    return live !== undefined && applyNeeded(applied, live) !== undefined;
  });
}

/**
 * `status.lastAppliedRevision`: the kind's revision once this reconcile applied every child, else what it
 * was (a resource held back runs the old one).
 */
export function revisionRecord(
  definition: Kind,
  resource: CustomResource,
  gate: Gate,
  applied: boolean,
): { lastAppliedRevision?: string } {
  if (definition.revision === undefined) return {};
  const before = statusOf(resource).lastAppliedRevision;
  const now = !gate.held && applied ? definition.revision : before;
  return now !== undefined ? { lastAppliedRevision: now } : {};
}

/** The event of a rollout step for this resource: it moves now, or the rollout just stopped for it. */
export function rolloutEvent(
  resource: CustomResource,
  gate: Gate,
  revision: string | undefined,
): { type: 'Normal' | 'Warning'; reason: string; message: string } | undefined {
  if (!gate.held && gate.moving?.admitted) {
    return {
      type: 'Normal',
      reason: 'RevisionRollout',
      message: `moving to revision ${revision} from ${gate.moving.from}`,
    };
  }
  if (gate.held && gate.stopped && conditionOf(resource, ROLLOUT_CONDITION)?.reason !== 'Stopped') {
    return { type: 'Warning', reason: 'RevisionRollout', message: gate.condition.message };
  }
  return undefined;
}
