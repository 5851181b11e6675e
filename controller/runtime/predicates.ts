/**
 * Event filters, named as controller-runtime's predicates: each says whether an update of a watched
 * object can change what a reconcile does. Adds and deletes always pass; an update passes when one of
 * a watch's predicates does. A resync reconciles everything anyway, so a filter never loses a change
 * for good, it only spares a reconcile that would find nothing to do.
 */
import { childReadiness, type ApiKind, type KubeObject } from '../../constructs/kit';

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

/** The object but its status and what the API server changes on every write (resourceVersion, managedFields). */
function withoutStatus(obj: KubeObject): unknown {
  const metadata: Record<string, unknown> = { ...obj.metadata };
  delete metadata.resourceVersion;
  delete metadata.managedFields;
  const rest: Record<string, unknown> = { ...obj, metadata };
  delete rest.status;
  return rest;
}

/** Anything but the status changed: spec, labels, annotations, owners, finalizers, deletion. */
export const notOnlyStatusChanged: UpdatePredicate = (a, b) => !sameJson(withoutStatus(a), withoutStatus(b));

/** Whether a child of `type` is ready by the kit's rules (kstatus), and what it waits for, changed. */
export function readinessChanged(type: ApiKind): UpdatePredicate {
  return (a, b) => {
    const child = { apiVersion: type.apiVersion, kind: type.kind, metadata: { name: b.metadata.name } };
    const [before, after] = [childReadiness(child, a), childReadiness(child, b)];
    return before.ready !== after.ready || before.reason !== after.reason || before.message !== after.message;
  };
}

/**
 * An update of a child of `type` is worth its owner's reconcile when anything but its status changed,
 * when its readiness by the kit's rules changed (what the owner's Ready rolls up), or when the owner's
 * kind reads objects of the type in its own code (`reads`: it may read any status field). A status
 * write that moves none of these (a Deployment's conditions' timestamps, observedGeneration caught up
 * with nothing else) wakes no one. A child without a controller owner (adopted, retained) always passes.
 */
export function childUpdate(
  type: ApiKind,
  reads: (owner: Pick<ApiKind, 'apiVersion' | 'kind'>, type: ApiKind) => boolean,
): UpdatePredicate {
  const readiness = readinessChanged(type);
  return (a, b) => {
    // The cheapest first: the owner's reads (a lookup), the readiness (a rule), then the whole object.
    const owners = (b.metadata.ownerReferences ?? []).filter((r) => r.controller);
    if (owners.length === 0 || owners.some((owner) => reads(owner, type))) return true;
    return readiness(a, b) || notOnlyStatusChanged(a, b);
  };
}
