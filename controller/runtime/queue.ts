/**
 * A work queue with client-go's guarantees (workqueue.TypedRateLimitingInterface): keys, not
 * events, so a burst of changes to one object collapses into one reconcile; a key is never handed
 * to two workers at once; a key added while it is being processed is processed again once `done`;
 * failures are retried with per-key exponential backoff.
 *
 * And two priorities, as controller-runtime's priority queue has (its handler.LowPriority). A change to a
 * resource itself (new, spec edited, deleted) is queued at `normal` priority; what only refreshes a
 * resource (a child's or a pod's event, a resync, a periodic recheck) at `low` priority, handed out when
 * no normal key waits. In a
 * burst of new resources their children come first, and the status writes their children's events
 * bring come after, instead of competing with them for the workers and the API server. Low-priority keys
 * that have waited `maxLowWaitMs` take every other turn, so a stream of changes never starves them.
 *
 * Within a priority, the groups of keys (kinds) take turns (turns.ts): controller-runtime gives each
 * controller a queue and workers of its own; here the workers are one pool and the kinds share it fairly.
 */
import { Turns } from './turns';

/** `normal`: the resource itself changed. `low`: something only worth a refresh. */
export type Priority = 'normal' | 'low';

interface WorkQueueOptions {
  /** Delay of the first rate-limited retry of a key; doubles on each failure. Default: 5 ms. */
  baseDelayMs?: number;
  /** Cap of the per-key backoff. Default: 300 000 ms (5 minutes), as client-go. */
  maxDelayMs?: number;
  /**
   * How long a low-priority key may wait behind normal ones before it takes every other turn. Default:
   * 30 000 ms, longer than a burst of 1,000 new resources takes here (25 s).
   */
  maxLowWaitMs?: number;
  /**
   * The group of a key (the manager's: its kind). Groups take turns within each priority (turns.ts), so
   * that a burst of one group's keys never makes another's wait behind all of it. Default: one group.
   */
  groupOf?: (key: string) => string;
  /** The clock (ms) of maxLowWaitMs and addAfter's due times. Default: Date.now. */
  now?: () => number;
  /** Told of each new key, wait and piece of work, for client-go's workqueue metrics. */
  observer?: QueueObserver;
}

/** What client-go's workqueue metrics count (workqueue_adds_total, _queue_duration_seconds, ...). */
export interface QueueObserver {
  /** A key became dirty: queued, or marked to run again after the work on it. */
  added(): void;
  /** A key handed to a worker after waiting this long in the queue. */
  waited(seconds: number): void;
  /** A worker finished a key after this long. */
  worked(seconds: number): void;
  /** A key put back after a failure (rate-limited). */
  retried(): void;
}

export class WorkQueue {
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxLowWaitMs: number;
  private readonly now: () => number;
  /** Keys ready to be handed out, the groups taking turns, each group's keys in order. */
  private readonly normal: Turns;
  /** Low-priority keys ready to be handed out, the same way, with the time each was queued. */
  private readonly low: Turns;
  /** Keys that need processing, and their priority: queued, or added again while being processed. */
  private readonly dirty = new Map<string, Priority>();
  /** Keys handed out and not yet `done`. */
  private readonly processing = new Set<string>();
  /** Keys waiting for addAfter's delay: when they are due, their priority and their timer. */
  private readonly waiting = new Map<string, { at: number; priority: Priority; timer: NodeJS.Timeout }>();
  /** Keys addBatched is gathering events for: their priority and the timer that adds them. */
  private readonly gathering = new Map<string, { priority: Priority; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  /** Whether the last key handed out was a low-priority one (overdue ones alternate with normal ones). */
  private lastWasLow = false;
  private readonly getters: (() => void)[] = [];
  private drainers: (() => void)[] = [];
  private shuttingDown = false;
  private readonly observer?: QueueObserver;
  /** When each ready key was queued, and when each key being processed was handed out. */
  private readonly queuedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();

  constructor(options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 300_000;
    this.maxLowWaitMs = options.maxLowWaitMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.observer = options.observer;
    const groupOf = options.groupOf ?? (() => '');
    this.normal = new Turns(groupOf);
    this.low = new Turns(groupOf);
  }

  /**
   * Queues the key at the priority, unless it is queued already (a low-priority key added at normal
   * priority moves up); if it is being processed, it is queued again once done.
   */
  add(key: string, priority: Priority = 'normal'): void {
    if (this.shuttingDown) return;
    const was = this.dirty.get(key);
    if (was === priority || was === 'normal') return;
    if (was === undefined) this.observer?.added();
    this.dirty.set(key, priority);
    if (this.processing.has(key)) return;
    if (was === 'low') this.low.delete(key);
    this.enqueue(key, priority);
  }

  private enqueue(key: string, priority: Priority): void {
    if (!this.queuedAt.has(key)) this.queuedAt.set(key, this.now());
    (priority === 'normal' ? this.normal : this.low).add(key, this.now());
    this.getters.shift()?.();
  }

  /**
   * Adds the key after the delay. A key already waiting keeps the earlier of the two times, and the normal
   * priority if either asked for it.
   */
  addAfter(key: string, delayMs: number, priority: Priority = 'normal'): void {
    if (this.shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(key, priority);
      return;
    }
    const at = this.now() + delayMs;
    const pending = this.waiting.get(key);
    if (pending) {
      if (pending.priority === 'normal') priority = 'normal';
      pending.priority = priority;
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const entry = {
      at,
      priority,
      timer: setTimeout(() => {
        this.waiting.delete(key);
        this.add(key, entry.priority);
      }, delayMs),
    };
    this.waiting.set(key, entry);
  }

  /**
   * Adds the key `ms` from now, gathering every addBatched of it meanwhile into that one add: a burst of
   * events of one resource's children (its Deployment and Service created at once, a pod started and the
   * Deployment status it brings) makes one reconcile, not one each. A key already queued, or being
   * processed (it runs again once done), needs no wait. Handing the key out ends the gathering (the
   * reconcile reads the caches, which hold what the events said); cancelAfter does not, since the events
   * it gathers may be newer than what the reconcile that just ended read.
   */
  addBatched(key: string, ms: number, priority: Priority = 'low'): void {
    if (this.shuttingDown) return;
    if (!(ms > 0) || this.dirty.has(key) || this.processing.has(key)) {
      this.add(key, priority);
      return;
    }
    const pending = this.gathering.get(key);
    if (pending) {
      if (priority === 'normal') pending.priority = 'normal';
      return;
    }
    const entry = {
      priority,
      timer: setTimeout(() => {
        this.gathering.delete(key);
        this.add(key, entry.priority);
      }, ms),
    };
    this.gathering.set(key, entry);
  }

  /** Adds the key after its backoff: baseDelayMs * 2^(failures so far), capped at maxDelayMs. */
  addRateLimited(key: string): void {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    this.observer?.retried();
    this.addAfter(key, this.backoff(failures));
  }

  /** The delay addRateLimited would use for a key that failed `failures` times. */
  backoff(failures: number): number {
    // 2^failures overflows to Infinity for large counts, which the cap absorbs.
    return Math.min(this.baseDelayMs * Math.pow(2, failures), this.maxDelayMs);
  }

  /** Resets the key's backoff (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /**
   * Drops the key's delayed add, if any: a reconcile computes everything from the current world, so once
   * one has succeeded, a recheck an earlier one asked for (or a retry of its failure) has nothing left to
   * do. The one that just ran asks again if it still needs one.
   */
  cancelAfter(key: string): void {
    const pending = this.waiting.get(key);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.waiting.delete(key);
  }

  /** How many times the key was rate-limited since it was last forgotten. */
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Next key to process, or undefined once shut down and drained. */
  async get(): Promise<string | undefined> {
    while (this.length === 0 && !this.shuttingDown) {
      await new Promise<void>((resolve) => this.getters.push(resolve));
    }
    const key = this.next();
    if (key === undefined) return undefined;
    const gathering = this.gathering.get(key);
    if (gathering) {
      clearTimeout(gathering.timer);
      this.gathering.delete(key);
    }
    this.processing.add(key);
    this.dirty.delete(key);
    const now = this.now();
    this.observer?.waited((now - (this.queuedAt.get(key) ?? now)) / 1000);
    this.queuedAt.delete(key);
    this.startedAt.set(key, now);
    return key;
  }

  /**
   * The next normal key; a low-priority key when no normal key waits, or every other turn once one has
   * waited maxLowWaitMs (overdue refreshes then share the workers with changes, half and half).
   */
  private next(): string | undefined {
    const oldest = this.low.oldest();
    const overdue = oldest !== undefined && this.now() - oldest >= this.maxLowWaitMs;
    if (oldest !== undefined && (this.normal.size === 0 || (overdue && !this.lastWasLow))) {
      this.lastWasLow = true;
      return this.low.take();
    }
    this.lastWasLow = false;
    return this.normal.take();
  }

  /** Marks the key as processed; if it was added meanwhile, it is queued again, in its priority. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined) this.observer?.worked((this.now() - started) / 1000);
    const priority = this.dirty.get(key);
    if (priority) this.enqueue(key, priority);
    if (this.processing.size === 0) {
      const drainers = this.drainers;
      this.drainers = [];
      drainers.forEach((resolve) => resolve());
    }
  }

  /** Keys ready to be processed, both priorities (not those waiting for a delay nor those being processed). */
  get length(): number {
    return this.normal.size + this.low.size;
  }

  /** Keys being processed right now. */
  get active(): number {
    return this.processing.size;
  }

  /**
   * The work in progress, as client-go's workqueue reports it: seconds of work not yet done (summed over
   * the keys being processed), and the longest any of them has run.
   */
  inProgress(): { unfinishedSeconds: number; longestSeconds: number } {
    const now = this.now();
    let unfinishedSeconds = 0;
    let longestSeconds = 0;
    for (const started of this.startedAt.values()) {
      const seconds = (now - started) / 1000;
      unfinishedSeconds += seconds;
      longestSeconds = Math.max(longestSeconds, seconds);
    }
    return { unfinishedSeconds, longestSeconds };
  }

  /**
   * Stops taking keys: adds are ignored, delayed adds are dropped, get() hands out what is still
   * queued and then resolves undefined.
   */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { timer } of [...this.waiting.values(), ...this.gathering.values()]) clearTimeout(timer);
    this.waiting.clear();
    this.gathering.clear();
    this.getters.splice(0).forEach((resolve) => resolve());
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** resolves when no key is being processed */
  drain(): Promise<void> {
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainers.push(resolve));
  }
}

/** What a handler may ask for: a fresh look after the delay, even if nothing changes. */
type HandleResult = { requeueAfterMs?: number } | void;

/**
 * Runs `workers` loops that take keys from the queue and handle them, as a controller-runtime
 * controller does: success forgets the key's backoff and any recheck asked for earlier (and requeues
 * it after requeueAfterMs if asked); failure reports the error and requeues it rate-limited. Resolves when the queue is shut
 * down and every worker finished.
 */
export async function runWorkers(
  queue: WorkQueue,
  workers: number,
  handle: (key: string) => Promise<HandleResult>,
  onError: (key: string, err: unknown) => void,
): Promise<void> {
  const loop = async () => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const result = await handle(key);
        queue.forget(key);
        queue.cancelAfter(key);
        // A recheck the handler asked for refreshes; it does not go before changes.
        if (result && result.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs, 'low');
      } catch (err) {
        try {
          onError(key, err);
        } catch {
          // The error reporter must not kill the worker.
        }
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
}
