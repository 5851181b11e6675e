import { planNode, recordAnnotation, type Membership } from '../../constructs/node-pool/nodes';
import type { KubeObject } from '../../constructs/kit';

function node(
  labels: Record<string, string>,
  taints: object[] = [],
  annotations: Record<string, string> = {},
): KubeObject {
  return { metadata: { name: 'n1', resourceVersion: '7', labels, annotations }, spec: { taints } };
}

/** Applies a JSON merge patch as the API server would, for these tests. */
function apply(obj: KubeObject, patch: object | undefined): KubeObject {
  if (!patch) return obj;
  const merge = (target: unknown, p: unknown): unknown => {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) return p;
    const out: Record<string, unknown> = { ...((target as Record<string, unknown>) ?? {}) };
    for (const [k, v] of Object.entries(p)) {
      if (v === null) delete out[k];
      else out[k] = merge(out[k], v);
    }
    return out;
  };
  return merge(obj, patch) as KubeObject;
}

const pool: Membership = {
  labels: { 'node-pool.lailin.xyz/master': '8' },
  taints: [{ key: 'node-pool.lailin.xyz', value: 'master', effect: 'NoSchedule' }],
};
const member = { 'node-role.kubernetes.io/master': '', 'team.example.com/owner': 'ops' };

describe('planNode', () => {
  it('sets the pool labels and taints on a member, keeps the others, and records what it set', () => {
    const before = node(member, [{ key: 'other', value: 'x', effect: 'NoExecute' }]);
    const after = apply(before, planNode(before, 'master', pool));
    expect(after.metadata.labels).toEqual({ ...member, 'node-pool.lailin.xyz/master': '8' });
    expect((after.spec as { taints: object[] }).taints).toEqual([
      { key: 'other', value: 'x', effect: 'NoExecute' },
      { key: 'node-pool.lailin.xyz', value: 'master', effect: 'NoSchedule' },
    ]);
    expect(JSON.parse(after.metadata.annotations?.[recordAnnotation('master')] ?? '')).toEqual(pool);
  });

  it('carries the resourceVersion, so a concurrent change makes the patch fail instead of being lost', () => {
    expect(planNode(node(member), 'master', pool)).toMatchObject({ metadata: { resourceVersion: '7' } });
  });

  it('plans nothing for a node that is already there', () => {
    const done = apply(node(member), planNode(node(member), 'master', pool));
    expect(planNode(done, 'master', pool)).toBeUndefined();
  });

  it('removes exactly what the pool set when the spec drops it or the node leaves', () => {
    const done = apply(node(member), planNode(node(member), 'master', pool));
    const dropped = apply(done, planNode(done, 'master', { labels: {}, taints: [] }));
    expect(dropped.metadata.labels).toEqual(member);
    expect((dropped.spec as { taints: object[] }).taints).toEqual([]);
    expect(dropped.metadata.annotations?.[recordAnnotation('master')]).toBeUndefined();
    const left = apply(done, planNode(done, 'master', undefined));
    expect(left.metadata.labels).toEqual(member);
  });

  it('never removes a label it did not set, even under a key the pool once wanted', () => {
    const before = node({ ...member, 'node-pool.lailin.xyz/master': 'hand-made' });
    // The pool has no record on this node, so the label is someone else's: a spec without it leaves it.
    expect(planNode(before, 'master', { labels: {}, taints: [] })).toBeUndefined();
  });

  it('lets two pools share a node, and keeps a key the other pool also claims', () => {
    const shared = { labels: { 'shared.example.com/zone': 'a' }, taints: [] };
    let n = node({ 'node-role.kubernetes.io/a': '', 'node-role.kubernetes.io/b': '' });
    n = apply(n, planNode(n, 'a', shared));
    n = apply(n, planNode(n, 'b', { labels: { ...shared.labels, 'b.example.com/x': '1' }, taints: [] }));
    n = apply(n, planNode(n, 'a', undefined));
    expect(n.metadata.labels).toMatchObject({ 'shared.example.com/zone': 'a', 'b.example.com/x': '1' });
    n = apply(n, planNode(n, 'b', undefined));
    expect(n.metadata.labels).toEqual({ 'node-role.kubernetes.io/a': '', 'node-role.kubernetes.io/b': '' });
  });

  it('updates the value of a taint it owns without duplicating it', () => {
    const done = apply(node(member), planNode(node(member), 'master', pool));
    const changed = { ...pool, taints: [{ ...pool.taints[0], value: 'other' }] };
    const after = apply(done, planNode(done, 'master', changed));
    expect((after.spec as { taints: object[] }).taints).toEqual([
      { key: 'node-pool.lailin.xyz', value: 'other', effect: 'NoSchedule' },
    ]);
  });
});
