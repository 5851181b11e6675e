/**
 * A member asked to let go of a resource (the ring leader's drain label) removes both of the ring's labels
 * from it and writes nothing else: no child, no status; without the drain it reconciles as ever, and its
 * children carry its shard label.
 */
import { memcachedKind } from '../../../constructs/memcached';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { nullLogger } from '../../../controller/log';
import { drainLabel, shardLabel } from '../../../controller/sharding/members';
import { InMemoryCluster } from '../../../testing';

const SHARD = shardLabel('r');
const DRAIN = drainLabel('r');

function member(cluster: InMemoryCluster): Reconciler {
  return new Reconciler({
    view: cluster,
    writer: cluster.writer(),
    events: { emit: () => {} },
    log: nullLogger,
    copyLabels: [SHARD],
    shard: { label: SHARD, drain: DRAIN },
  });
}

function labelled(cluster: InMemoryCluster, labels: Record<string, string>) {
  const resource = cluster.putResource(memcachedKind, 'cache', { size: 1 }, 'ns');
  cluster.patch(memcachedKind, 'ns', 'cache', { metadata: { labels } });
  cluster.takeWrites();
  return resource;
}

describe('a member of a ring', () => {
  it('lets go of a drained resource: both labels removed, nothing else written', async () => {
    const cluster = new InMemoryCluster([memcachedKind]);
    labelled(cluster, { [SHARD]: 'member-a', [DRAIN]: 'true', team: 'x' });
    await member(cluster).reconcile(memcachedKind, 'ns', 'cache');
    expect(cluster.takeWrites().map((w) => `${w.verb} ${w.kind}/${w.name}`)).toEqual([
      'patch Memcached/cache',
    ]);
    expect(cluster.any(memcachedKind, 'ns', 'cache')?.metadata.labels).toEqual({ team: 'x' });
  });

  it('reconciles a resource of its own, its children labelled with its member', async () => {
    const cluster = new InMemoryCluster([memcachedKind]);
    labelled(cluster, { [SHARD]: 'member-a' });
    await member(cluster).reconcile(memcachedKind, 'ns', 'cache');
    const applied = cluster.takeWrites().filter((w) => w.verb === 'apply');
    expect(applied.length).toBeGreaterThan(0);
    for (const w of applied)
      expect((w.body as { metadata: { labels: Record<string, string> } }).metadata.labels[SHARD]).toBe(
        'member-a',
      );
  });
});
