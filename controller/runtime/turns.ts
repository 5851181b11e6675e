/**
 * Keys waiting in one priority of the work queue, by group (the manager's groups are kinds), the groups
 * taking turns: the next key is the first of the group whose turn it is, and that group goes to the back.
 * A burst of one kind's keys then never makes another kind's key wait behind all of it, as a queue per
 * controller does in controller-runtime, while the workers stay one pool; within a group, keys keep their
 * order. Each key keeps the time it was queued (for the queue's overdue refreshes).
 */
export class Turns {
  /** Groups in the order of their turns (a Map keeps insertion order); each its keys in order. */
  private readonly groups = new Map<string, Map<string, number>>();
  private count = 0;

  constructor(private readonly groupOf: (key: string) => string) {}

  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    return this.groups.get(this.groupOf(key))?.has(key) ?? false;
  }

  /** Queues the key at the back of its group (a group new to the queue takes the last turn). */
  add(key: string, at: number): void {
    const group = this.groupOf(key);
    let keys = this.groups.get(group);
    if (!keys) this.groups.set(group, (keys = new Map<string, number>()));
    if (keys.has(key)) return;
    keys.set(key, at);
    this.count++;
  }

  delete(key: string): boolean {
    const group = this.groupOf(key);
    const keys = this.groups.get(group);
    if (!keys?.delete(key)) return false;
    this.count--;
    if (keys.size === 0) this.groups.delete(group);
    return true;
  }

  /** Takes the first key of the group whose turn it is; that group's next turn comes after the others'. */
  take(): string | undefined {
    for (const [group, keys] of this.groups) {
      const [key] = keys.keys();
      keys.delete(key);
      this.count--;
      this.groups.delete(group);
      if (keys.size > 0) this.groups.set(group, keys);
      return key;
    }
    return undefined;
  }

  /** When the longest-waiting key was queued (the first of some group), or undefined when empty. */
  oldest(): number | undefined {
    let oldest: number | undefined;
    for (const keys of this.groups.values()) {
      const [first] = keys.values();
      if (oldest === undefined || first < oldest) oldest = first;
    }
    return oldest;
  }
}
