/**
 * The members of a sharded controller, read from their Leases: every replica holds a Lease of its own,
 * named after itself and labelled with the ring's name, as timebertt/kubernetes-controller-sharding's
 * shards do (its labels, so that its tools and dashboards read ours). A member is ready while its Lease
 * is renewed. Once it has gone a lease duration without a renewal, measured as client-go's leader election
 * measures it, on the observer's clock from when it saw the last renewal (so clocks need not agree), it
 * has stopped working: a member stops when it cannot renew within its renew deadline, two thirds of the
 * duration. It is then `expired`, and the ring's leader takes its Lease over, which a member that still
 * runs would find at its next renewal, and stop; only then (`dead`) are its resources another's. A Lease
 * left dead a minute is removed (`orphaned`). Pure: the Leases come from a watch, the times from the
 * caller.
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

export type MemberState = 'ready' | 'expired' | 'dead' | 'orphaned';

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
 * A member's state at `now`. `renewedAt`: when the observer saw its last renewal, on the observer's clock
 * (by default the Lease's renewTime, the member's clock). A Lease held by anyone but the member it is named
 * after (released, or taken over by the ring's leader) is dead, and orphaned a minute after it expired.
 */
export function memberState(lease: MemberLease, now: number, renewedAt?: number): MemberState {
  const spec = lease.spec ?? {};
  const durationMs = (spec.leaseDurationSeconds ?? 15) * 1000;
  const renewed = renewedAt ?? (spec.renewTime && spec.acquireTime ? Date.parse(spec.renewTime) : NaN);
  const expiresAt = Number.isNaN(renewed) ? now : renewed + durationMs;
  if (!spec.holderIdentity || spec.holderIdentity !== lease.metadata.name)
    return now >= expiresAt + ORPHAN_AFTER_MS ? 'orphaned' : 'dead';
  return now >= expiresAt ? 'expired' : 'ready';
}

/**
 * Whether a member in `state` may still be working on its resources: they stay with it (a move drains
 * them first) until its Lease is taken over.
 */
export const isAvailable = (state: MemberState): boolean => state === 'ready' || state === 'expired';

/** A member's name, which names its Lease: the host's (a pod's name), made a DNS label, and a suffix. */
export function memberName(host: string, suffix: string): string {
  const base = host
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 52)
    .replace(/-+$/, '');
  return `${base || 'reconstruct'}-${suffix}`;
}
