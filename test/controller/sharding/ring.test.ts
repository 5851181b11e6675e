/**
 * The hash ring: FNV-1a 64 as Go (and so the API server) computes it, shares near 1/N, about 1/N moved
 * when a member joins or leaves, and ranges that cut the hash space exactly as memberOf does. That the API
 * server's shard ranges agree with it is test/controller/sharding/ring.cluster.test.ts.
 */
import {
  HASH_SPACE,
  HashRing,
  fnv1a64,
  fnv1a64Reference,
  hexBound,
  bucketOf,
  bucketsOf,
  inRanges,
  intersectRanges,
  placementHash,
  shardSelector,
} from '../../../controller/sharding/ring';
import { seededRandom } from '../../../testing/schema-samples';

/** uids as the API server makes them: random, version 4. */
const uids = (n: number, seed = 7): string[] => {
  const random = seededRandom(seed);
  const hex = (digits: number) =>
    Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');
  return Array.from({ length: n }, () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`);
};

describe('fnv1a64', () => {
  it.each([
    ['', 0xcbf29ce484222325n],
    ['a', 0xaf63dc4c8601ec8cn],
    ['foobar', 0x85944171f73967e8n],
  ])('of %j is Go hash/fnv New64a’s', (value, hash) => {
    expect(fnv1a64(value)).toBe(hash);
  });

  it('hashes UTF-8 bytes', () => {
    expect(fnv1a64('é')).not.toBe(fnv1a64('\u00e9'.normalize('NFD')));
    expect(fnv1a64('é')).toBe(fnv1a64(Buffer.from([0xc3, 0xa9]).toString('utf8')));
  });
});

describe('HashRing', () => {
  const keys = uids(3000);

  it('gives each of 3 members a share near a third, whatever their names', () => {
    // Members are named as pods are: a common prefix, a random suffix.
    const random = seededRandom(11);
    for (let round = 0; round < 20; round++) {
      const members = Array.from(
        { length: 3 },
        () => `reconstruct-7d9f8-${Math.floor(random() * 1e8).toString(16)}`,
      );
      const ring = new HashRing(members);
      const counts = new Map<string, number>();
      for (const uid of keys) counts.set(ring.memberFor(uid)!, (counts.get(ring.memberFor(uid)!) ?? 0) + 1);
      expect([...counts.keys()].sort()).toEqual([...members].sort());
      for (const count of counts.values()) {
        expect(count / keys.length).toBeGreaterThan(0.2);
        expect(count / keys.length).toBeLessThan(0.47);
      }
    }
  });

  it('moves about 1/N when a member joins, and only to it; when one leaves, only its own', () => {
    const three = new HashRing(['member-a', 'member-b', 'member-c']);
    const four = new HashRing(['member-a', 'member-b', 'member-c', 'member-d']);
    const moved = keys.filter((uid) => three.memberFor(uid) !== four.memberFor(uid));
    expect(moved.every((uid) => four.memberFor(uid) === 'member-d')).toBe(true);
    expect(moved.length / keys.length).toBeGreaterThan(0.12);
    expect(moved.length / keys.length).toBeLessThan(0.38);

    const two = new HashRing(['member-a', 'member-c']);
    const left = keys.filter((uid) => three.memberFor(uid) !== two.memberFor(uid));
    expect(left.every((uid) => three.memberFor(uid) === 'member-b')).toBe(true);
  });

  it('is the same whatever order the members come in', () => {
    const a = new HashRing(['x', 'y', 'z']);
    const b = new HashRing(['z', 'x', 'y', 'x']);
    expect(keys.map((uid) => a.memberFor(uid))).toEqual(keys.map((uid) => b.memberFor(uid)));
  });

  it('has no member without members, and one member holds all', () => {
    expect(new HashRing([]).memberFor('a')).toBeUndefined();
    expect(new HashRing([]).rangesOf('x')).toEqual([]);
    expect(new HashRing(['only']).rangesOf('only')).toEqual([[0n, HASH_SPACE]]);
  });

  it('cuts the hash space into ranges, one set per member, that agree with memberOf', () => {
    const members = ['member-a', 'member-b', 'member-c'];
    const ring = new HashRing(members);
    const all = members
      .flatMap((m) => ring.rangesOf(m).map(([start, end]) => ({ m, start, end })))
      .sort((x, y) => (x.start < y.start ? -1 : 1));
    // Disjoint and covering [0, 2^64).
    expect(all[0].start).toBe(0n);
    expect(all[all.length - 1].end).toBe(HASH_SPACE);
    for (let i = 1; i < all.length; i++) expect(all[i].start).toBe(all[i - 1].end);
    // Each range's ends, and the keys, belong to the member whose range holds them.
    for (const { m, start, end } of all) {
      expect(ring.memberOf(start)).toBe(m);
      expect(ring.memberOf(end - 1n)).toBe(m);
    }
    for (const uid of keys.slice(0, 500)) {
      const h = placementHash(uid);
      const holder = all.find(({ start, end }) => start <= h && h < end)!;
      expect(holder.m).toBe(ring.memberFor(uid));
    }
  });
});

describe('shardSelector', () => {
  it('writes the ranges as the API server parses them: 16 hex digits, 2^64 as 17', () => {
    expect(hexBound(0n)).toBe('0x0000000000000000');
    expect(hexBound(HASH_SPACE)).toBe('0x10000000000000000');
    expect(
      shardSelector([
        [0n, 0x10n],
        [0x20n, HASH_SPACE],
      ]),
    ).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000010') || " +
        "shardRange(object.metadata.uid, '0x0000000000000020', '0x10000000000000000')",
    );
    expect(shardSelector([])).toBeUndefined();
  });
});

describe('intersectRanges', () => {
  it('keeps what both shares hold', () => {
    expect(
      intersectRanges(
        [
          [0n, 10n],
          [20n, 30n],
        ],
        [
          [5n, 25n],
          [28n, 40n],
        ],
      ),
    ).toEqual([
      [5n, 10n],
      [20n, 25n],
      [28n, 30n],
    ]);
    expect(intersectRanges([[0n, 10n]], [[10n, 20n]])).toEqual([]);
    expect(intersectRanges([], [[0n, 5n]])).toEqual([]);
  });

  it("gives a member of a ring what it held in the old ring and keeps in the new, and no other member's", () => {
    const before = new HashRing(['a', 'b', 'c']);
    const after = new HashRing(['a', 'b', 'c', 'd']);
    const kept = intersectRanges(before.rangesOf('a'), after.rangesOf('a'));
    for (let i = 0; i < 2000; i++) {
      const hash = (HASH_SPACE / 2000n) * BigInt(i) + 7n;
      expect(inRanges(kept, hash)).toBe(before.memberOf(hash) === 'a' && after.memberOf(hash) === 'a');
    }
  });
});

describe('buckets', () => {
  it("name the top 12 bits of a resource's hash, and a member's buckets are those its ranges touch", () => {
    const ring = new HashRing(['a', 'b', 'c']);
    const ids = uids(3000);
    for (const member of ['a', 'b', 'c']) {
      const buckets = new Set(bucketsOf(ring.rangesOf(member)));
      // Every resource of its share is in one of its buckets.
      for (const uid of ids)
        if (ring.memberFor(uid) === member) expect(buckets.has(bucketOf(uid))).toBe(true);
      // Its share of the 4096, plus the ones cut by the two ends of a range.
      const ranges = ring.rangesOf(member);
      const share = Number(ranges.reduce((n, [s, e]) => n + (e - s), 0n) >> 52n);
      expect(buckets.size).toBeGreaterThanOrEqual(share);
      expect(buckets.size).toBeLessThanOrEqual(share + 2 * ranges.length);
    }
    expect(bucketOf(ids[0])).toMatch(/^[0-9a-f]{3}$/);
    expect(bucketsOf([[0n, HASH_SPACE]])).toHaveLength(4096);
    expect(bucketsOf([])).toEqual([]);
  });
});

describe('fnv1a64 in 32-bit halves', () => {
  it('equals the BigInt definition for uids, names and any UTF-8', () => {
    const random = seededRandom(11);
    const samples = [
      '',
      'a',
      ...uids(500),
      ...Array.from({ length: 200 }, () =>
        String.fromCodePoint(
          ...Array.from({ length: 1 + Math.floor(random() * 40) }, () => Math.floor(random() * 0x2fff)),
        ),
      ),
    ];
    for (const s of samples) expect(fnv1a64(s)).toBe(fnv1a64Reference(s));
  });
});
