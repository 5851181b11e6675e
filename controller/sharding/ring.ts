/**
 * The hash ring that assigns resources to the members of a sharded controller: consistent hashing with
 * virtual nodes, so that a member joining or leaving moves about 1/N of the resources, in the hash space
 * of the API server's sharded list and watch (KEP-5866: FNV-1a 64 of `object.metadata.uid` or
 * `.namespace`, ranges `[start, end)` in 16 hex digits), so that a member can ask the API server for
 * exactly its share of the resources: `shardRange(object.metadata.uid, '0x…', '0x…') || …`.
 *
 * A resource is placed by its uid: every resource on its own, so that shares are even however the
 * resources are spread over namespaces (by namespace, 30 namespaces are 30 lumps, one namespace one lump),
 * cluster-scoped ones too. Its children follow it by label, which no hash of theirs could give: its
 * member's (the labels read path) or its bucket (the ranges read path, bucketOf). Pure: the members come
 * from their Leases (./members).
 */

import { hash } from 'node:crypto';

/** 2^64: the exclusive end of the hash space. */
export const HASH_SPACE = 1n << 64n;
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = HASH_SPACE - 1n;

/**
 * FNV-1a, 64 bits, of the UTF-8 bytes of `value`: Go's hash/fnv New64a, as the API server hashes. In two
 * 32-bit halves: the prime is 2^40 + 0x1b3, so a product is the low half times 0x1b3 plus the low half
 * shifted into the high one; BigInt arithmetic per byte cost the ring's leader most of its CPU.
 */
export function fnv1a64(value: string): bigint {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const byte of Buffer.from(value, 'utf8')) {
    lo ^= byte;
    const low = (lo >>> 0) * 0x1b3;
    const carry = Math.floor(low / 0x100000000);
    hi = (hi * 0x1b3 + ((lo << 8) >>> 0) + carry) % 0x100000000;
    lo = low % 0x100000000;
  }
  return (BigInt(hi) << 32n) | BigInt(lo >>> 0);
}

/** The same, by BigInt arithmetic, as the definition reads: what the tests check fnv1a64 against. */
export function fnv1a64Reference(value: string): bigint {
  let hash = FNV_OFFSET;
  for (const byte of Buffer.from(value, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash;
}

/** The field the API server hashes for a sharded list or watch, and the ring hashes to place a resource. */
export const SHARD_FIELD = 'object.metadata.uid';

/** The hash that places a resource: its uid's. */
export const placementHash = (uid: string): bigint => fnv1a64(uid);

/** A member's share of the hash space: ranges `[start, end)`, in order, none empty, none adjacent. */
export type HashRanges = readonly (readonly [start: bigint, end: bigint])[];

/** Virtual nodes per member: with 3 members, shares within about ±15 % of a third. */
export const TOKENS_PER_MEMBER = 64;

/**
 * Where a member's token sits: the first 64 bits of a SHA-256. Not FNV: the tokens' names differ in their
 * last characters only (`member#0`, `member#1`, ...), and FNV-1a's top bits hardly see the last bytes, so
 * a member's tokens would bunch together (one member of three measured holding 64 % of the resources).
 * The one-shot `hash`: a third of `createHash`'s time for a short name, and every ring hashes 64 per member.
 */
const tokenAt = (member: string, i: number): bigint =>
  hash('sha256', `${member}#${i}`, 'buffer').readBigUInt64BE(0);

interface Token {
  readonly at: bigint;
  readonly member: string;
}

export class HashRing {
  /** Every member's tokens, by position (ties broken by member name, so every replica agrees). */
  private readonly tokens: readonly Token[];

  /** `members`: their names, in any order; each once. */
  constructor(
    readonly members: readonly string[],
    tokensPerMember = TOKENS_PER_MEMBER,
  ) {
    const tokens: Token[] = [];
    for (const member of new Set(members))
      for (let i = 0; i < tokensPerMember; i++) tokens.push({ at: tokenAt(member, i), member });
    this.tokens = tokens.sort((a, b) =>
      a.at === b.at ? (a.member < b.member ? -1 : 1) : a.at < b.at ? -1 : 1,
    );
  }

  /** The member a hash belongs to: the first token at or after it, around the ring; none without members. */
  memberOf(hash: bigint): string | undefined {
    const { tokens } = this;
    if (tokens.length === 0) return undefined;
    let lo = 0;
    let hi = tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid].at < hash) lo = mid + 1;
      else hi = mid;
    }
    return tokens[lo === tokens.length ? 0 : lo].member;
  }

  /** The member the resource of `uid` belongs to. */
  memberFor(uid: string): string | undefined {
    return this.memberOf(placementHash(uid));
  }

  /**
   * A member's share: a token at t owns the hashes after the previous token up to t, that is
   * `[previous + 1, t + 1)`; the first token also owns what follows the last one, around the end.
   */
  rangesOf(member: string): HashRanges {
    const { tokens } = this;
    const ranges: [bigint, bigint][] = [];
    const add = (start: bigint, end: bigint) => {
      if (start >= end) return;
      const last = ranges[ranges.length - 1];
      if (last && last[1] === start) last[1] = end;
      else ranges.push([start, end]);
    };
    // In token order, so the ranges come in order and adjacent ones merge as they come.
    for (let i = 0; i < tokens.length; i++)
      if (tokens[i].member === member) add(i === 0 ? 0n : tokens[i - 1].at + 1n, tokens[i].at + 1n);
    // Past the last token, around to the first: the first token's member's.
    if (tokens.length > 0 && tokens[0].member === member) add(tokens[tokens.length - 1].at + 1n, HASH_SPACE);
    return ranges;
  }
}

/** The hashes both `a` and `b` hold: what a member keeps of its share while its new one is not settled. */
export function intersectRanges(a: HashRanges, b: HashRanges): HashRanges {
  const out: [bigint, bigint][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = a[i][0] > b[j][0] ? a[i][0] : b[j][0];
    const end = a[i][1] < b[j][1] ? a[i][1] : b[j][1];
    if (start < end) out.push([start, end]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

/** Whether `hash` is in `ranges`. */
export const inRanges = (ranges: HashRanges, hash: bigint): boolean =>
  ranges.some(([start, end]) => start <= hash && hash < end);

/** Whether two shares are the same. */
export const sameRanges = (a: HashRanges, b: HashRanges): boolean =>
  a.length === b.length && a.every(([s, e], i) => s === b[i][0] && e === b[i][1]);

/**
 * The children of a resource on the ranges read path carry its bucket: the top 12 bits of its hash, 3 hex
 * digits. No hash of a child's own gives its resource's member, so a member lists and watches children by
 * the buckets its ranges touch (bucketsOf): a label selector of about 4096/N values, and the children of the
 * about 3 % of buckets a range boundary cuts are cached by the two members that share the bucket (events of
 * a child whose resource another member holds wake nothing here).
 */
export const BUCKET_LABEL = 'sharding.reconstruct.dev/bucket';
const BUCKET_SHIFT = 52n;

/** The bucket of a resource of `uid`. */
export const bucketOf = (uid: string): string =>
  (placementHash(uid) >> BUCKET_SHIFT).toString(16).padStart(3, '0');

/** The buckets `ranges` touch, in order. */
export function bucketsOf(ranges: HashRanges): string[] {
  const out: string[] = [];
  let next = 0n;
  for (const [start, end] of ranges) {
    let b = start >> BUCKET_SHIFT;
    if (b < next) b = next;
    for (; b <= (end - 1n) >> BUCKET_SHIFT; b++) out.push(b.toString(16).padStart(3, '0'));
    next = b;
  }
  return out;
}

/** A hash as the API server writes range bounds: `0x` and 16 hex digits (2^64: 17). */
export const hexBound = (value: bigint): string => `0x${value.toString(16).padStart(16, '0')}`;

/**
 * The `shardSelector` of a list or watch that returns what `ranges` hold; undefined for no ranges (a
 * member with no share asks for nothing).
 */
export function shardSelector(ranges: HashRanges, field = SHARD_FIELD): string | undefined {
  if (ranges.length === 0) return undefined;
  return ranges
    .map(([start, end]) => `shardRange(${field}, '${hexBound(start)}', '${hexBound(end)}')`)
    .join(' || ');
}
