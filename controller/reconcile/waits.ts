/**
 * When the children's waits for their siblings (the waitFor child policy) are worth an event. A sibling
 * the same reconcile writes is judged by the API server's answer (apply.ts: a TenantNamespace's RoleBinding
 * goes with its Namespace), but many waits still end within seconds (a migration Job that runs briefly,
 * a Deployment's first pods). An event for each would be noise on every creation, so a wait is said (a
 * `Waiting` event) only once it has lasted
 * WAIT_EVENT_AFTER_MS since a reconcile first found the resource waiting (a migration Job that runs, a
 * sibling that is not ours), by the reconcile that finds it then: the resource is looked at again at that
 * time (ResourceMemory.dueInMs). It is said again when what it says changes, not at every look. Ready says
 * a wait at once, whatever its age: the status is level-based; the events tell what lasted. A reconcile
 * in which a child fails counts no wait (reconciler.ts): the failure is what it says, and a wait behind it
 * (a RoleBinding's for a Namespace that the API server refuses while it does not map the owner's kind, up
 * to 30 s after its CRD is installed) is its consequence.
 */

/** How long a wait lasts before it is said in an event: as long as a child may be still before it is stuck. */
export const WAIT_EVENT_AFTER_MS = 5_000;

/** The resources' waits, by queue key: since when the resource waits, and what an event said last. */
export class LastingWaits {
  private readonly waits = new Map<string, { since: number; said?: string }>();

  constructor(private readonly now: () => Date) {}

  /**
   * What this reconcile found its children waiting for (`message`, empty when nothing waits): true when
   * the wait has lasted WAIT_EVENT_AFTER_MS and what it says was not said yet, so an event says it now.
   */
  lasts(key: string, message: string): boolean {
    if (!message) {
      this.waits.delete(key);
      return false;
    }
    const now = this.now().getTime();
    const wait = this.waits.get(key) ?? { since: now };
    this.waits.set(key, wait);
    if (now < wait.since + WAIT_EVENT_AFTER_MS || wait.said === message) return false;
    wait.said = message;
    return true;
  }

  /** How soon the resource's wait will have lasted long enough to be said; undefined when it has (or none). */
  dueInMs(key: string): number | undefined {
    const wait = this.waits.get(key);
    const left = wait ? wait.since + WAIT_EVENT_AFTER_MS - this.now().getTime() : 0;
    return left > 0 ? left : undefined;
  }

  forget(key: string): void {
    this.waits.delete(key);
  }
}
