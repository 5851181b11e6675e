/**
 * `npm run bench:sharder-pass [-- --count N]`: what one pass of the labels read path's ring leader costs
 * (controller/sharding/assign's plan over N resources of three members, default 10,000), placing each uid
 * anew (the leader before it kept placements) and with its Placements kept from pass to pass, alternated
 * in the same run. The leader makes such a pass each second and after each burst of events.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { memcachedKind } from '../constructs/memcached';
import { Placements, labelsOf, plan, type Placed } from '../controller/sharding/assign';
import { RING_LABEL, type MemberLease } from '../controller/sharding/members';

const RING = 'bench';
const PASSES = 50;

function main(): void {
  const { values } = parseArgs({ options: { count: { type: 'string' } } });
  const count = Number(values.count ?? 10_000);
  const now = Date.now();
  const leases: MemberLease[] = ['a', 'b', 'c'].map((name) => ({
    metadata: { name, labels: { [RING_LABEL]: RING } },
    spec: {
      holderIdentity: name,
      leaseDurationSeconds: 10,
      acquireTime: new Date(now).toISOString(),
      renewTime: new Date(now).toISOString(),
    },
  }));
  // Every resource already on its member: the steady pass, which decides nothing.
  const objects: Placed[] = Array.from({ length: count }, (_, i) => ({
    type: memcachedKind,
    namespace: 'bench',
    name: `m${i}`,
    uid: randomUUID(),
  }));
  const labelled = plan(RING, leases, objects, now).moves.map((move) => ({
    ...move.object,
    labels: Object.fromEntries(
      Object.entries(labelsOf(RING, move)).filter((e): e is [string, string] => e[1] !== null),
    ),
  }));
  const placements = new Placements();
  const time = (what: () => unknown): number => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < PASSES; i++) what();
    return Number(process.hrtime.bigint() - start) / 1e6 / PASSES;
  };
  const rows: string[] = [];
  for (let round = 1; round <= 3; round++) {
    const anew = time(() => plan(RING, leases, labelled, now));
    const kept = time(() => plan(RING, leases, labelled, now, undefined, placements));
    rows.push(`| ${round} | ${anew.toFixed(2)} ms | ${kept.toFixed(2)} ms | ${(anew / kept).toFixed(1)}x |`);
  }
  process.stdout.write(
    [
      `one pass of the ring leader over ${count.toLocaleString('en')} resources, 3 members (mean of ${PASSES})`,
      '',
      '| round | each uid placed anew | placements kept | faster |',
      '|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

main();
