/**
 * A resource's status as the controller writes it: the kind's own fields, `observedGeneration`, and one
 * Ready condition whose `lastTransitionTime` moves only when its status does.
 */
import type { CustomResource, Readiness } from '../constructs/kit';
import { hashObject } from './converge';

export type Condition = {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
};

/**
 * The status to write for `resource` with the kind's `fields` and `readiness`, or undefined when it is what
 * is there already (no write).
 */
export function nextStatus(
  resource: CustomResource,
  fields: object,
  readiness: Readiness,
  now: Date,
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
    lastTransitionTime:
      previous && previous.status === status
        ? previous.lastTransitionTime
        : now.toISOString().replace(/\.\d+Z$/, 'Z'),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  const next = {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    ...fields,
    conditions: [condition],
  };
  return hashObject(next) === hashObject(current) ? undefined : next;
}

/**
 * True when writing `readiness` would only report progress: the resource stays not Ready for the reason
 * its status gives already, for the generation it observed already (a rollout moving on: another replica
 * updated, a pod added). Such a write can wait a moment and take the next steps with it.
 */
export function onlyProgress(resource: CustomResource, readiness: Readiness): boolean {
  const current = (resource.status ?? {}) as { observedGeneration?: number; conditions?: Condition[] };
  const previous = current.conditions?.find((c) => c.type === 'Ready');
  return (
    !readiness.ready &&
    previous?.status === 'False' &&
    previous.reason === readiness.reason &&
    current.observedGeneration === resource.metadata.generation
  );
}
