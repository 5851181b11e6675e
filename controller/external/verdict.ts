/**
 * What a resource's external object needs, from what was last observed of it: nothing (Ready), an observe
 * (none yet), an apply (missing, or different from what the spec wants) or a delete (the resource is
 * being deleted and the object is still there). One pure function, the same for the controller and for a
 * dry run, which says what it would do instead of doing it.
 */
import type { CustomResource, ExternalWork, Readiness } from '../../constructs/kit';

export type ExternalAction = 'observe' | 'apply' | 'delete';

/** An observation of the object: its value (undefined: it does not exist), when, and for what spec. */
export interface Observation {
  readonly value: unknown;
  readonly at: number;
  /** The desired state it was observed for (its JSON): another one is observed anew. */
  readonly fingerprint: string;
}

/** What a resource's external object needs now, and what its Ready condition says meanwhile. */
export interface Verdict {
  readonly readiness: Readiness;
  readonly action?: ExternalAction;
  /** Being deleted: the object is gone (or kept by the kind's `retain`): the finalizer may go. */
  readonly gone?: boolean;
  /** What differs, one line each (an apply of an object that exists). */
  readonly differences?: readonly string[];
}

export function verdict(
  work: ExternalWork,
  resource: CustomResource,
  desired: unknown,
  observation: Observation | undefined,
  deleting: boolean,
): Verdict {
  const what = work.describe(desired);
  const notReady = (reason: string, message: string, action: ExternalAction) => ({
    readiness: { ready: false, reason, message },
    action,
  });
  if (deleting) {
    if (work.retain(resource)) return gone(`${what} is retained`);
    if (!observation) return notReady('Deleting', `deleting ${what}: observing it`, 'observe');
    if (observation.value === undefined) return gone(`${what} is deleted`);
    return notReady('Deleting', `deleting ${what}`, 'delete');
  }
  if (!observation) return notReady('Observing', `observing ${what}`, 'observe');
  if (observation.value === undefined) return notReady('Creating', `creating ${what}`, 'apply');
  const differences = work.differences(desired, observation.value);
  if (differences.length > 0) {
    return { ...notReady('Updating', `updating ${what}: ${differences.join('; ')}`, 'apply'), differences };
  }
  return { readiness: { ready: true, reason: 'Ready', message: `${what} is as the spec wants` } };
}

const gone = (message: string): Verdict => ({
  readiness: { ready: true, reason: 'Deleted', message },
  gone: true,
});

/** The JSON of a desired state, to tell whether an observation was made for it. */
export const fingerprint = (desired: unknown): string => JSON.stringify(desired) ?? '';
