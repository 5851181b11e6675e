/**
 * The members of a sharded controller, read from their Leases: every replica holds a Lease of its own,
 * named after itself and labelled with the ring's name, as timebertt/kubernetes-controller-sharding's
 * shards do (its labels, so that its tools and dashboards read ours). A member is available while its
 * Lease is renewed, and for one lease duration after it expired (it may be slow, not gone); past that it
 * is uncertain, and the ring's leader takes its Lease over, which a member that still runs sees at its
 * next renewal and stops: only then are its resources another's (`dead`). A Lease left dead a minute is
 * removed (`orphaned`). Pure: the Leases come from a watch, the time from the caller.
 */

/** On each member's Lease: the ring it belongs to. */
export const RING_LABEL = 'alpha.sharding.timebertt.dev/controllerring';
/** On each member's Lease, written by the ring's leader: its state, for `kubectl get lease -L`. */
export const STATE_LABEL = 'alpha.sharding.timebertt.dev/state';
/** On each resource and child: the member it is assigned to. */
export const shardLabel = (ring: string): string => `shard.alpha.sharding.timebertt.dev/${ring}`;
/** On a resource being moved: its member is asked to let go of it, and says so by removing both labels. */
export const drainLabel = (ring: string): string => `drain.alpha.sharding.timebertt.dev/${ring}`;

/** How long a dead member's Lease stays before it is removed. */
export const ORPHAN_AFTER_MS = 60_000;

export type MemberState = 'ready' | 'expired' | 'uncertain' | 'dead' | 'orphaned';

/** A Lease as the API server returns it, the fields read here. */
export interface MemberLease {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
  };
}

/**
 * A member's state at `now`. A Lease held by anyone but the member it is named after (released, or taken
 * over by the ring's leader) is dead, and orphaned a minute after it expired.
 */
export function memberState(lease: MemberLease, now: number): MemberState {
  const spec = lease.spec ?? {};
  const durationMs = (spec.leaseDurationSeconds ?? 15) * 1000;
  const renewed = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
  const expiresAt = Number.isNaN(renewed) || !spec.acquireTime ? now : renewed + durationMs;
  if (!spec.holderIdentity || spec.holderIdentity !== lease.metadata.name)
    return now >= expiresAt + ORPHAN_AFTER_MS ? 'orphaned' : 'dead';
  if (now >= expiresAt + durationMs) return 'uncertain';
  if (now >= expiresAt) return 'expired';
  return 'ready';
}

/** Whether resources may be assigned to (and stay with) a member in `state`. */
export const isAvailable = (state: MemberState): boolean =>
  state === 'ready' || state === 'expired' || state === 'uncertain';

/** The available members of `ring` among `leases`, by name, sorted: what the hash ring is made of. */
export function availableMembers(leases: readonly MemberLease[], ring: string, now: number): string[] {
  return leases
    .filter((l) => l.metadata.labels?.[RING_LABEL] === ring && isAvailable(memberState(l, now)))
    .map((l) => l.metadata.name)
    .sort();
}
