/**
 * The handshake of the ranges read path, as pure decisions: the leader's record (a generation per set of
 * members, settled once every working member has acknowledged it) and each member's step (narrow first,
 * widen once settled); then a simulation of members joining, leaving and being killed while the leader and
 * the members act in random order, checking that no hash is ever held by two members at once.
 */
import {
  ACKNOWLEDGED_ANNOTATION,
  memberStep,
  nextRecord,
  readRecord,
  recordAnnotations,
  type RingRecord,
} from '../../../controller/sharding/ring-record';
import type { MemberLease, MemberState } from '../../../controller/sharding/members';
import { HashRing, HASH_SPACE, inRanges, type HashRanges } from '../../../controller/sharding/ring';
import { seededRandom } from '../../../testing/schema-samples';

type Lease = MemberLease & { metadata: { annotations?: Record<string, string> } };
const lease = (name: string, acknowledged?: number): Lease => ({
  metadata: {
    name,
    ...(acknowledged !== undefined
      ? { annotations: { [ACKNOWLEDGED_ANNOTATION]: String(acknowledged) } }
      : {}),
  },
});
const states = (entries: Record<string, MemberState>) => new Map(Object.entries(entries));
/** The ring's members as the leader's plan gives them: those whose Lease is still their own. */
const inRing = (leases: ReadonlyMap<string, MemberState>) =>
  [...leases].filter(([, s]) => s === 'ready' || s === 'expired').map(([n]) => n);

describe('the ring record', () => {
  it('reads what it writes, and nothing from a Lease without one', () => {
    const record: RingRecord = { generation: 4, members: ['a', 'b'], settled: 3 };
    expect(readRecord(recordAnnotations(record))).toEqual(record);
    expect(readRecord(undefined)).toBeUndefined();
    expect(readRecord({ other: 'x' })).toBeUndefined();
  });

  it('counts a generation up when the members change, and not otherwise', () => {
    const first = nextRecord(
      undefined,
      ['b', 'a'],
      [lease('a'), lease('b')],
      states({ a: 'ready', b: 'ready' }),
    );
    expect(first).toEqual({ generation: 1, members: ['a', 'b'], settled: 0 });
    const same = nextRecord(first, ['a', 'b'], [lease('a'), lease('b')], states({ a: 'ready', b: 'ready' }));
    expect(same.generation).toBe(1);
    const joined = nextRecord(
      first,
      ['a', 'b', 'c'],
      [lease('a'), lease('b'), lease('c')],
      states({ a: 'ready', b: 'ready', c: 'ready' }),
    );
    expect(joined.generation).toBe(2);
  });

  it('settles a generation once every working member has acknowledged it, not waiting for the dead', () => {
    const record: RingRecord = { generation: 2, members: ['a', 'b'], settled: 1 };
    const live = states({ a: 'ready', b: 'ready', c: 'expired' });
    // c's Lease expired but is not taken over yet: it may still be working, so it is waited for.
    expect(nextRecord(record, ['a', 'b'], [lease('a', 2), lease('b', 2), lease('c', 1)], live).settled).toBe(
      1,
    );
    // Taken over (dead): no longer.
    const taken = states({ a: 'ready', b: 'ready', c: 'dead' });
    expect(nextRecord(record, ['a', 'b'], [lease('a', 2), lease('b', 2), lease('c', 1)], taken).settled).toBe(
      2,
    );
    // A member that has not acknowledged holds it back.
    expect(nextRecord(record, ['a', 'b'], [lease('a', 2), lease('b', 1)], live).settled).toBe(1);
  });
});

describe("a member's step", () => {
  const ring = new HashRing(['a', 'b']);
  it('keeps only what it held and keeps in the new ring until the generation settles, then takes its share', () => {
    const heldBefore = new HashRing(['a']).rangesOf('a'); // all of it
    const changing: RingRecord = { generation: 2, members: ['a', 'b'], settled: 1 };
    expect(memberStep('a', changing, heldBefore)).toEqual(ring.rangesOf('a'));
    // b held nothing and gets nothing before the generation settles.
    expect(memberStep('b', changing, [])).toEqual([]);
    const settled = { ...changing, settled: 2 };
    expect(memberStep('b', settled, [])).toEqual(ring.rangesOf('b'));
  });

  it('holds nothing in a ring that does not name it', () => {
    expect(memberStep('z', { generation: 3, members: ['a', 'b'], settled: 3 }, [])).toEqual([]);
  });
});

/**
 * The leader and the members as the cluster runs them, one action at a time in random order: the leader
 * publishes a record from the Leases it sees, a member steps from the record it last saw (acknowledging
 * once it has narrowed), members join, stop (releasing their Lease) or are killed (their Lease expires and
 * is taken over later). After every action, no probe hash is held by two members.
 */
describe('the handshake, simulated', () => {
  interface SimMember {
    name: string;
    held: HashRanges;
    acknowledged: number;
    alive: boolean;
    /** The record it has seen: members read the record late, as an informer does. */
    seen?: RingRecord;
  }

  it('never lets two members hold one hash, over 40 seeds of 300 actions', () => {
    const probes = Array.from({ length: 64 }, (_, i) => (HASH_SPACE / 64n) * BigInt(i) + 12345n);
    for (let seed = 1; seed <= 40; seed++) {
      const random = seededRandom(seed);
      const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
      const members: SimMember[] = [];
      const leaseState = new Map<string, MemberState>();
      let record: RingRecord | undefined;
      let next = 0;
      const join = () => {
        const m: SimMember = { name: `m${next++}`, held: [], acknowledged: 0, alive: true };
        members.push(m);
        leaseState.set(m.name, 'ready');
      };
      for (let i = 0; i < 3; i++) join();
      for (let step = 0; step < 300; step++) {
        const roll = random();
        const alive = members.filter((m) => m.alive);
        if (roll < 0.05) join();
        else if (roll < 0.08 && alive.length > 1) {
          // Stopped on SIGTERM: it stops working, then releases its Lease (dead at once).
          const m = pick(alive);
          m.alive = false;
          m.held = [];
          leaseState.set(m.name, 'dead');
        } else if (roll < 0.11 && alive.length > 1) {
          // Killed: it stops working; its Lease expires (the leader sees it later) and is then taken over.
          const m = pick(alive);
          m.alive = false;
          m.held = [];
          leaseState.set(m.name, 'expired');
        } else if (roll < 0.13 && alive.length > 0) {
          // Slow, not stopped: the leader has not seen its renewals for a lease duration (its view late).
          leaseState.set(pick(alive).name, 'expired');
        } else if (roll < 0.17) {
          // The leader takes expired Leases over: a killed member's is then dead; a slow member has renewed
          // since, the take-over is refused, and its renewal is seen.
          for (const m of members)
            if (leaseState.get(m.name) === 'expired') leaseState.set(m.name, m.alive ? 'ready' : 'dead');
        } else if (roll < 0.45) {
          const leases = members.map((m) => lease(m.name, m.acknowledged));
          record = nextRecord(record, inRing(leaseState), leases, leaseState);
        } else if (alive.length > 0 && record) {
          const m = pick(alive);
          // A member's view lags: it may act on the record it saw before this one.
          if (!m.seen || random() < 0.7) m.seen = record;
          m.held = memberStep(m.name, m.seen, m.held);
          m.acknowledged = Math.max(m.acknowledged, m.seen.generation);
        }
        for (const hash of probes) {
          const holders = members.filter((m) => m.alive && inRanges(m.held, hash)).map((m) => m.name);
          if (holders.length > 1)
            throw new Error(`seed ${seed}, step ${step}: hash ${hash} held by ${holders.join(' and ')}`);
        }
      }
      // Left alone, it settles: every live member holds its share of the last ring.
      for (const m of members)
        if (leaseState.get(m.name) === 'expired') leaseState.set(m.name, m.alive ? 'ready' : 'dead');
      const ready = inRing(leaseState);
      for (let round = 0; round < 3; round++) {
        record = nextRecord(
          record,
          ready,
          members.map((m) => lease(m.name, m.acknowledged)),
          leaseState,
        );
        for (const m of members.filter((x) => x.alive)) {
          m.seen = record;
          m.held = memberStep(m.name, record, m.held);
          m.acknowledged = record.generation;
        }
      }
      const final = new HashRing(ready);
      for (const m of members.filter((x) => x.alive)) expect(m.held).toEqual(final.rangesOf(m.name));
    }
  });
});
