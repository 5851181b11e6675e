/**
 * The decision a reconcile ends with, made in one place from the summary of what it did and the kind's
 * rules: which events to emit, which Ready condition to write (if any), and when to look again. Pure: the
 * reconciler carries it out (status.ts writes it, the event recorder emits it), and its table test
 * (test/controller/reconcile/decide.test.ts) covers every branch in milliseconds.
 */
import {
  ADOPT_ANNOTATION,
  RECONCILE_ANNOTATION,
  REQUESTED_AT_ANNOTATION,
  type Readiness,
  type SpecError,
} from '../../constructs/kit';
import type { Summary } from './summary';

/** How often a resource whose kind the API server does not map yet is tried again. */
export const UNDISCOVERED_RECHECK_MS = 3_000;
/** How long a new resource's first status waits while the controller is busy (a burst). */
export const FIRST_STATUS_HOLD_MS = 1_000;

export interface EventNote {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface Decision {
  /** In order. */
  readonly events: readonly EventNote[];
  /**
   * The Ready condition to write with the status, or undefined to write no status this time. `mayHold`:
   * the write may wait a moment when it only reports progress (ProgressHold).
   */
  readonly status?: { readonly readiness: Readiness; readonly mayHold: boolean };
  /** Thrown once the status is written: the queue backs off and retries. */
  readonly error?: string;
  /**
   * When to look again: `recheck` (the not-Ready backoff, NotReadyRecheck), `settled` (only on an event;
   * the backoff starts over), or after a fixed delay.
   */
  readonly next: 'recheck' | 'settled' | { readonly afterMs: number };
}

/** What the decision reads besides the summary. */
export interface Facts {
  /** The resource's kind, for messages. */
  readonly kind: string;
  /** No status was written yet: the resource is new, and the children its creation asked for are no news. */
  readonly fresh: boolean;
  /** The records of write-only children are those the status holds already. */
  readonly recordsKept: boolean;
  /**
   * A new resource's first status waits (FIRST_STATUS_HOLD_MS): resources wait in the queue (a burst,
   * children first), or a child its inputs read was just made (its event, news to the inputs, comes first).
   */
  readonly holdFirstStatus?: boolean;
  /** The kind's own readiness (or its sync's wait), asked only when a status is to be written. */
  readonly readiness: () => Readiness;
  /** A user asks for this reconcile (`reconstruct.dev/requested-at`): its status says so at once. */
  readonly requested?: string;
  /** The status says the resource is suspended and it is not any more. */
  readonly resumed?: boolean;
  /**
   * The children's wait has lasted (waits.ts) and is not said yet: a `Waiting` event. A wait that the next
   * reconcile ends (a Namespace just created) is no news.
   */
  readonly waitLasts?: boolean;
}

/** The decision for a resource whose children were applied (or tried). */
export function decide(summary: Summary, facts: Facts): Decision {
  const events = operationEvents(facts);
  const { created, updated, waiting, conflicts, failures, pruned, retained } = summary;
  // A new resource gets the children its creation asked for, and its status says how they do: no event
  // for that, as kubebuilder advises against an event per operation. One event per kind of change and
  // reconcile, not one per child: fewer writes, same story.
  if (created.length > 0 && !facts.fresh) events.push(normal('Created', `Created ${created.join(', ')}`));
  if (updated.length > 0) events.push(normal('Updated', `Updated ${updated.join(', ')}`));
  if (waiting.length > 0 && facts.waitLasts) events.push(normal('Waiting', waiting.join('; ')));
  if (pruned.length > 0) events.push(normal('Pruned', `Deleted ${pruned.join(', ')}: no longer wanted`));
  if (retained.length > 0) {
    events.push(
      normal(
        'Retained',
        `Kept ${retained.join(', ')}, no longer wanted, by its retain policy: it stays labelled, ` +
          `without an owner (annotate it ${ADOPT_ANNOTATION}=true to hand it to a resource)`,
      ),
    );
  }
  const quiet = conflicts.length === 0 && failures.length === 0 && waiting.length === 0;
  // What a user asked for (reconcile now, resume) is said at once, not held back.
  const asked = facts.requested !== undefined || facts.resumed === true;
  // A burst of new resources: children first. While resources wait in the queue, a new resource's first
  // status is held a second (its children's own status updates usually bring that reconcile sooner), so
  // that the workers apply the next resources' children before they say how these do.
  if (created.length > 0 && facts.fresh && facts.recordsKept && quiet && !asked && facts.holdFirstStatus) {
    return { events, next: { afterMs: FIRST_STATUS_HOLD_MS } };
  }

  let readiness = facts.readiness();
  if (conflicts.length > 0) {
    const message =
      `${conflicts.join(', ')} already exists and is not managed by ${facts.kind}` +
      ` (to hand it over, annotate it ${ADOPT_ANNOTATION}=true)`;
    readiness = { ready: false, reason: 'ErrResourceExists', message, stalled: true };
    events.push({ type: 'Warning', reason: 'ErrResourceExists', message });
  }
  // A CRD just installed: the API server's owner check cannot map the kind for up to 30 s. A wait, not a
  // failure: checked again every few seconds rather than after a growing backoff.
  if (summary.undiscoveredOnly) {
    const message = `the API server does not map ${facts.kind} to its CRD yet (it can take 30 s after the CRD is installed)`;
    return {
      events,
      status: { readiness: { ready: false, reason: 'Waiting', message }, mayHold: false },
      next: { afterMs: UNDISCOVERED_RECHECK_MS },
    };
  }
  if (failures.length > 0) {
    readiness = { ready: false, reason: 'ApplyFailed', message: failures.join('; ') };
    events.push({ type: 'Warning', reason: 'ApplyFailed', message: readiness.message });
    return { events, status: { readiness, mayHold: false }, error: readiness.message, next: 'recheck' };
  }
  // A new record of a created child is written at once: it is what says the child is ours.
  const mayHold = quiet && facts.recordsKept && !asked;
  return {
    events,
    status: { readiness, mayHold },
    next: readiness.ready || conflicts.length > 0 ? 'settled' : 'recheck',
  };
}

/** The decision for a spec the construct refuses: said, and not retried (only a change can fix it). */
export function decideInvalid(err: SpecError, facts: Pick<Facts, 'requested' | 'resumed'> = {}): Decision {
  return {
    events: [...operationEvents(facts), { type: 'Warning', reason: 'InvalidSpec', message: err.message }],
    status: {
      readiness: { ready: false, reason: 'InvalidSpec', message: err.message, stalled: true },
      mayHold: false,
    },
    next: 'settled',
  };
}

const normal = (reason: string, message: string): EventNote => ({ type: 'Normal', reason, message });

/** The events of what a user asked for: a resume, a reconcile now. */
function operationEvents({ requested, resumed }: Pick<Facts, 'requested' | 'resumed'>): EventNote[] {
  return [
    ...(resumed ? [normal('Resumed', `reconcile resumed: ${RECONCILE_ANNOTATION}=disabled is gone`)] : []),
    ...(requested !== undefined
      ? [normal('ReconcileRequested', `reconcile requested (${REQUESTED_AT_ANNOTATION}=${requested})`)]
      : []),
  ];
}
