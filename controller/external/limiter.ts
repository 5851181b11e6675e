/**
 * A kind's bound on its external handlers: at most `concurrency` at once, and at most `ratePerSecond`
 * started per second when the kind sets one (a provider's rate limit), first come first served. Our own,
 * not p-limit or bottleneck: p-limit has no rate and is ESM-only since v4, bottleneck is unmaintained, and
 * what is needed is a counter, a queue and one timer (docs/DESIGN.md, "External work").
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** When the last handler started, for the rate. */
  private lastStart = -Infinity;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly concurrency: number,
    private readonly ratePerSecond: number | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `work` once a slot is free (and the rate allows), and frees the slot when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.next();
    });
    try {
      return await work();
    } finally {
      this.running--;
      this.next();
    }
  }

  /** How many handlers run now, and how many wait for a slot. */
  get counts(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private next(): void {
    if (this.timer || this.running >= this.concurrency || this.waiting.length === 0) return;
    const dueInMs = this.ratePerSecond ? this.lastStart + 1000 / this.ratePerSecond - this.now() : 0;
    if (dueInMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.next();
      }, dueInMs);
      this.timer.unref();
      return;
    }
    this.running++;
    this.lastStart = this.now();
    this.waiting.shift()!();
    this.next();
  }
}
