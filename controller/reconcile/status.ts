/**
 * A resource's status as the controller writes it: the kind's own fields, `observedGeneration`, and one
 * Ready condition whose `lastTransitionTime` moves only when its status does, with the conditions that say
 * its health to other tools (Reconciling, Stalled: controller/health).
 */
import {
  REQUESTED_AT_ANNOTATION,
  SpecError,
  type ApiKind,
  type ClusterView,
  type CustomResource,
  type Kind,
  type Manifest,
  type Readiness,
  type StatusContext,
  type SyncWait,
} from '../../constructs/kit';
import { kitView } from '../../constructs/kit/kit-view';
import type { Writer } from '../kube/writer';
import { sameJson } from '../../constructs/kit/same-json';
import { notYetCurrent, type Intent } from './intent';
import { healthConditions } from '../health/conditions';

export type Condition = {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
};

/** A condition besides Ready (a rollout's), as a phase asks for it: its lastTransitionTime is kept here. */
export type OtherCondition = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/** The conditions besides Ready a status carries: the phases' and those that say its health (controller/health). */
const besidesReady = (readiness: Readiness, others: readonly OtherCondition[]): OtherCondition[] => [
  ...others,
  ...healthConditions(readiness, others),
];

/**
 * `status.lastHandledReconcileAt`: the resource's `reconstruct.dev/requested-at`, once reconciled (and for
 * as long as the annotation is there: a status without it would ask again).
 */
export const handledReconcile = (resource: CustomResource): { lastHandledReconcileAt?: string } => {
  const requested = resource.metadata.annotations?.[REQUESTED_AT_ANNOTATION];
  return requested !== undefined ? { lastHandledReconcileAt: requested } : {};
};

/** No status was written yet: the resource is new. */
export const isFresh = (resource: CustomResource): boolean =>
  (resource.status as { observedGeneration?: number } | undefined)?.observedGeneration === undefined;

/** A time as the API server writes one (metav1.Time: RFC 3339, whole seconds). */
export const metaTime = (at: Date): string => at.toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * The status to write for `resource` with the kind's `fields` and `readiness` (and `others`, conditions
 * besides Ready), or undefined when it is what is there already (no write).
 */
export function nextStatus(
  resource: CustomResource,
  fields: object,
  readiness: Readiness,
  now: Date,
  others: readonly OtherCondition[] = [],
): Record<string, unknown> | undefined {
  const current = (resource.status ?? {}) as { conditions?: Condition[] };
  const generation = resource.metadata.generation;
  const status = readiness.ready ? 'True' : 'False';
  const previous = current.conditions?.find((c) => c.type === 'Ready');
  const condition: Condition = {
    type: 'Ready',
    status,
    reason: readiness.reason,
    message: readiness.message,
    lastTransitionTime: previous && previous.status === status ? previous.lastTransitionTime : metaTime(now),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  const other = (c: OtherCondition): Condition => {
    const before = current.conditions?.find((p) => p.type === c.type);
    const since = before && before.status === c.status ? before.lastTransitionTime : metaTime(now);
    return { ...c, lastTransitionTime: since };
  };
  const next = {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    ...fields,
    conditions: [condition, ...besidesReady(readiness, others).map(other)],
  };
  return sameJson(next, current) ? undefined : next;
}

/** Writes status through the status subresource, only when it differs from what is there. */
export async function writeStatus(
  writer: Pick<Writer, 'applyStatus'>,
  type: ApiKind,
  resource: CustomResource,
  fields: object,
  readiness: Readiness,
  now: Date,
  others: readonly OtherCondition[] = [],
): Promise<void> {
  const next = nextStatus(resource, fields, readiness, now, others);
  if (next) await writer.applyStatus(type, resource, next);
}

/** The Ready condition a sync's waits make: the first wait's reason, every wait's message. */
export function waitReadiness(waits: readonly SyncWait[]): Readiness {
  return { ready: false, reason: waits[0].reason, message: waits.map((w) => w.message).join('; ') };
}

/**
 * A resource's readiness by its kind's rules: what its sync waits for, else its kind's `ready`; and Ready
 * for this spec only once the cache shows what this reconcile applied (an update's event lags it).
 */
export function kindReadiness(
  definition: Kind,
  context: StatusContext & { view: ClusterView },
  syncWaits: readonly SyncWait[],
  desired: readonly Intent[],
  namespace: string | undefined,
  external?: { readonly readiness: Readiness },
): Readiness {
  if (syncWaits.length > 0) return waitReadiness(syncWaits);
  const readiness = definition.ready(context);
  if (!readiness.ready) return readiness;
  const children = notYetCurrent(desired, kitView(context.view), namespace);
  if (children) return children;
  // Ready only once the external object is too; a kind with no children is Ready in its words.
  if (external && (!external.readiness.ready || desired.length === 0)) return external.readiness;
  return readiness;
}

/**
 * Says on a resource why it is not reconciled when its kind cannot be (a cache it needs is refused: a
 * missing CRD, a forbidden list): Ready=False, reason Unavailable, the rest of its status as it was.
 * Nothing else is written: no children, whose state the controller cannot see.
 */
export async function reportUnavailable(
  view: ClusterView,
  writer: Pick<Writer, 'applyStatus'>,
  definition: Kind,
  namespace: string | undefined,
  name: string,
  message: string,
): Promise<void> {
  const resource = view.get(definition, namespace, name) as CustomResource | undefined;
  if (!resource || resource.metadata.deletionTimestamp) return;
  const readiness = {
    ready: false,
    reason: 'Unavailable',
    message: `not reconciled: ${message}`,
    stalled: true,
  };
  await writeStatus(writer, definition, resource, statusFields(resource), readiness, new Date());
}

/**
 * The status fields of a resource whose deletion is held (by its kind's sync, or its external object): the
 * kind's `status()` asked as on any other reconcile (the resource carries its deletionTimestamp, so the kind
 * can say `Terminating`), with the children its construct renders and what was last observed outside, over
 * the fields as they are (the controller's records, such as `createdChildren`, stay). A spec the construct
 * refuses keeps the fields as they are.
 */
export function heldStatusFields(
  definition: Kind,
  resource: CustomResource,
  children: () => readonly Manifest[],
  view: ClusterView,
  observed?: unknown,
): object {
  let rendered: readonly Manifest[];
  try {
    rendered = children();
  } catch (err) {
    if (err instanceof SpecError) return statusFields(resource);
    throw err;
  }
  return {
    ...statusFields(resource),
    ...definition.status({
      resource,
      children: [...rendered],
      view,
      ...(observed !== undefined ? { observed } : {}),
    }),
  };
}

/** The kind's own fields of a resource's status as it is: all but `observedGeneration` and `conditions`. */
export function statusFields(resource: CustomResource): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...(resource.status as object | undefined) };
  delete fields.conditions;
  delete fields.observedGeneration;
  return fields;
}

/**
 * How long a status that only reports progress (see onlyProgress) waits before it is written: the steps of
 * a rollout that follow within it go out in one write. Ready, a new reason or a new generation go at once.
 */
export const PROGRESS_WRITE_DELAY_MS = 1_000;

/**
 * True when writing `readiness` would only report progress: the resource stays not Ready for the reason
 * its status gives already, for the generation it observed already (a rollout moving on: another replica
 * updated, a pod added), and the other conditions keep their status and reason. Such a write can wait a
 * moment and take the next steps with it.
 */
export function onlyProgress(
  resource: CustomResource,
  readiness: Readiness,
  others: readonly OtherCondition[] = [],
): boolean {
  const current = (resource.status ?? {}) as { observedGeneration?: number; conditions?: Condition[] };
  const previous = current.conditions?.find((c) => c.type === 'Ready');
  const same = (c: OtherCondition) =>
    current.conditions?.some((p) => p.type === c.type && p.status === c.status && p.reason === c.reason);
  const besides = besidesReady(readiness, others);
  return (
    !readiness.ready &&
    previous?.status === 'False' &&
    previous.reason === readiness.reason &&
    current.observedGeneration === resource.metadata.generation &&
    besides.every(same) &&
    (current.conditions ?? []).filter((c) => c.type !== 'Ready').length === besides.length
  );
}

/** The status writes held back because they only report progress, by queue key: when each is due. */
export class ProgressHold {
  private readonly due = new Map<string, number>();

  /**
   * How long to hold back this reconcile's status write: 0 to write now, else the time left until a write
   * that only reports progress is due (PROGRESS_WRITE_DELAY_MS after the progress was first seen).
   * Level-based: the reconcile at the due time writes the status of the world as it is then.
   */
  holdMs(
    key: string,
    resource: CustomResource,
    fields: object,
    readiness: Readiness,
    now: Date,
    others: readonly OtherCondition[] = [],
  ): number {
    if (!onlyProgress(resource, readiness, others) || !nextStatus(resource, fields, readiness, now, others)) {
      this.due.delete(key);
      return 0;
    }
    const due = this.due.get(key);
    if (due === undefined) {
      this.due.set(key, now.getTime() + PROGRESS_WRITE_DELAY_MS);
      return PROGRESS_WRITE_DELAY_MS;
    }
    if (now.getTime() < due) return due - now.getTime();
    this.due.delete(key);
    return 0;
  }

  forget(key: string): void {
    this.due.delete(key);
  }
}
