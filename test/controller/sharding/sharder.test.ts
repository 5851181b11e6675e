/**
 * The ring's leader with an API server that will not list one of its kinds (its CRD missing): it places
 * the other kinds' resources meanwhile, and that kind's once it lists. The server is played by a client
 * that answers lists and keeps watches open and silent; the writes are the requests it records.
 */
import { memcachedKind } from '../../../constructs/memcached';
import { nodePoolKind } from '../../../constructs/node-pool';
import { ApiError } from '../../../controller/kube/errors';
import type { KubeRequest } from '../../../controller/kube/http';
import { nullLogger } from '../../../controller/log';
import { RING_LABEL, shardLabel } from '../../../controller/sharding/members';
import { Sharder } from '../../../controller/sharding/sharder';
import { answeringClient } from '../../support/answering-client';

const RING = 'r';
const now = new Date().toISOString().replace('Z', '000Z');
const list = (items: unknown[]) => ({ metadata: { resourceVersion: '1' }, items });
const lease = {
  metadata: { name: 'member-a', namespace: 'home', labels: { [RING_LABEL]: RING }, resourceVersion: '1' },
  spec: { holderIdentity: 'member-a', leaseDurationSeconds: 10, acquireTime: now, renewTime: now },
};
const placed = (name: string, namespace?: string) => ({
  metadata: { name, ...(namespace ? { namespace } : {}), uid: `uid-${name}`, resourceVersion: '1' },
});

/** The labels each PATCH wrote, by the path it wrote to. */
const labelled = (requests: KubeRequest[]) =>
  new Map(
    requests
      .filter((r) => r.method === 'PATCH')
      .map((r) => [r.path, (r.body as { metadata: { labels: Record<string, string> } }).metadata.labels]),
  );

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it("places the other kinds' resources while one kind's CRD is missing, and that kind's once it lists", async () => {
  let nodePoolsServed = false;
  const { client, requests } = answeringClient(
    (req) => {
      if (req.method === 'PATCH') return { metadata: {} };
      if (req.path.endsWith('/leases')) return list(req.query?.labelSelector ? [lease] : []);
      if (req.path.endsWith('/memcacheds')) return list([placed('cache', 'ns')]);
      if (req.path.endsWith('/nodepools')) {
        if (!nodePoolsServed) throw new ApiError(404, '404 page not found');
        return list([placed('pool')]);
      }
      throw new Error(`unexpected ${req.method} ${req.path}`);
    },
    { quietWatches: true },
  );
  const sharder = new Sharder({
    client,
    kinds: [memcachedKind, nodePoolKind],
    ring: RING,
    leaseNamespace: 'home',
    identity: 'leader',
    namespaces: [],
    log: nullLogger,
    periodMs: 20,
  });
  sharder.start();
  try {
    const memcached = '/apis/cache.example.com/v1alpha1/namespaces/ns/memcacheds/cache';
    await until(() => labelled(requests).has(memcached), 'the Memcached to be placed');
    expect(labelled(requests).get(memcached)?.[shardLabel(RING)]).toBe('member-a');

    nodePoolsServed = true;
    const pool = '/apis/nodes.lailin.xyz/v1/nodepools/pool';
    // The NodePool informer lists again after its backoff (about half a second after the first refusal).
    await until(() => labelled(requests).has(pool), 'the NodePool to be placed once its kind lists');
    expect(labelled(requests).get(pool)?.[shardLabel(RING)]).toBe('member-a');
  } finally {
    await sharder.stop();
  }
});
