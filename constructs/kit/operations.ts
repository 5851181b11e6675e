/**
 * The annotations by which a user steers the controller on one resource (docs/OPERATING.md): suspend and
 * resume it, ask for a reconcile now, and say what becomes of a child changed by hand. Flux's `kustomize.toolkit.fluxcd.io/reconcile: disabled` and
 * `reconcile.fluxcd.io/requestedAt`, in our domain.
 */
import type { CustomResource } from './resource';

/** `disabled`: the controller writes nothing for the resource and its children until the annotation goes. */
export const RECONCILE_ANNOTATION = 'reconstruct.dev/reconcile';
export const RECONCILE_DISABLED = 'disabled';
/** Who suspended the resource, as `reconstruct suspend` found it (the API server's name for the user). */
export const SUSPENDED_BY_ANNOTATION = 'reconstruct.dev/suspended-by';
/** Why, in the words of `reconstruct suspend --reason`. */
export const SUSPEND_REASON_ANNOTATION = 'reconstruct.dev/suspend-reason';
/** Any new value: reconcile now; `status.lastHandledReconcileAt` echoes the last value handled. */
export const REQUESTED_AT_ANNOTATION = 'reconstruct.dev/requested-at';
/**
 * `warn` or `correct` (the default), on a resource or its kind's CRD: what the controller does with a child
 * changed by hand (controller/drift): report it and leave it, or repair it and report it.
 */
export const DRIFT_ANNOTATION = 'reconstruct.dev/drift';

/**
 * The W3C `traceparent` of the reconcile that last wrote a resource, set by the controller (with tracing
 * on) on a child that is a resource of another of its kinds: that resource's reconciles link to it.
 */
export const TRACEPARENT_ANNOTATION = 'reconstruct.dev/traceparent';

/** The trace id of the reconcile that emitted an Event (with tracing on). */
export const TRACE_ID_ANNOTATION = 'reconstruct.dev/trace-id';

/**
 * The CustomResourceDefinition's name of a kind (`plural.group`): the same annotation on it suspends the
 * reconcile of every resource of the kind (`reconstruct suspend KIND --kind`).
 */
export const crdName = (kind: { plural: string; group: string }): string => `${kind.plural}.${kind.group}`;

/** Whether the resource's reconcile is suspended by its annotation. */
export function isSuspended(resource: Pick<CustomResource, 'metadata'>): boolean {
  return resource.metadata.annotations?.[RECONCILE_ANNOTATION] === RECONCILE_DISABLED;
}

/** The reconcile the resource asks for and the status has not said handled yet, if any. */
export function requestedReconcile(
  resource: Pick<CustomResource, 'metadata' | 'status'>,
): string | undefined {
  const requested = resource.metadata.annotations?.[REQUESTED_AT_ANNOTATION];
  const handled = (resource.status as { lastHandledReconcileAt?: string } | undefined)
    ?.lastHandledReconcileAt;
  return requested !== undefined && requested !== handled ? requested : undefined;
}
