/**
 * A member asked to let go of a resource (the ring leader's drain label) removes both of the ring's labels
 * from it and writes nothing else: no child, no status; without the drain it reconciles as ever, and its
 * children carry its shard label.
 */
import { memcachedKind } from '../../../constructs/memcached';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { nullLogger } from '../../../controller/log';
import { drainLabel, shardLabel } from '../../../controller/sharding/members';
import { SECRET } from '../../../constructs';
import { ExternalRunner } from '../../../controller/external/runner';
import { FakeProvider, InMemoryCluster } from '../../../testing';
import { dnsRecordKind, type ProviderRecord } from '../../fixtures/kinds/dns-record';

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

describe('a member whose resource has external work', () => {
  it('lets go of it only once its handler has settled, and reconciles it as ever meanwhile when not drained', async () => {
    const provider = new FakeProvider<ProviderRecord>();
    const kind = dnsRecordKind(provider);
    const cluster = new InMemoryCluster([kind]);
    cluster.put(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dns-provider', namespace: 'ns' },
      data: { token: Buffer.from('t').toString('base64') },
    });
    cluster.putResource(kind, 'www', { zone: 'example.com', name: 'www', values: ['192.0.2.1'] }, 'ns');
    cluster.patch(kind, 'ns', 'www', { metadata: { labels: { [SHARD]: 'member-a' } } });
    const external = new ExternalRunner({ reader: cluster.writer(), enqueue: () => undefined });
    const reconciler = new Reconciler({
      view: cluster,
      writer: cluster.writer(),
      events: { emit: () => {} },
      log: nullLogger,
      shard: { label: SHARD, drain: DRAIN },
      external,
    });
    provider.latencyMs = 200;
    await reconciler.reconcile(kind, 'ns', 'www'); // the finalizer
    await reconciler.reconcile(kind, 'ns', 'www'); // the observe starts
    // Not drained: a reconcile meanwhile goes through (a status write), with no second handler.
    expect(await reconciler.reconcile(kind, 'ns', 'www')).not.toEqual({ requeueAfterMs: 1_000 });
    expect(provider.calls).toHaveLength(1);
    cluster.patch(kind, 'ns', 'www', { metadata: { labels: { [DRAIN]: 'true' } } });
    expect(await reconciler.reconcile(kind, 'ns', 'www')).toEqual({ requeueAfterMs: 1_000 });
    expect(cluster.any(kind, 'ns', 'www')?.metadata.labels?.[SHARD]).toBe('member-a');
    await external.idle();
    await reconciler.reconcile(kind, 'ns', 'www');
    expect(cluster.any(kind, 'ns', 'www')?.metadata.labels?.[SHARD]).toBeUndefined();
    await external.stop(0);
  });
});
