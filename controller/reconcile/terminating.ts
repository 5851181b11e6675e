/**
 * The terminating-namespace phase: a namespace being deleted takes its resources and children with it, so
 * re-creating children there is a fight the namespace controller wins, one refused write at a time. The
 * first refusal (403, "because it is being terminated") pauses the namespace's writes for a while.
 */

/**
 * How long a namespace the API server said is being deleted gets no child writes. Its resources go with it;
 * a namespace of the same name made afterwards waits at most this long.
 */
export const TERMINATING_MS = 30_000;

/** Namespaces being deleted, as the API server said, until when their resources get no writes. */
export class TerminatingNamespaces {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => Date) {}

  /** How long the namespace's resources still wait, or undefined when they do not. */
  pausedMs(namespace: string | undefined): number | undefined {
    const until = namespace !== undefined ? this.until.get(namespace) : undefined;
    if (until === undefined) return undefined;
    const left = until - this.now().getTime();
    if (left > 0) return left;
    this.until.delete(namespace!);
    return undefined;
  }

  /** The API server refused a write into the namespace because it is being deleted: pause it. */
  refused(namespace: string): number {
    this.until.set(namespace, this.now().getTime() + TERMINATING_MS);
    return TERMINATING_MS;
  }
}
