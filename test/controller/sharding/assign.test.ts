/** The ring leader's decisions: assign, drain, undrain, take over and remove, from Leases and labels. */
import { memcachedKind } from '../../../constructs/memcached';
import { Placements, labelsOf, plan, type Placed } from '../../../controller/sharding/assign';
import { ringLabelsChanged } from '../../../controller/sharding/sharder';
import { HashRing } from '../../../controller/sharding/ring';
import { RING_LABEL, drainLabel, shardLabel, type MemberLease } from '../../../controller/sharding/members';

const T = Date.parse('2026-11-27T12:00:00Z');
const at = (seconds: number) => new Date(T + seconds * 1000).toISOString();
const SHARD = shardLabel('r');
const DRAIN = drainLabel('r');

const lease = (name: string, renewedAgo = 0, holder = name): MemberLease => ({
  metadata: { name, labels: { [RING_LABEL]: 'r' } },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: at(-600),
    renewTime: at(-renewedAgo),
  },
});
const placed = (uid: string, labels: Record<string, string> = {}): Placed => ({
  type: memcachedKind,
  namespace: 'ns',
  name: uid,
  uid,
  labels,
});

/** A uid the ring of `members` gives to `member`. */
function uidOf(members: string[], member: string): string {
  const ring = new HashRing(members);
  for (let i = 0; ; i++) if (ring.memberFor(`uid-${i}`) === member) return `uid-${i}`;
}

describe('plan', () => {
  const members = ['a', 'b', 'c'];
  const leases = members.map((m) => lease(m));

  it('assigns a new resource to the member the ring gives its uid', () => {
    const uid = uidOf(members, 'b');
    expect(plan('r', leases, [placed(uid)], T).moves).toEqual([
      { action: 'assign', object: placed(uid), to: 'b' },
    ]);
  });

  it('leaves a resource on its member, and takes back a drain no longer wanted', () => {
    const uid = uidOf(members, 'b');
    expect(plan('r', leases, [placed(uid, { [SHARD]: 'b' })], T).moves).toEqual([]);
    expect(plan('r', leases, [placed(uid, { [SHARD]: 'b', [DRAIN]: 'true' })], T).moves).toEqual([
      { action: 'undrain', object: placed(uid, { [SHARD]: 'b', [DRAIN]: 'true' }), member: 'b' },
    ]);
  });

  it('drains a resource whose member is up before it moves, once; assigns it when the member let go', () => {
    // d joins: what the ring now gives d is drained from its member first.
    const four = [...leases, lease('d')];
    const uid = uidOf([...members, 'd'], 'd');
    const from = new HashRing(members).memberFor(uid)!;
    const onFrom = placed(uid, { [SHARD]: from });
    expect(plan('r', four, [onFrom], T).moves).toEqual([{ action: 'drain', object: onFrom, from, to: 'd' }]);
    expect(plan('r', four, [placed(uid, { [SHARD]: from, [DRAIN]: 'true' })], T).moves).toEqual([]);
    // The member removed both labels: now it is assigned.
    expect(plan('r', four, [placed(uid)], T).moves).toEqual([
      { action: 'assign', object: placed(uid), to: 'd' },
    ]);
  });

  it('moves the resources of a member that is gone at once, without a drain', () => {
    const uid = uidOf(members, 'b');
    const onB = placed(uid, { [SHARD]: 'b' });
    const withoutB = plan('r', [lease('a'), lease('c'), lease('b', 20, 'leader')], [onB], T);
    expect(withoutB.members).toEqual(['a', 'c']);
    expect(withoutB.moves).toEqual([
      { action: 'assign', object: onB, to: new HashRing(['a', 'c']).memberFor(uid), from: 'b' },
    ]);
    // No Lease at all: the same.
    expect(plan('r', [lease('a'), lease('c')], [onB], T).moves).toHaveLength(1);
  });

  it('takes over an expired Lease, removes an orphaned one, and assigns to members whose Lease is their own', () => {
    const result = plan(
      'r',
      [
        lease('a'),
        lease('b', 10),
        lease('c', 20),
        lease('d', 80, 'leader'),
        { ...lease('x'), metadata: { name: 'x' } },
      ],
      [],
      T,
    );
    expect(result.members).toEqual(['a', 'b', 'c']);
    expect(result.takeOver).toEqual(['c']);
    expect(result.remove).toEqual(['d']);
    expect([...result.states]).toEqual([
      ['a', 'ready'],
      ['b', 'ready'],
      ['c', 'expired'],
      ['d', 'orphaned'],
    ]);
  });

  it('keeps an expired member in the ring, its resources on it, until its Lease is taken over, then moves them', () => {
    // GIVEN c's renewals not seen for a lease duration: stopped, or only slow (or the leader's view late)
    const uid = uidOf(['a', 'b', 'c'], 'c');
    const onC = placed(uid, { [SHARD]: 'c' });
    const fresh = placed('uid-fresh');
    const expired = plan('r', [lease('a'), lease('b'), lease('c', 20)], [onC], T);
    // THEN its Lease is taken over (a write that fails if it renewed since), and nothing moves yet: no drain
    // it would answer if it is only slow, to take the share back at its next renewal seen
    expect(expired.takeOver).toEqual(['c']);
    expect(expired.members).toEqual(['a', 'b', 'c']);
    expect(expired.moves).toEqual([]);
    expect(plan('r', [lease('a'), lease('b'), lease('c', 20)], [fresh], T).moves).toEqual([
      { action: 'assign', object: fresh, to: new HashRing(['a', 'b', 'c']).memberFor(fresh.uid) },
    ]);
    // Once taken over (dead), its resources move without a drain.
    const dead = plan('r', [lease('a'), lease('b'), lease('c', 20, 'leader')], [onC], T);
    expect(dead.members).toEqual(['a', 'b']);
    expect(dead.moves.map((m) => m.action)).toEqual(['assign']);
  });

  it("times a Lease from when the leader saw it renewed, not from the member's clock", () => {
    const ahead = lease('c', -3600); // a member whose clock runs an hour ahead
    expect(plan('r', [lease('a'), ahead], [], T).takeOver).toEqual([]);
    expect(
      plan('r', [lease('a'), ahead], [], T, (l) => (l === ahead ? T - 16_000 : undefined)).takeOver,
    ).toEqual(['c']);
  });

  it('places nothing without members', () => {
    expect(plan('r', [], [placed('uid-1')], T).moves).toEqual([]);
  });
});

describe('labelsOf', () => {
  it('writes the shard label and clears the drain on assignment, sets or clears the drain otherwise', () => {
    const object = placed('uid');
    expect(labelsOf('r', { action: 'assign', object, to: 'a' })).toEqual({ [SHARD]: 'a', [DRAIN]: null });
    expect(labelsOf('r', { action: 'drain', object, from: 'a', to: 'b' })).toEqual({ [DRAIN]: 'true' });
    expect(labelsOf('r', { action: 'undrain', object, member: 'a' })).toEqual({ [DRAIN]: null });
  });
});

describe('Placements', () => {
  const uids = Array.from({ length: 500 }, (_, i) => `uid-${i}`);

  it('places each uid as the ring of the members does, and again after they change', () => {
    const placements = new Placements();
    for (const members of [
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c', 'd'],
      ['b', 'd'],
    ]) {
      const memberFor = placements.of(members, uids.length);
      const ring = new HashRing(members);
      expect(uids.filter((u) => memberFor(u) !== ring.memberFor(u))).toEqual([]);
    }
    expect(placements.of([], 0)('uid-1')).toBeUndefined();
  });

  it('remembers the uids of the members it was last asked for, and forgets them when they change', () => {
    const placements = new Placements();
    uids.forEach(placements.of(['a', 'b'], uids.length));
    expect(placements.size).toBe(500);
    placements.of(['a', 'b'], uids.length);
    expect(placements.size).toBe(500);
    placements.of(['a', 'b', 'c'], uids.length);
    expect(placements.size).toBe(0);
  });

  it('forgets the uids of deleted resources once they would be most of what it holds', () => {
    const placements = new Placements();
    uids.forEach(placements.of(['a'], uids.length));
    placements.of(['a'], 400); // 500 <= 2 x 400 + 1024: kept
    expect(placements.size).toBe(500);
    const many = Array.from({ length: 3000 }, (_, i) => `other-${i}`);
    many.forEach(placements.of(['a'], 3000));
    expect(placements.size).toBe(3500);
    placements.of(['a'], 10); // 3,500 > 2 x 10 + 1024
    expect(placements.size).toBe(0);
  });

  it('lets a pass with it decide as a pass without it', () => {
    const leases = ['a', 'b', 'c'].map((m) => lease(m));
    const objects = uids.map((u, i) => placed(u, i % 3 === 0 ? { [SHARD]: 'a' } : {}));
    const placements = new Placements();
    for (let pass = 0; pass < 2; pass++)
      expect(plan('r', leases, objects, T, undefined, placements)).toEqual(plan('r', leases, objects, T));
  });
});

describe('ringLabelsChanged', () => {
  const obj = (labels: Record<string, string>) => ({ metadata: { name: 'm', labels } });
  const keys = [SHARD, DRAIN];

  it('wakes the leader for a change of the shard or drain label only', () => {
    expect(ringLabelsChanged(keys, obj({}), obj({ [SHARD]: 'a' }))).toBe(true);
    expect(ringLabelsChanged(keys, obj({ [SHARD]: 'a' }), obj({ [SHARD]: 'a', [DRAIN]: 'true' }))).toBe(true);
    expect(ringLabelsChanged(keys, obj({ [SHARD]: 'a' }), obj({}))).toBe(true);
    expect(ringLabelsChanged(keys, obj({ [SHARD]: 'a' }), obj({ [SHARD]: 'a', team: 'x' }))).toBe(false);
    expect(ringLabelsChanged(keys, obj({ [SHARD]: 'a' }), obj({ [SHARD]: 'a' }))).toBe(false);
  });
});
