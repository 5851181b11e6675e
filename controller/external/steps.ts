/**
 * The seam between a reconcile and a kind's external work: `step` says where a resource's external object
 * stands and, in the controller, starts the handler that is due without waiting for it (ExternalRunner);
 * in a dry run it observes and says what it would change instead (DryRunExternal).
 */
import type { CustomResource, Kind, Readiness } from '../../constructs/kit';
import type { DriftMode } from '../drift/phase';
import type { Logger } from '../log';
import type { DriftedChild } from '../reconcile/intent';

export interface ExternalState {
  /** Its part of the resource's Ready condition: ready when the object is as the spec wants (or gone). */
  readonly readiness: Readiness;
  /** What the last observe said of the object, for the kind's status. */
  readonly observed?: unknown;
  /** Being deleted: nothing is left outside (or the kind retains it): the finalizer may go. */
  readonly gone?: boolean;
  /** When to look at the resource again (its next observe, a backoff's end), in ms. */
  readonly afterMs?: number;
  /** What happened since the last step, for the resource's events: made, changed, deleted, a new failure. */
  readonly events?: readonly ExternalEvent[];
  /** The object's drift to report (controller/drift): left as it is (warn), or repaired since (correct). */
  readonly drifts?: readonly DriftedChild[];
}

/** An event on the resource about its external object. */
export interface ExternalEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface StepOptions {
  /** The resource is being deleted: delete the object, never apply it. */
  readonly deleting: boolean;
  /** A user asked for a reconcile now (or a resume): observe again now, backoff forgotten. */
  readonly now: boolean;
  /** What becomes of the object changed out of band (controller/drift). @default 'correct' */
  readonly driftMode?: DriftMode;
}

export interface ExternalSteps {
  step(definition: Kind, resource: CustomResource, options: StepOptions, log: Logger): Promise<ExternalState>;
  /** Whether a handler runs for the resource of `key` now (a member does not let go of it meanwhile). */
  busy(key: string): boolean;
  /** Forgets a resource that is gone. */
  forget(key: string): void;
  /** What the resource's external object was last observed to be (for its inputs); undefined while none. */
  observed(key: string): unknown;
}

/** The Ready reason of a handler that failed without saying why in the kind's words. */
export const EXTERNAL_ERROR = 'ExternalError';

/** `text` with each of `secrets` masked: what a handler says may quote what it was given. */
export function masked(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const value of [...secrets].sort((a, b) => b.length - a.length)) {
    if (value.length >= 4) out = out.split(value).join('***');
  }
  return out;
}
