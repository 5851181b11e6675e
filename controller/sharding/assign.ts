/**
 * What the ring's leader does, decided from what it sees: each resource placed on the member the ring
 * gives its uid, and never written by two members at once. A resource with no member, or whose
 * member is gone (its Lease dead, orphaned or missing), is assigned at once; one whose member is still
 * up is first drained: its `drain` label asks that member to let go, and the member says it has by
 * removing both labels (after its last reconcile of it), after which it is assigned. A member whose Lease
 * expired (./members) has its Lease taken over, which stops it if it still runs (at its next renewal it
 * finds another holder) and makes it dead: its resources move at the next pass. Until then it stays in
 * the ring: the leader not having seen a renewal for a lease duration may be the leader's view coming
 * late on a loaded machine, or the member slow, not stopped; the take-over, a write with the
 * resourceVersion seen, fails if the member has renewed since, and then the ring has not changed: no share
 * moved away and back. A Lease dead a minute is removed.
 * Pure (test/controller/sharding/assign.test.ts); ./sharder does the writes.
 */
import type { ApiKind } from '../../constructs/kit';
import { HashRing } from './ring';
import {
  RING_LABEL,
  drainLabel,
  isAvailable,
  memberState,
  shardLabel,
  type MemberLease,
  type MemberState,
} from './members';

/** A resource as the leader's cache has it: where it is and its labels. */
export interface Placed {
  readonly type: ApiKind;
  readonly namespace?: string;
  readonly name: string;
  /** What places it on the ring. */
  readonly uid: string;
  readonly labels?: Record<string, string>;
}

export type Move =
  /** Label it with `to` (and no drain): a new resource, or one whose member is gone, or one drained. */
  | { readonly action: 'assign'; readonly object: Placed; readonly to: string; readonly from?: string }
  /** Ask its member `from` to let go, so that it can go to `to`. */
  | { readonly action: 'drain'; readonly object: Placed; readonly from: string; readonly to: string }
  /** Its drain is no longer wanted: the ring gives it back to the member that has it. */
  | { readonly action: 'undrain'; readonly object: Placed; readonly member: string };

export interface Plan {
  /** The members resources are assigned to: those whose Lease is still their own (ready or expired). */
  readonly members: readonly string[];
  readonly moves: readonly Move[];
  /** Leases to take over (expired), and to remove (orphaned), by name. */
  readonly takeOver: readonly string[];
  readonly remove: readonly string[];
  /** Each member Lease's state, by name. */
  readonly states: ReadonlyMap<string, MemberState>;
}

/**
 * The leader's work for `ring` at `now`, given the ring's Leases and every resource of its kinds.
 * `renewedAt`: when the leader saw each Lease's last renewal, on its own clock (see memberState).
 */
export function plan(
  ring: string,
  leases: readonly MemberLease[],
  objects: readonly Placed[],
  now: number,
  renewedAt: (lease: MemberLease) => number | undefined = () => undefined,
  /** Where each uid goes, remembered from pass to pass by a caller that keeps one. */
  placements = new Placements(),
): Plan {
  const states = new Map<string, MemberState>();
  for (const lease of leases)
    if (lease.metadata.labels?.[RING_LABEL] === ring)
      states.set(lease.metadata.name, memberState(lease, now, renewedAt(lease)));
  const named = (...wanted: MemberState[]) =>
    [...states].filter(([, s]) => wanted.includes(s)).map(([name]) => name);
  const members = named('ready', 'expired').sort();
  const memberFor = placements.of(members, objects.length);
  const shard = shardLabel(ring);
  const drain = drainLabel(ring);
  const moves: Move[] = [];
  for (const object of objects) {
    const to = memberFor(object.uid);
    if (!to) break; // no member: nothing can be placed
    const from = object.labels?.[shard] || undefined;
    const draining = object.labels?.[drain] !== undefined;
    if (from === to) {
      if (draining) moves.push({ action: 'undrain', object, member: to });
    } else if (!from || !isAvailable(states.get(from) ?? 'orphaned')) {
      moves.push({ action: 'assign', object, to, ...(from ? { from } : {}) });
    } else if (!draining) {
      moves.push({ action: 'drain', object, from, to });
    }
  }
  return { members, moves, takeOver: named('expired'), remove: named('orphaned'), states };
}

/**
 * The member of each uid on the ring of the members, remembered while they stay the same: the leader
 * places every resource on every pass (each burst of events, each second), and a lookup costs a tenth of a
 * hash and a search of the ring (`npm run bench:sharder-pass`: a pass over 10,000 resources about 9x faster).
 */
export class Placements {
  private members?: string;
  private ring = new HashRing([]);
  private readonly byUid = new Map<string, string>();

  /** Where each uid goes on the ring of `members` (sorted); `live`: how many resources there are now. */
  of(members: readonly string[], live: number): (uid: string) => string | undefined {
    const key = members.join(',');
    // Forgotten when the members change, and when deleted resources' uids would make most of it.
    if (key !== this.members || this.byUid.size > 2 * live + 1024) {
      this.members = key;
      this.ring = new HashRing(members);
      this.byUid.clear();
    }
    const { ring, byUid } = this;
    return (uid) => {
      let member = byUid.get(uid);
      if (member === undefined) {
        member = ring.memberFor(uid);
        if (member !== undefined) byUid.set(uid, member);
      }
      return member;
    };
  }

  /** How many uids it remembers. */
  get size(): number {
    return this.byUid.size;
  }
}

/** The labels a move writes, as a merge patch of metadata.labels (null removes). */
export function labelsOf(ring: string, move: Move): Record<string, string | null> {
  switch (move.action) {
    case 'assign':
      return { [shardLabel(ring)]: move.to, [drainLabel(ring)]: null };
    case 'drain':
      return { [drainLabel(ring)]: 'true' };
    case 'undrain':
      return { [drainLabel(ring)]: null };
  }
}
