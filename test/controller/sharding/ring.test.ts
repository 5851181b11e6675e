/**
 * The hash ring: FNV-1a 64 as Go (and so the API server) computes it, shares near 1/N, about 1/N moved
 * when a member joins or leaves, and ranges that cut the hash space exactly as memberOf does. That the API
 * server's shard ranges agree with it is test/controller/sharding/ring.cluster.test.ts.
 */
import {
  HASH_SPACE,
  HashRing,
  fnv1a64,
  hexBound,
  placementHash,
  shardSelector,
} from '../../../controller/sharding/ring';
import { seededRandom } from '../../../testing/schema-samples';

const namespaces = (n: number, seed = 7): string[] => {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => `ns-${i}-${Math.floor(random() * 1e9).toString(36)}`);
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
  const keys = namespaces(3000);

  it('gives each of 3 members a share near a third', () => {
    const ring = new HashRing(['member-a', 'member-b', 'member-c']);
    const counts = new Map<string, number>();
    for (const ns of keys) counts.set(ring.memberFor(ns)!, (counts.get(ring.memberFor(ns)!) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(['member-a', 'member-b', 'member-c']);
    for (const count of counts.values()) {
      expect(count / keys.length).toBeGreaterThan(0.2);
      expect(count / keys.length).toBeLessThan(0.47);
    }
  });

  it('moves about 1/N when a member joins, and only to it; when one leaves, only its own', () => {
    const three = new HashRing(['member-a', 'member-b', 'member-c']);
    const four = new HashRing(['member-a', 'member-b', 'member-c', 'member-d']);
    const moved = keys.filter((ns) => three.memberFor(ns) !== four.memberFor(ns));
    expect(moved.every((ns) => four.memberFor(ns) === 'member-d')).toBe(true);
    expect(moved.length / keys.length).toBeGreaterThan(0.12);
    expect(moved.length / keys.length).toBeLessThan(0.38);

    const two = new HashRing(['member-a', 'member-c']);
    const left = keys.filter((ns) => three.memberFor(ns) !== two.memberFor(ns));
    expect(left.every((ns) => three.memberFor(ns) === 'member-b')).toBe(true);
  });

  it('is the same whatever order the members come in', () => {
    const a = new HashRing(['x', 'y', 'z']);
    const b = new HashRing(['z', 'x', 'y', 'x']);
    expect(keys.map((ns) => a.memberFor(ns))).toEqual(keys.map((ns) => b.memberFor(ns)));
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
    for (const ns of keys.slice(0, 500)) {
      const h = placementHash(ns);
      const holder = all.find(({ start, end }) => start <= h && h < end)!;
      expect(holder.m).toBe(ring.memberFor(ns));
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
      "shardRange(object.metadata.namespace, '0x0000000000000000', '0x0000000000000010') || " +
        "shardRange(object.metadata.namespace, '0x0000000000000020', '0x10000000000000000')",
    );
    expect(shardSelector([])).toBeUndefined();
  });
});
