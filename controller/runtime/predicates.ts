/**
 * Event filters, named as controller-runtime's predicates: each says whether an update of a watched
 * object can change what a reconcile does. Adds and deletes always pass; an update passes when one of
 * a watch's predicates does. A resync reconciles everything anyway, so a filter never loses a change
 * for good, it only spares a reconcile that would find nothing to do.
 */
import type { KubeObject } from '../../constructs/kit';

/** Whether an update (the object before and after) is worth a reconcile. */
export type UpdatePredicate = (before: KubeObject, after: KubeObject) => boolean;

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The spec changed (the API server raises metadata.generation on every spec change, never on status). */
export const generationChanged: UpdatePredicate = (a, b) => a.metadata.generation !== b.metadata.generation;

/** Deletion started: metadata.deletionTimestamp appeared. */
export const deletionStarted: UpdatePredicate = (a, b) =>
  a.metadata.deletionTimestamp !== b.metadata.deletionTimestamp;

export const labelsChanged: UpdatePredicate = (a, b) => !sameJson(a.metadata.labels, b.metadata.labels);

export const annotationsChanged: UpdatePredicate = (a, b) =>
  !sameJson(a.metadata.annotations, b.metadata.annotations);

export const finalizersChanged: UpdatePredicate = (a, b) =>
  !sameJson(a.metadata.finalizers, b.metadata.finalizers);

/** Every update: for children, whose status is what the owner's readiness reads. */
export const anyUpdate: UpdatePredicate = () => true;

/** Passes when one of the predicates does (controller-runtime's predicate.Or). */
export function or(...predicates: UpdatePredicate[]): UpdatePredicate {
  return (a, b) => predicates.some((p) => p(a, b));
}

/**
 * What can change a reconcile of a resource, or of the owner of an object watched by its metadata only
 * (a Memcached's pods): the spec, labels, annotations, finalizers and deletion. Not a status-only update
 * (our own status writes, mostly) nor one that left the metadata as it was.
 */
export const metadataOrSpecChanged: UpdatePredicate = or(
  generationChanged,
  deletionStarted,
  labelsChanged,
  annotationsChanged,
  finalizersChanged,
);
