/**
 * The watch events of the controller's own writes. Each child a reconcile creates or applies comes back
 * from its watch as the object the write returned, same resourceVersion. That reconcile has judged the
 * resource with the object already (its status reads the children it wrote, not the lagging caches), so
 * the echo wakes no one: a burst of new resources is not reconciled once more each for the children it
 * just made, nor a single update for the Deployment it just changed. Any other version (a change by
 * someone else, the status the Deployment controller writes) wakes the owner as before.
 *
 * The watch may bring the event before the write's answer (both ride the same connection, on streams of
 * their own): an event of a child with a write in flight waits for the answer, then is judged.
 *
 * Level-based still: every reconcile that writes goes on to its status with what it wrote, or fails into
 * a retry; dropping an echo loses nothing a reconcile has not seen.
 */

/** Versions kept per child at most: an echo a relist skipped is never heard, and must not pile up. */
const KEPT = 4;

/** The writes of one child not answered yet, and the events that wait for them. */
interface Flight {
  writes: number;
  readonly waiting: { readonly version?: string; readonly settle: (echo: boolean) => void }[];
}

export class Echoes {
  /** By child key (objectKey), the resourceVersions this controller's writes returned, oldest first. */
  private readonly versions = new Map<string, string[]>();
  private readonly flights = new Map<string, Flight>();

  /**
   * A write of the child is sent: call what this returns once, with the version its answer carried
   * (undefined when it failed or wrote nothing).
   */
  send(childKey: string): (version: string | undefined) => void {
    const flight = this.flights.get(childKey) ?? { writes: 0, waiting: [] };
    flight.writes += 1;
    this.flights.set(childKey, flight);
    let answered = false;
    return (version) => {
      if (answered) return;
      answered = true;
      this.wrote(childKey, version);
      flight.writes -= 1;
      if (flight.writes > 0) return;
      this.flights.delete(childKey);
      for (const { version: heard, settle } of flight.waiting) settle(this.heard(childKey, heard) === true);
    };
  }

  /** A write of the child returned this version: its watch event is an echo. */
  wrote(childKey: string, version: string | undefined): void {
    if (!version) return;
    const versions = this.versions.get(childKey) ?? [];
    if (versions.includes(version)) return;
    versions.push(version);
    if (versions.length > KEPT) versions.shift();
    this.versions.set(childKey, versions);
  }

  /**
   * Whether a watch event's object is a version this controller wrote; a promise of it while a write of
   * the child is in flight. The older writes of the child are heard with it (a watch brings a key's
   * versions in order); this one is kept, since every kind's watch of the child's type hears the event.
   */
  heard(childKey: string, version: string | undefined): boolean | Promise<boolean> {
    const versions = this.versions.get(childKey);
    const at = version && versions ? versions.indexOf(version) : -1;
    if (at >= 0) {
      versions!.splice(0, at);
      return true;
    }
    const flight = this.flights.get(childKey);
    if (!flight) return false;
    return new Promise((settle) => flight.waiting.push({ version, settle }));
  }

  /** A watch event of the child: whether it is an echo (see heard); a deleted child is forgotten. */
  event(childKey: string, version: string | undefined, event: 'add' | 'update' | 'delete') {
    if (event !== 'delete') return this.heard(childKey, version);
    this.versions.delete(childKey);
    return false;
  }
}
