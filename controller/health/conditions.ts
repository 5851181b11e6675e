/**
 * The conditions that tell tools which read any resource's health (kstatus, and so Flux, `kubectl wait`
 * and cli-utils' applier; Argo CD through the health checks of ./argocd.ts) how a resource of ours does,
 * derived from its Ready condition and the rollout's, written with them in every status:
 *
 * - `Reconciling=True` while the resource is on its way: not Ready and not stalled, or held back by a
 *   rollout (its new spec not applied yet). kstatus: InProgress.
 * - `Stalled=True` when waiting will not help until something changes: a spec the construct refuses, a
 *   child that another owns, a kind the controller cannot read, a child failed for good, a handler's
 *   failure its kind marks stalled, a rollout stopped by its failures. kstatus: Failed.
 * - Neither when it is Ready. Both are "abnormal-true" conditions, as kstatus asks: present only while
 *   true, so that a resource whose status has none of them is Current once Ready.
 */
import type { Readiness } from '../../constructs/kit';

/** A condition as a phase says it (controller/reconcile/status.ts keeps its lastTransitionTime). */
interface Said {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

export const RECONCILING_CONDITION = 'Reconciling';
export const STALLED_CONDITION = 'Stalled';

/** The rollout's condition type and the reasons that hold a resource back (controller/reconcile/rollout.ts). */
const ROLLOUT = { type: 'Rollout', waiting: 'Waiting', stopped: 'Stopped' } as const;

/** The Reconciling or Stalled condition for a status with this readiness and these other conditions. */
export function healthConditions(readiness: Readiness, others: readonly Said[]): Said[] {
  const said = (type: string, { reason, message }: Pick<Said, 'reason' | 'message'>): Said[] => [
    { type, status: 'True', reason, message },
  ];
  const rollout = others.find((c) => c.type === ROLLOUT.type && c.status === 'False');
  if (rollout?.reason === ROLLOUT.stopped)
    return said(STALLED_CONDITION, { ...rollout, reason: 'RolloutStopped' });
  if (readiness.ready && !rollout) return [];
  if (!readiness.ready && readiness.stalled) return said(STALLED_CONDITION, readiness);
  if (rollout?.reason === ROLLOUT.waiting)
    return said(RECONCILING_CONDITION, { ...rollout, reason: 'RolloutWaiting' });
  return readiness.ready ? [] : said(RECONCILING_CONDITION, readiness);
}
