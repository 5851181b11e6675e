/**
 * The seed article's walkthrough of NodePool (cluster-scoped: it labels and taints nodes), as a user checks
 * it with kubectl, against a real API server with the real controller running as a separate process.
 */
import { getJson, exists, kubectl, uniqueName, waitFor } from '../support/kubectl';
import { sleep } from '../../controller/abortable';
import { RunningController, startController } from '../support/controller';
import { apply, get, type Obj } from './walkthrough-objects';

jest.setTimeout(180_000);

let controller: RunningController;

beforeAll(async () => {
  controller = await startController(['--resync', '3600']);
});
afterAll(async () => {
  if (controller) expect(await controller.stop()).toBe(0);
});

describe('NodePool (seed 001)', () => {
  const nodes = () =>
    getJson<{ items: Obj[] }>(['nodes'])
      .items.map((n) => n.metadata.name)
      .sort();
  const node = (name: string) => get(['node', name]);
  const taints = (name: string) =>
    (node(name).spec?.taints ?? []) as { key: string; value?: string; effect: string }[];

  it('labels and taints members, follows spec changes and joins, shares nodes, and cleans up on delete', async () => {
    const from = controller.logs.length;
    const [a, b] = nodes();
    const pool = uniqueName('pool');
    const other = uniqueName('pool');
    kubectl([
      'label',
      'node',
      a,
      `node-role.kubernetes.io/${pool}=`,
      'team.example.com/owner=ops',
      '--overwrite',
    ]);
    const spec = {
      labels: { [`${pool}.example.com/tier`]: 'gold', 'shared.example.com/zone': 'z1' },
      taints: [{ key: `${pool}.example.com/dedicated`, value: 'yes', effect: 'PreferNoSchedule' }],
      handler: 'runc',
    };
    apply({ apiVersion: 'nodes.lailin.xyz/v1', kind: 'NodePool', metadata: { name: pool }, spec });
    await waitFor(() => node(a).metadata.labels?.[`${pool}.example.com/tier`] === 'gold', {
      what: 'the member to get the label',
    });
    await waitFor(() => taints(a).some((t) => t.key === `${pool}.example.com/dedicated`), {
      what: 'the member to get the taint',
    });
    expect(node(b).metadata.labels?.[`${pool}.example.com/tier`]).toBeUndefined();
    const rc = get(['runtimeclass', `node-pool-${pool}`]) as Obj & {
      handler: string;
      scheduling: { nodeSelector: object; tolerations: object[] };
    };
    expect(rc.handler).toBe('runc');
    expect(rc.scheduling.nodeSelector).toEqual(spec.labels);
    expect(rc.scheduling.tolerations).toEqual([{ ...spec.taints[0], operator: 'Equal' }]);
    await waitFor(() => get(['nodepool', pool]).status?.nodeCount === 1, { what: 'status.nodeCount 1' });

    // Change: a new label value, the taint dropped.
    apply({
      apiVersion: 'nodes.lailin.xyz/v1',
      kind: 'NodePool',
      metadata: { name: pool },
      spec: { ...spec, labels: { ...spec.labels, [`${pool}.example.com/tier`]: 'silver' }, taints: [] },
    });
    await waitFor(() => node(a).metadata.labels?.[`${pool}.example.com/tier`] === 'silver', {
      what: 'the new label value',
    });
    await waitFor(() => !taints(a).some((t) => t.key === `${pool}.example.com/dedicated`), {
      what: 'the dropped taint to go',
    });
    await waitFor(
      () =>
        !getJson<{ scheduling: { tolerations?: object[] } }>(['runtimeclass', `node-pool-${pool}`]).scheduling
          .tolerations,
      {
        what: 'the RuntimeClass to drop the toleration',
      },
    );
    expect(node(a).metadata.labels?.['team.example.com/owner']).toBe('ops');

    // A node that joins later; a second pool sharing a node and a label key.
    kubectl(['label', 'node', b, `node-role.kubernetes.io/${pool}=`, `node-role.kubernetes.io/${other}=`]);
    apply({
      apiVersion: 'nodes.lailin.xyz/v1',
      kind: 'NodePool',
      metadata: { name: other },
      spec: { labels: { 'shared.example.com/zone': 'z1', [`${other}.example.com/x`]: '1' } },
    });
    await waitFor(() => node(b).metadata.labels?.[`${pool}.example.com/tier`] === 'silver', {
      what: 'the joining node to be updated',
    });
    await waitFor(() => node(b).metadata.labels?.[`${other}.example.com/x`] === '1', {
      what: 'the second pool on the shared node',
    });

    kubectl(['delete', 'nodepool', pool, '--wait=true', '--timeout=60s']);
    await waitFor(() => !exists(['nodepool', pool]), { what: 'the pool to be deleted (finalizer released)' });
    for (const n of [a, b]) {
      expect(node(n).metadata.labels?.[`${pool}.example.com/tier`]).toBeUndefined();
    }
    expect(node(a).metadata.labels?.['team.example.com/owner']).toBe('ops');
    // The other pool still claims the shared key on b.
    expect(node(b).metadata.labels?.['shared.example.com/zone']).toBe('z1');
    expect(node(b).metadata.labels?.[`${other}.example.com/x`]).toBe('1');
    await waitFor(() => !exists(['runtimeclass', `node-pool-${pool}`]), {
      what: 'the RuntimeClass to be collected',
    });

    kubectl(['delete', 'nodepool', other, '--wait=true', '--timeout=60s']);
    expect(node(b).metadata.labels?.['shared.example.com/zone']).toBeUndefined();
    // All without an error: a patch refused because the cache had not seen a node's last change (its
    // kubelet's, another pool's) is planned again with the node's event; nothing is written to a pool
    // once it is gone (the events of the nodes it patched last race its own deletion).
    await sleep(1_000);
    expect(
      controller.logs
        .slice(from)
        .filter((l) => l.includes('"level":"error"') && l.includes('"kind":"NodePool"')),
    ).toEqual([]);
    kubectl(['label', 'node', a, `node-role.kubernetes.io/${pool}-`, 'team.example.com/owner-']);
    kubectl(['label', 'node', b, `node-role.kubernetes.io/${pool}-`, `node-role.kubernetes.io/${other}-`]);
  });
});
