/**
 * KindReads: which types each kind's own code (status, ready, sync) reads, recorded through the view the
 * reconciler hands it; the kit's rollup of the children's readiness is not the kind's reading. The
 * manager's predicate of child updates asks it (predicates.test.ts has the predicate itself).
 */
import {
  CONFIG_MAP,
  DEPLOYMENT,
  NODE,
  POD,
  SERVICE,
  balancerKind,
  defineKind,
  memcachedKind,
  memcachedSchema,
  Memcached,
  nodePoolKind,
} from '../../../constructs';
import { KindReads } from '../../../controller/reconcile/kind-reads';
import { InMemoryCluster } from '../../../testing';
import { sample } from '../../fixtures/resources';
import { NS, kinds } from './reconciler-helpers';

const ownerOf = (kind: { apiVersion: string; kind: string }) => ({
  apiVersion: kind.apiVersion,
  kind: kind.kind,
});

describe('what each kind reads, after a reconcile', () => {
  it('records the types a kind’s status and sync read, not those the kit’s readiness rollup reads', async () => {
    const cluster = new InMemoryCluster(kinds);
    const reconciler = cluster.reconciler();
    cluster.putResource(memcachedKind, 'mc', { size: 1 }, NS);
    cluster.putResource(balancerKind, 'lb', sample(balancerKind).spec, NS);
    cluster.put(NODE, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: {} } });
    cluster.putResource(nodePoolKind, 'pool', sample(nodePoolKind).spec);
    // Twice each: the first applies the children (or adds NodePool's finalizer), the second, with the
    // children in the caches, computes the status (or syncs).
    for (const [kind, name, ns] of [
      [memcachedKind, 'mc', NS],
      [balancerKind, 'lb', NS],
      [nodePoolKind, 'pool', undefined],
    ] as const) {
      await reconciler.reconcile(kind, ns, name);
      await reconciler.reconcile(kind, ns, name);
    }
    const reads = reconciler.kindReads;
    // Memcached's status lists its pods; its Deployment and Service only the kit reads (their readiness).
    expect(reads.reads(ownerOf(memcachedKind), POD)).toBe(true);
    expect(reads.reads(ownerOf(memcachedKind), DEPLOYMENT)).toBe(false);
    expect(reads.reads(ownerOf(memcachedKind), SERVICE)).toBe(false);
    // Balancer's status counts its backend Services and its proxy's pods.
    expect(reads.reads(ownerOf(balancerKind), SERVICE)).toBe(true);
    expect(reads.reads(ownerOf(balancerKind), CONFIG_MAP)).toBe(false);
    // NodePool's sync reads the nodes.
    expect(reads.reads(ownerOf(nodePoolKind), NODE)).toBe(true);
  });

  it('records what a kind’s own ready rule reads, and what its status reads of a child', () => {
    const readsItsDeployment = defineKind({
      apiVersion: 'example.com/v1',
      kind: 'Cache',
      plural: 'caches',
      schema: memcachedSchema,
      construct: Memcached,
      children: [DEPLOYMENT, SERVICE],
      status: ({ resource, view }) => {
        const live = view.get(DEPLOYMENT, resource.metadata.namespace, resource.metadata.name);
        return { replicas: (live?.status as { replicas?: number } | undefined)?.replicas ?? 0 };
      },
      ready: (_context, children) => children,
    });
    const cluster = new InMemoryCluster([readsItsDeployment]);
    const kindReads = new KindReads(cluster);
    const view = kindReads.viewOf(readsItsDeployment);
    expect(kindReads.viewOf(readsItsDeployment)).toBe(view); // made once per kind, not per reconcile
    const resource = {
      apiVersion: 'example.com/v1',
      kind: 'Cache',
      metadata: { name: 'c', namespace: NS },
      spec: { size: 1 },
    };
    const children = [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'c', namespace: NS } }];
    // The rollup reads the Service: not recorded.
    readsItsDeployment.ready({ resource, children, view });
    expect(kindReads.reads(ownerOf(readsItsDeployment), SERVICE)).toBe(false);
    readsItsDeployment.status({ resource, children, view });
    expect(kindReads.reads(ownerOf(readsItsDeployment), DEPLOYMENT)).toBe(true);
    // One kind's reading is its own.
    expect(kindReads.reads(ownerOf(memcachedKind), DEPLOYMENT)).toBe(false);
  });
});
