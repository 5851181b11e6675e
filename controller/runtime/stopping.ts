/**
 * Why the controller stops, decided once: the first of a stop asked for (SIGTERM, SIGINT, an abort) and a
 * lease lost (the leader's, or a ring member's own). A lease lost while the controller is already stopping
 * on request (its renewals late while it finishes its reconciles on a loaded machine, or the ring's leader
 * taking a member's Lease over as it leaves) ends the wait for its reconciles, as any lost lease does: the
 * work is no longer its own. But the stop stays the one asked for, and the exit status 0: it is not a
 * failure for the Deployment to restart.
 */
export class Stopping {
  /** The first reason given. */
  readonly reason: Promise<string>;
  /** Aborts once a lease is lost, before or during the stop. */
  readonly leaseLost: AbortSignal;
  private first?: { reason: string; failed: boolean };
  private resolve!: (reason: string) => void;
  private readonly lost = new AbortController();

  constructor() {
    this.reason = new Promise((resolve) => (this.resolve = resolve));
    this.leaseLost = this.lost.signal;
  }

  /** A stop asked for: a signal, an abort. */
  request(reason: string): void {
    this.decide(reason, false);
  }

  /** A lease lost: the controller may no longer act on what it held. */
  loseLease(reason: string): void {
    this.lost.abort();
    this.decide(reason, true);
  }

  /** Whether it is stopping, for whatever reason. */
  get decided(): boolean {
    return this.first !== undefined;
  }

  /** Whether it stops because it lost a lease without being asked to stop: exit 1, to be restarted. */
  get failed(): boolean {
    return this.first?.failed ?? false;
  }

  /** The exit status: 1 when a lost lease came first, else 0. */
  get exitCode(): 0 | 1 {
    return this.failed ? 1 : 0;
  }

  private decide(reason: string, failed: boolean): void {
    if (this.first) return;
    this.first = { reason, failed };
    this.resolve(reason);
  }
}

/** Whether `promise` settled within `ms`; 'timeout' also as soon as `signal` aborts. */
export function withTimeout(
  promise: Promise<unknown>,
  ms: number,
  signal?: AbortSignal,
): Promise<'done' | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
    onAbort = () => resolve('timeout');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise.then(() => 'done' as const), timeout]).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort!);
  });
}
