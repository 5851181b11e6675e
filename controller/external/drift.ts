/**
 * Drift of a resource's external object: it was as the spec wants (an observe found no difference, for
 * this very spec) and an observe since finds it different. A change of the spec is no drift: the object
 * is then updated whatever the mode. What becomes of a drift is the resource's drift mode (controller/drift):
 * `correct` applies it back and reports it once that apply succeeded; `warn` leaves it, Ready saying so,
 * and reports it for as long as it lasts (the drift phase says it once, and sets the Drifted condition).
 */
import { DRIFT_ANNOTATION, type Readiness } from '../../constructs/kit';
import type { DriftMode } from '../drift/phase';
import type { DriftedChild } from '../reconcile/intent';
import type { Verdict } from './verdict';

/** The `childKind` of an external object's drift: `reconstruct_drift_total{kind, child_kind="external"}`. */
export const EXTERNAL_CHILD_KIND = 'external';

export class ExternalDrift {
  /** The fingerprint of the spec for which the object was last seen as it wants. */
  private inSyncFor?: string;
  /** The drift an apply that runs now repairs. */
  private repairing?: DriftedChild;
  /** Drifts repaired since the last step, to report. */
  private readonly repaired: DriftedChild[] = [];

  /**
   * What an observation of the object for the spec of fingerprint `print` says of drift: the drift, when
   * the object was as this spec wants and is no longer; undefined otherwise (it is, or the spec changed).
   */
  judge(print: string, said: Verdict, described: string): DriftedChild | undefined {
    const differences = said.differences ?? [];
    if (differences.length === 0) {
      if (!said.action) this.inSyncFor = print;
      return undefined;
    }
    if (this.inSyncFor !== print) return undefined;
    return {
      child: described,
      childKind: EXTERNAL_CHILD_KIND,
      field: differences[0],
    };
  }

  /** An apply starts: when it repairs `drift`, reported once it succeeds. */
  applying(drift: DriftedChild | undefined): void {
    this.repairing = drift;
  }

  /** The apply ended: repaired, or not (a failed repair is not called made; the retry judges again). */
  ended(succeeded: boolean): void {
    if (succeeded && this.repairing) this.repaired.push(this.repairing);
    this.repairing = undefined;
  }

  /** The drifts to report now: the one left as it is (warn), or those repaired since (correct). */
  reports(mode: DriftMode, found: DriftedChild | undefined): DriftedChild[] {
    if (mode === 'warn') return found ? [found] : [];
    return this.repaired.splice(0);
  }
}

/** Ready of a resource whose external object drifted and is left as it is (warn). */
export function leftAsItIs(drift: DriftedChild): Readiness {
  return {
    ready: true,
    reason: 'Ready',
    message: `${drift.child} differs from the spec (${drift.field}); left as it is (${DRIFT_ANNOTATION}: warn)`,
  };
}
