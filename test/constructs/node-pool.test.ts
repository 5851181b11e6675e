import { nodePoolKind } from '../../constructs';
import { memberLabel, nodePoolMembership } from '../../constructs/node-pool/node-pool';
import { nodePool, sample, synthesize } from '../fixtures/resources';
import { RuntimeClass, find, ids, specError, toYaml } from './manifests';

const taints = [
  { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const },
  { key: 'example.com/preemptible', effect: 'PreferNoSchedule' as const },
  { key: 'dedicated', value: 'gpu', effect: 'NoExecute' as const },
];

describe('NodePool', () => {
  describe('snapshots', () => {
    it('renders the seed sample', () => {
      expect(toYaml(synthesize(sample(nodePoolKind)))).toMatchSnapshot();
    });

    it('renders an empty pool', () => {
      expect(toYaml(synthesize(nodePool('spare', {})))).toMatchSnapshot();
    });

    it('renders a kata pool with three taints', () => {
      expect(
        toYaml(
          synthesize(nodePool('gpu', { handler: 'kata', labels: { 'example.com/gpu': 'a100' }, taints })),
        ),
      ).toMatchSnapshot();
    });
  });

  it('makes one RuntimeClass node.k8s.io/v1 named node-pool-<name>', () => {
    const out = synthesize(sample(nodePoolKind));
    expect(ids(out)).toEqual(['RuntimeClass/node-pool-master']);
    expect(out[0].apiVersion).toBe('node.k8s.io/v1');
  });

  it('uses the runc handler by default and spec.handler when given', () => {
    expect(find<RuntimeClass>(synthesize(nodePool('a', {})), 'RuntimeClass', 'node-pool-a').handler).toBe(
      'runc',
    );
    const kata = synthesize(nodePool('b', { handler: 'kata' }));
    expect(find<RuntimeClass>(kata, 'RuntimeClass', 'node-pool-b').handler).toBe('kata');
  });

  it('schedules onto nodes carrying spec.labels', () => {
    const { spec } = sample(nodePoolKind);
    const runtimeClass = find<RuntimeClass>(
      synthesize(sample(nodePoolKind)),
      'RuntimeClass',
      'node-pool-master',
    );
    expect(runtimeClass.scheduling?.nodeSelector).toEqual(spec.labels);
  });

  it('tolerates the taints in order, with operator Equal', () => {
    const runtimeClass = find<RuntimeClass>(
      synthesize(nodePool('gpu', { taints })),
      'RuntimeClass',
      'node-pool-gpu',
    );
    expect(runtimeClass.scheduling?.tolerations).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      { key: 'example.com/preemptible', operator: 'Equal', value: '', effect: 'PreferNoSchedule' },
      { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoExecute' },
    ]);
  });

  it('neither selects nor tolerates anything for a pool without labels or taints', () => {
    const runtimeClass = find<RuntimeClass>(
      synthesize(nodePool('spare', {})),
      'RuntimeClass',
      'node-pool-spare',
    );
    expect(runtimeClass.scheduling?.nodeSelector ?? {}).toEqual({});
    expect(runtimeClass.scheduling?.tolerations ?? []).toEqual([]);
  });

  it('is cluster-scoped: no namespace even when the resource names one', () => {
    const pool = { ...nodePool('a', {}), metadata: { name: 'a', namespace: 'default' } };
    expect(synthesize(pool)[0].metadata.namespace).toBeUndefined();
  });

  describe('nodePoolMembership', () => {
    it('returns the labels and taints to put on member nodes', () => {
      expect(nodePoolMembership(sample(nodePoolKind).spec)).toEqual({
        labels: { 'node-pool.lailin.xyz/master': '8', 'node-pool.lailin.xyz/test': '2' },
        taints: [{ key: 'node-pool.lailin.xyz', value: 'master', effect: 'NoSchedule' }],
      });
    });

    it('defaults a missing taint value to empty and keeps the order', () => {
      expect(nodePoolMembership({ taints }).taints).toEqual([
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
        { key: 'example.com/preemptible', value: '', effect: 'PreferNoSchedule' },
        { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
      ]);
    });

    it('returns nothing for an empty pool', () => {
      expect(nodePoolMembership({})).toEqual({ labels: {}, taints: [] });
    });

    it('returns a copy: changing it does not change the spec', () => {
      const spec = { labels: { a: '1' } };
      nodePoolMembership(spec).labels.b = '2';
      expect(spec.labels).toEqual({ a: '1' });
    });

    it('names members by node-role.kubernetes.io/<pool>', () => {
      expect(memberLabel('master')).toBe('node-role.kubernetes.io/master');
    });
  });

  describe('rejects keys under kubernetes.io or k8s.io', () => {
    it.each(['kubernetes.io/hostname', 'node.kubernetes.io/instance-type', 'k8s.io/x', 'team.k8s.io/y'])(
      'label %s',
      (key) => {
        const error = specError(() => synthesize(nodePool('p', { labels: { [key]: 'v' } })));
        expect(error.message).toBe(
          `spec.labels: Invalid value: label keys under kubernetes.io or k8s.io are reserved for Kubernetes: ${key}`,
        );
      },
    );

    it('in a taint key', () => {
      const error = specError(() =>
        synthesize(
          nodePool('p', { taints: [taints[0], { key: 'node.kubernetes.io/x', effect: 'NoSchedule' }] }),
        ),
      );
      expect(error.message).toBe(
        'spec.taints[1].key: Invalid value: "node.kubernetes.io/x": taint keys under kubernetes.io or k8s.io are reserved for Kubernetes',
      );
    });

    it.each(['example.com/kubernetes.io', 'mykubernetes.io/x', 'kubernetes-io/x', 'k8s.io.example.com/x'])(
      'but accepts %s, which is not under them',
      (key) => {
        expect(nodePoolMembership({ labels: { [key]: 'v' } }).labels).toEqual({ [key]: 'v' });
      },
    );
  });
});
