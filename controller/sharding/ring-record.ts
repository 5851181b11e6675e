/**
 * Sharding through the API server's shard ranges (the ranges read path): no label on any resource; each
 * member lists and watches only the hash ranges the ring gives it (`shardSelector`), and the handoff of a
 * range is a handshake through Leases, so that a range is never held by two members at once.
 *
 * The ring's leader publishes the ring in a record (annotations of the Lease `<ring>-ring`): its
 * generation and members (those whose Lease is still their own: ready, or expired and not yet taken over).
 * A member seeing a new generation first narrows what it holds
 * to what it held and still has in the new ring, finishes the reconciles in flight, and then acknowledges
 * the generation on its own Lease. Once every member that may still be working (its Lease ready or
 * expired, see ./members) has acknowledged it, the leader marks the generation settled, and only then
 * does each member widen to its whole share. A member that stops renewing is not waited for: its Lease is
 * taken over, which it finds at its next renewal (it has stopped by its renew deadline anyway).
 *
 * Pure: the decisions of the leader (nextRecord) and of a member (memberStep); ./sharder and ./member
 * read and write the Leases.
 */
import { HashRing, intersectRanges, type HashRanges } from './ring';
import { isAvailable, type MemberLease, type MemberState } from './members';

/** The record's Lease: `<ring>-ring`, beside the members' Leases. */
export const recordName = (ring: string): string => `${ring}-ring`;

/** On the record Lease: the ring's name, so that tools (reconstruct tree) find the records of a cluster. */
export const RECORD_LABEL = 'sharding.reconstruct.dev/ring';
/** On the record: the ring's generation, counted up each time its members change. */
export const GENERATION_ANNOTATION = 'sharding.reconstruct.dev/generation';
/** On the record: the members of that generation, sorted, comma-separated. */
export const MEMBERS_ANNOTATION = 'sharding.reconstruct.dev/members';
/** On the record: the last generation every member has acknowledged. */
export const SETTLED_ANNOTATION = 'sharding.reconstruct.dev/settled';
/** On a member's Lease: the last generation it has narrowed to (see memberStep). */
export const ACKNOWLEDGED_ANNOTATION = 'sharding.reconstruct.dev/acknowledged';

export interface RingRecord {
  readonly generation: number;
  readonly members: readonly string[];
  readonly settled: number;
}

const count = (value: string | undefined): number => {
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
};

/** The record in a Lease's annotations; undefined when there is none (no leader has written one). */
export function readRecord(annotations: Record<string, string> | undefined): RingRecord | undefined {
  if (!annotations?.[GENERATION_ANNOTATION]) return undefined;
  return {
    generation: count(annotations[GENERATION_ANNOTATION]),
    members: (annotations[MEMBERS_ANNOTATION] ?? '').split(',').filter(Boolean),
    settled: count(annotations[SETTLED_ANNOTATION]),
  };
}

/** The annotations that say `record`. */
export function recordAnnotations(record: RingRecord): Record<string, string> {
  return {
    [GENERATION_ANNOTATION]: String(record.generation),
    [MEMBERS_ANNOTATION]: record.members.join(','),
    [SETTLED_ANNOTATION]: String(record.settled),
  };
}

/** The generation a member's Lease acknowledges; 0 for none. */
export const acknowledged = (lease: MemberLease & { metadata: { annotations?: Record<string, string> } }) =>
  count(lease.metadata.annotations?.[ACKNOWLEDGED_ANNOTATION]);

/**
 * The record the leader wants, from the one it has and the members' Leases: a new generation when the
 * members (./assign's plan) are not the record's; settled once every member that may still be working has
 * acknowledged it. `states`: each Lease's state by name (./assign's plan).
 */
export function nextRecord(
  current: RingRecord | undefined,
  inRing: readonly string[],
  leases: readonly (MemberLease & { metadata: { annotations?: Record<string, string> } })[],
  states: ReadonlyMap<string, MemberState>,
): RingRecord {
  const members = [...inRing].sort();
  const same = current !== undefined && current.members.join(',') === members.join(',');
  const generation = same ? current.generation : (current?.generation ?? 0) + 1;
  const working = leases.filter((l) => isAvailable(states.get(l.metadata.name) ?? 'orphaned'));
  const settled = working.every((l) => acknowledged(l) >= generation)
    ? generation
    : Math.min(current?.settled ?? 0, generation);
  return { generation, members, settled };
}

/** The same record. */
export const sameRecord = (a: RingRecord | undefined, b: RingRecord): boolean =>
  a !== undefined &&
  a.generation === b.generation &&
  a.settled === b.settled &&
  a.members.join(',') === b.members.join(',');

/**
 * What member `me` holds once it has seen `record`, given what it holds: its whole share of the ring
 * once the generation is settled; before, what it holds and keeps in the new ring (never more). It then
 * acknowledges the generation, after the reconciles in flight have finished.
 */
export function memberStep(me: string, record: RingRecord, held: HashRanges): HashRanges {
  const share = new HashRing(record.members).rangesOf(me);
  return record.settled >= record.generation ? share : intersectRanges(held, share);
}
