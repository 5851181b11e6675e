/**
 * When a resource that is not Ready is looked at again should no event come. The events of its children
 * and pods bring it back at once whenever something moves; the check only catches a readiness that moved
 * without one. So it backs off while the resource stays not Ready for the same generation: 60 s after the
 * first reconcile that found it so, then 2, 4 and at most 5 minutes after the last one. A resource whose
 * pods take minutes to start (a busy cluster, a slow image pull) is looked at a few times, not once a
 * minute; a new generation, or Ready in between, starts over.
 */
import type { CustomResource } from '../../constructs/kit';

/** The first wait, and the longest. */
const NOT_READY_RECHECK_MS = 60_000;
const NOT_READY_RECHECK_MAX_MS = 300_000;

/** The not-Ready streaks of the resources, by queue key. */
export class NotReadyRecheck {
  private readonly streaks = new Map<string, { uid: string; generation?: number; count: number }>();

  /** The wait before the next check of a resource this reconcile found not Ready. */
  afterMs(key: string, resource: CustomResource): number {
    const { uid = '', generation } = resource.metadata;
    const last = this.streaks.get(key);
    const count = last && last.uid === uid && last.generation === generation ? last.count + 1 : 1;
    this.streaks.set(key, { uid, generation, count });
    return Math.min(NOT_READY_RECHECK_MS * 2 ** (count - 1), NOT_READY_RECHECK_MAX_MS);
  }

  /** Ends a resource's streak: it is Ready, waits on something else, or is gone. */
  forget(key: string): void {
    this.streaks.delete(key);
  }
}
