/**
 * Ready that says why: when the child that blocks a resource has been stuck a while (not ready, and
 * unchanged for STUCK_AFTER_MS), its pods are read once, on demand, and the Ready message ends with their
 * own words (`pod mysql-0: Unschedulable: 0/3 nodes are available: ...`, constructs/kit/pod-trouble.ts);
 * for a claim, its newest event. Not a watch of every pod's status cluster-wide: one list of one
 * workload's pods, served from the API server's cache, for a resource that is stuck, then again at a
 * backing-off pace while it stays stuck, in the reconciles that come anyway (see docs/DESIGN.md, "Ready that says why", for the cost measured).
 * Any change of the blocking child drops what was read, and the next read waits until the child has been
 * still for STUCK_AFTER_MS again, and for the backoff: a rollout in progress costs no read. Reads are
 * paced across the controller (READS_PER_SECOND), so a burst of stuck resources cannot flood the API.
 * The first read of a streak comes on a timer of its own, outside any reconcile, and queues the resource
 * only when it has something to say: a workload whose pods merely take a while to start costs a read,
 * not a reconcile.
 */
import {
  PERSISTENT_VOLUME_CLAIM,
  childReadiness,
  isWriteOnly,
  type ApiKind,
  type ClusterView,
  type KubeObject,
  type Readiness,
} from '../../constructs/kit';
import {
  newestEvent,
  oneLine,
  ownsPods,
  podSelectorOf,
  podTrouble,
  saysWhyStuck,
  troubleLine,
  withEvent,
} from '../../constructs/kit/pod-trouble';
import { kindKey } from '../../constructs/kit/api-kind';
import { isForbidden } from '../kube/errors';
import type { LiveReads } from '../kube/live-reads';
import type { Logger } from '../log';
import type { Intent } from './intent';

/** How long the blocking child must have been not ready and unchanged before its pods are read. */
export const STUCK_AFTER_MS = 5_000;
/**
 * The least time between two reads while it stays stuck, doubling after each read, up to the longest.
 * Only the first read brings a reconcile of its own; the next are made by the reconciles that come anyway
 * (the not-Ready recheck: 60 s, then 2, 4, 5 minutes; an event), once this much time has passed.
 */
export const REREAD_MS = 30_000;
export const REREAD_MAX_MS = 300_000;

/** The child that blocks a resource, when it can say more (its pods, or its events). */
interface Blocking {
  readonly type: ApiKind;
  readonly live: KubeObject;
  readonly namespace: string;
  readonly label: string;
}

/** The first child, in the construct's order, that is not ready, if it exists and can say more. */
function blockingChild(desired: readonly Intent[], view: ClusterView, namespace: string | undefined) {
  for (const { type, child } of desired) {
    if (isWriteOnly(type)) continue;
    const ns = type.namespaced ? (child.metadata.namespace ?? namespace) : undefined;
    const live = view.get(type, ns, child.metadata.name);
    if (childReadiness(child, live).ready) continue;
    if (!live || !ns || !saysWhyStuck(type)) return undefined;
    return { type, live, namespace: ns, label: `${child.kind} ${child.metadata.name}` } satisfies Blocking;
  }
  return undefined;
}

/**
 * Why a child that is not ready is stuck, in its pods' words (a workload's pods, a pod itself) or its
 * newest event (a claim): one line, or undefined when they say nothing. `reconstruct tree` shows it too.
 */
export async function whyStuck(
  reads: LiveReads,
  type: ApiKind,
  live: KubeObject,
  namespace: string,
): Promise<string | undefined> {
  if (kindKey(type) === kindKey(PERSISTENT_VOLUME_CLAIM)) {
    const events = await reads.events(namespace, { kind: type.kind, name: live.metadata.name });
    const event = newestEvent(events, true);
    return event && `${event.reason}: ${oneLine(event.message)}`;
  }
  const selector = podSelectorOf(live);
  const pods = ownsPods(type) ? (selector ? await reads.pods(namespace, selector) : []) : [live];
  let trouble = podTrouble(pods);
  if (trouble?.needsEvent) {
    trouble = withEvent(trouble, await reads.events(namespace, { kind: 'Pod', name: trouble.pod }));
  }
  return trouble && troubleLine(trouble);
}

/** One resource's stuck child: which, as of which version, when it is read next, what was read. */
interface Streak {
  readonly child: string;
  version: string | undefined;
  reads: number;
  nextReadAt: number;
  /** The time the pace gave its next read. */
  reservedAt?: number;
  line?: string;
  /** The child as the last reconcile saw it, for the first read's timer. */
  blocking: Blocking;
  /** Queues the resource: the first read found something to say. */
  wake?: () => void;
  /** Cancels the first read's timer. */
  cancel?: () => void;
  /** A read under way (the timer's), which a reconcile waits for rather than read again. */
  reading?: Promise<void>;
}

/** Runs `fn` in `ms` (the controller: a timer; the in-memory cluster: its clock); returns a cancel. */
export type Schedule = (ms: number, fn: () => Promise<void>) => () => void;

const timers: Schedule = (ms, fn) => {
  const timer = setTimeout(() => void fn(), ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** How many reads a second the controller makes, at most, after a burst of READ_BURST. */
export const READS_PER_SECOND = 5;
const READ_BURST = 10;

/** Gives each read a time, at most READS_PER_SECOND after a burst (a virtual-time token bucket). */
class ReadPace {
  private due = 0;

  reserve(now: number): number {
    const interval = 1000 / READS_PER_SECOND;
    this.due = Math.max(this.due, now);
    const at = Math.max(now, this.due - (READ_BURST - 1) * interval);
    this.due += interval;
    return at;
  }
}

export class Troubles {
  private readonly streaks = new Map<string, Streak>();
  private readonly pace = new ReadPace();
  private refused = false;

  constructor(
    private readonly reads: LiveReads | undefined,
    private readonly log: Logger,
    private readonly now: () => Date,
    private readonly schedule: Schedule = timers,
  ) {}

  /**
   * Reads why the resource's blocking child is stuck, when it is due: the child has been not ready and
   * unchanged for STUCK_AFTER_MS, and the last read is older than the backoff. Until the first read, a
   * timer waits for it (`wake` queues the resource when that read has something to say).
   */
  async refresh(
    key: string,
    desired: readonly Intent[],
    view: ClusterView,
    namespace?: string,
    wake?: () => void,
  ): Promise<void> {
    const blocking = this.reads && !this.refused ? blockingChild(desired, view, namespace) : undefined;
    if (!blocking) {
      this.forget(key);
      return;
    }
    const now = this.now().getTime();
    const version = blocking.live.metadata.resourceVersion;
    let streak = this.streaks.get(key);
    if (!streak || streak.child !== blocking.label) {
      streak?.cancel?.();
      streak = { child: blocking.label, version, reads: 0, nextReadAt: now + STUCK_AFTER_MS, blocking };
      this.streaks.set(key, streak);
    } else if (streak.version !== version) {
      // The child moved: what was read is of before, and the next read waits until it is still again
      // (and for the backoff: a child that moves slowly is not read at each step).
      Object.assign(streak, { version, line: undefined });
      streak.nextReadAt = Math.max(streak.nextReadAt, now + STUCK_AFTER_MS);
    }
    Object.assign(streak, { blocking, wake });
    await streak.reading;
    if (now >= streak.nextReadAt) await this.read(streak, now);
    if (streak.reads === 0) this.timeFirstRead(key, streak);
  }

  /** The first read's timer, at its time: it reads, and wakes the resource if there is something to say. */
  private timeFirstRead(key: string, streak: Streak): void {
    streak.cancel?.();
    streak.cancel = this.schedule(Math.max(0, streak.nextReadAt - this.now().getTime()), async () => {
      streak.cancel = undefined;
      if (this.streaks.get(key) !== streak || streak.reads > 0) return;
      const now = this.now().getTime();
      if (now < streak.nextReadAt) return this.timeFirstRead(key, streak);
      streak.reading = this.read(streak, now);
      await streak.reading;
      streak.reading = undefined;
      if (streak.reads === 0)
        this.timeFirstRead(key, streak); // its turn in the pace is later
      else if (streak.line !== undefined) streak.wake?.();
    });
  }

  /** One read of the streak's child, when the pace gives it its turn (else its time moves to that turn). */
  private async read(streak: Streak, now: number): Promise<void> {
    // Reads are paced across the controller: a burst of stuck resources reads a few a second.
    if (streak.reservedAt === undefined) {
      streak.reservedAt = this.pace.reserve(now);
      if (streak.reservedAt > now) {
        streak.nextReadAt = streak.reservedAt;
        return;
      }
    }
    streak.reservedAt = undefined;
    streak.reads += 1;
    streak.nextReadAt = now + Math.min(REREAD_MS * 2 ** (streak.reads - 1), REREAD_MAX_MS);
    const { blocking } = streak;
    try {
      streak.line = await whyStuck(this.reads!, blocking.type, blocking.live, blocking.namespace);
    } catch (err) {
      streak.line = undefined;
      if (!isForbidden(err)) {
        this.log.debug('cannot read why a child is stuck', { child: blocking.label, error: String(err) });
        return;
      }
      // The install grants it; an RBAC of the user's own may not: said once, and not tried again.
      this.refused = true;
      this.log.warn(
        'cannot read pods or events: Ready will not say why a child is stuck (grant list on pods and events)',
        {
          error: String(err),
        },
      );
    }
  }

  /** The readiness with what was read about the stuck child, if anything. */
  explain(key: string, readiness: Readiness): Readiness {
    const line = this.streaks.get(key)?.line;
    return readiness.ready || !line ? readiness : { ...readiness, message: `${readiness.message}; ${line}` };
  }

  /** A user asked for a reconcile now: a stuck child is read again in this reconcile, not after the backoff. */
  readNow(key: string): void {
    const streak = this.streaks.get(key);
    if (streak) streak.nextReadAt = 0;
  }

  forget(key: string): void {
    this.streaks.get(key)?.cancel?.();
    this.streaks.delete(key);
  }
}
