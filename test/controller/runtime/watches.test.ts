/**
 * The watch table: what each kind watches, read as data. A kind with a write-only child and an extra watch
 * shows every kind of row.
 */
import { LABEL_MANAGED_BY, LABEL_PART_OF, MANAGER } from '../../../constructs/kit';
import { mysqlClusterKind } from '../../../constructs/mysql-cluster';
import { nodePoolKind } from '../../../constructs/node-pool';
import { parseLabelSelector } from '../../../controller/runtime/label-selector';
import { anyUpdate, metadataOrSpecChanged } from '../../../controller/runtime/predicates';
import { nameOnly, watchTable, type Watch } from '../../../controller/runtime/watches';

const row = (w: Watch) => `${w.kind.kind} ${w.cache} ${w.type.kind} -> ${w.enqueue.to}`;

describe('watchTable', () => {
  const table = watchTable([mysqlClusterKind, nodePoolKind]);

  it('lists the resources first, then children and their existence caches, then the extra watches', () => {
    expect(table.map(row)).toEqual([
      'Cluster objects Cluster -> resource',
      'NodePool objects NodePool -> resource',
      // The write-only Secret of the MySQL Cluster is never read: no row.
      'Cluster objects Service -> owner',
      'Cluster existence Service -> blocked',
      'Cluster objects StatefulSet -> owner',
      'Cluster existence StatefulSet -> blocked',
      'NodePool objects RuntimeClass -> owner',
      'NodePool existence RuntimeClass -> blocked',
      'NodePool objects Node -> named',
    ]);
  });

  it('reconciles a resource on its own metadata or spec, not on the status the controller writes', () => {
    const own = table.find((w) => w.type === mysqlClusterKind)!;
    expect(own).toMatchObject({ onAdd: true, worthIt: metadataOrSpecChanged });
    expect(own.labelSelector).toBeUndefined();
  });

  it('caches only the children we manage, indexed by ApplySet, and names only of the objects that are not ours', () => {
    const [children, existence] = table.filter(
      (w) => w.kind === mysqlClusterKind && w.type.kind === 'Service',
    );
    expect(children).toMatchObject({
      labelSelector: `${LABEL_MANAGED_BY}=${MANAGER}`,
      indexLabels: [LABEL_PART_OF],
      onAdd: true,
    });
    // Without what the kinds read (KindReads), every update of a child wakes its owner.
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', resourceVersion: '1' } };
    const lbAddress = { ...service, status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } };
    expect(children.worthIt(service, lbAddress)).toBe(true);
    expect(existence).toMatchObject({
      labelSelector: `${LABEL_MANAGED_BY}!=${MANAGER}`,
      metadataOnly: true,
      transform: nameOnly,
      // A new object in nobody's way is no news; its going, or a mark for adoption, is.
      onAdd: false,
    });
  });

  it('narrows the resources and their children to a shard with a selector, not what is in their way', () => {
    const selector = parseLabelSelector('!sharding.fluxcd.io/key');
    const sharded = watchTable([mysqlClusterKind, nodePoolKind], selector);
    const selectorOf = (kind: string, cache: Watch['cache'], type: string) =>
      sharded.find((w) => w.kind.kind === kind && w.cache === cache && w.type.kind === type)?.labelSelector;
    expect(selectorOf('Cluster', 'objects', 'Cluster')).toBe('!sharding.fluxcd.io/key');
    expect(selectorOf('Cluster', 'objects', 'Service')).toBe(
      `${LABEL_MANAGED_BY}=${MANAGER},!sharding.fluxcd.io/key`,
    );
    expect(selectorOf('Cluster', 'existence', 'Service')).toBe(`${LABEL_MANAGED_BY}!=${MANAGER}`);
    // NodePool's nodes are the cluster's, whoever's shard the pool is in.
    expect(selectorOf('NodePool', 'objects', 'Node')).toBe(nodePoolKind.watches[0].labelSelector);
    expect(sharded.map(row)).toEqual(table.map(row));
  });

  it("takes a kind's extra watch as the kind wrote it, enqueueing the resources it names", () => {
    const nodes = table.find((w) => w.enqueue.to === 'named')!;
    const watch = nodePoolKind.watches[0];
    expect(nodes).toMatchObject({ kind: nodePoolKind, type: watch.type, worthIt: anyUpdate });
    const member = { metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/gpu': '' } } };
    if (nodes.enqueue.to !== 'named') throw new Error('not a named enqueue');
    expect(nodes.enqueue.owners(member)).toEqual([{ name: 'gpu' }]);
  });
});

describe('watchTable of a member on the ranges read path', () => {
  const table = watchTable([mysqlClusterKind, nodePoolKind], undefined, true);
  const by = (w: Watch) => `${w.kind.kind} ${w.cache} ${w.type.kind}: ${w.shardBy ?? 'all'}`;

  it('holds its share of the resources by uid and of their children by bucket; the rest whole', () => {
    expect(table.map(by)).toEqual([
      // Namespaced or cluster-scoped alike: the API server hashes the uid.
      'Cluster objects Cluster: uid',
      'NodePool objects NodePool: uid',
      'Cluster objects Service: bucket',
      // The objects in a child's way are the cluster's, whoever holds the resource.
      'Cluster existence Service: all',
      'Cluster objects StatefulSet: bucket',
      'Cluster existence StatefulSet: all',
      'NodePool objects RuntimeClass: bucket',
      'NodePool existence RuntimeClass: all',
      // A kind's extra watch reads every node.
      'NodePool objects Node: all',
    ]);
  });

  it('is the whole table without sharding', () => {
    expect(watchTable([mysqlClusterKind, nodePoolKind]).some((w) => w.shardBy !== undefined)).toBe(false);
  });
});
