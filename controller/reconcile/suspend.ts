/**
 * The suspend phase: a resource annotated `reconstruct.dev/reconcile: disabled` gets no writes, for itself
 * or its children (no apply, no prune, no sync), but one: its status gains a `Suspended` condition saying
 * since when, by whom and why (its Ready condition stays what it was: the children run on, untouched).
 * The watches go on, so removing the annotation reconciles at once; the status then drops the condition
 * and a `Resumed` event says so. A suspended resource being deleted is finalized as usual (the deletion is
 * a user's explicit act, and Flux does the same): the finalize phase runs before this one.
 */
import {
  RECONCILE_ANNOTATION,
  RECONCILE_DISABLED,
  SUSPENDED_BY_ANNOTATION,
  SUSPEND_REASON_ANNOTATION,
  isSuspended,
  type CustomResource,
  type Kind,
} from '../../constructs/kit';
import type { EventSink } from '../kube/events';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';
import { metaTime, type Condition } from './status';

export const SUSPENDED_CONDITION = 'Suspended';

/**
 * Where a suspension comes from: the resource's own annotations, or its kind's (the annotations of the
 * kind's CustomResourceDefinition, `kind` naming it).
 */
export interface Suspension {
  readonly annotations: Readonly<Record<string, string>>;
  readonly kind?: string;
}

/** What the Suspended condition says: how it was suspended, by whom and why, when the annotations say. */
export function suspendedMessage({ annotations, kind }: Suspension): string {
  const by = annotations[SUSPENDED_BY_ANNOTATION] ? ` by ${annotations[SUSPENDED_BY_ANNOTATION]}` : '';
  const why = annotations[SUSPEND_REASON_ANNOTATION] ? `: ${annotations[SUSPEND_REASON_ANNOTATION]}` : '';
  const what = kind ? `reconcile of every ${kind} suspended` : 'reconcile suspended';
  const where = kind ? ` on its CustomResourceDefinition` : '';
  return (
    `${what}${by}${why} (${RECONCILE_ANNOTATION}=disabled${where}); ` +
    'nothing is written for it or its children until the annotation goes'
  );
}

const conditionsOf = (resource: CustomResource): Condition[] =>
  ((resource.status ?? {}) as { conditions?: Condition[] }).conditions ?? [];

/** Whether the resource's status says it is suspended (so that its next reconcile resumes it). */
export function saysSuspended(resource: CustomResource): boolean {
  return conditionsOf(resource).some((c) => c.type === SUSPENDED_CONDITION && c.status === 'True');
}

/**
 * The status that says the resource is suspended: what is there, with the Suspended condition; undefined
 * when it says so already, in the same words.
 */
export function suspendedStatus(
  resource: CustomResource,
  suspension: Suspension,
  now: Date,
): Record<string, unknown> | undefined {
  const conditions = conditionsOf(resource);
  const previous = conditions.find((c) => c.type === SUSPENDED_CONDITION);
  const message = suspendedMessage(suspension);
  if (previous?.status === 'True' && previous.message === message) return undefined;
  const condition: Condition = {
    type: SUSPENDED_CONDITION,
    status: 'True',
    reason: 'ReconcileDisabled',
    message,
    lastTransitionTime: previous?.status === 'True' ? previous.lastTransitionTime : metaTime(now),
  };
  return {
    ...(resource.status as object | undefined),
    conditions: [...conditions.filter((c) => c.type !== SUSPENDED_CONDITION), condition],
  };
}

/** Why the resource is suspended: its own annotation, else its kind's (`kindMarks`); undefined when it is not. */
export function suspensionOf(
  resource: CustomResource,
  kind: string,
  kindMarks: Readonly<Record<string, string>> | undefined,
): Suspension | undefined {
  if (isSuspended(resource)) return { annotations: resource.metadata.annotations ?? {} };
  if (kindMarks?.[RECONCILE_ANNOTATION] === RECONCILE_DISABLED) return { annotations: kindMarks, kind };
  return undefined;
}

/** The suspend phase: the status says so, once, with an event; nothing else is written. */
export async function suspend(
  { writer, events }: { writer: Pick<Writer, 'applyStatus'>; events: EventSink },
  definition: Kind,
  resource: CustomResource,
  suspension: Suspension,
  log: Logger,
  now: Date,
): Promise<{ requeueAfterMs?: number }> {
  const status = suspendedStatus(resource, suspension, now);
  if (!status) return {};
  if (!saysSuspended(resource)) {
    log.info('reconcile suspended', { by: suspension.annotations[SUSPENDED_BY_ANNOTATION] });
    events.emit(resource, 'Normal', 'Suspended', suspendedMessage(suspension));
  }
  await writer.applyStatus(definition, resource, status);
  return {};
}
