/**
 * What the apply phase did to a resource's children, folded once from the outcomes of each child (and the
 * prune's result added when it ran): the one record the decision reads.
 */
import type { ChildOutcome, DriftedChild } from './intent';

export interface Summary {
  /** Children created, sorted (`Deployment web`). */
  readonly created: readonly string[];
  /** Children updated or adopted, sorted. */
  readonly updated: readonly string[];
  /** What the children that wait for a sibling say, sorted. */
  readonly waiting: readonly string[];
  /** Children whose name another object holds, sorted. */
  readonly conflicts: readonly string[];
  /** Why each child that failed to apply failed, in the children's order. */
  readonly failures: readonly string[];
  /** The keys of the objects in the way that the existence caches watch (see Blockers). */
  readonly blockers: readonly string[];
  /** The refusals of writes into a namespace being deleted. */
  readonly terminating: readonly string[];
  /** Every failure is the API server not mapping the resource's kind yet (a CRD just installed). */
  readonly undiscoveredOnly: boolean;
  /** Children the prune deleted, and those it released by their retain policy, sorted. */
  readonly pruned: readonly string[];
  readonly retained: readonly string[];
  /** Children changed by hand: updated back (correct), or left as they are (warn). */
  readonly drifts: readonly DriftedChild[];
}

/** The outcomes folded into a summary, in one pass. */
export function summarize(outcomes: readonly ChildOutcome[]): Summary {
  const created: string[] = [];
  const updated: string[] = [];
  const waiting: string[] = [];
  const conflicts: string[] = [];
  const failures: string[] = [];
  const blockers: string[] = [];
  const terminating: string[] = [];
  const drifts: DriftedChild[] = [];
  let undiscovered = false;
  let otherFailure = false;
  for (const o of outcomes) {
    if (o.kind === 'created') created.push(o.label);
    else if (o.kind === 'updated' || o.kind === 'adopted') updated.push(o.label);
    else if (o.kind === 'waiting') waiting.push(o.message ?? o.label);
    else if (o.kind === 'conflict') {
      conflicts.push(o.label);
      if (o.blocker) blockers.push(o.blocker);
    } else if (o.kind === 'failed') {
      failures.push(o.message ?? o.label);
      if (o.undiscovered) undiscovered = true;
      else otherFailure = true;
    }
    if (o.terminating) terminating.push(o.message ?? o.label);
    if (o.drift) drifts.push(o.drift);
  }
  return {
    created: created.sort(),
    updated: updated.sort(),
    waiting: waiting.sort(),
    conflicts: conflicts.sort(),
    failures,
    blockers,
    terminating,
    undiscoveredOnly: undiscovered && !otherFailure,
    pruned: [],
    retained: [],
    drifts,
  };
}
