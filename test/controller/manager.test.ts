import type { KubeObject } from '../../constructs/kit';
import { worthReconciling } from '../../controller/manager';

const base: KubeObject = {
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: {
    name: 'mc',
    namespace: 'demo',
    generation: 1,
    resourceVersion: '10',
    labels: { team: 'a' },
    annotations: { note: 'x' },
    finalizers: [],
  },
  spec: { size: 1 },
  status: { nodes: [] },
};
const changed = (patch: Partial<KubeObject['metadata']>, rest: Partial<KubeObject> = {}): KubeObject => ({
  ...base,
  ...rest,
  metadata: { ...base.metadata, resourceVersion: '11', ...patch },
});

describe('worthReconciling', () => {
  it('skips an update that changed status only (our own status writes)', () => {
    expect(worthReconciling(base, changed({}, { status: { nodes: ['mc-1'] } }))).toBe(false);
  });

  it.each([
    ['a spec change (generation)', changed({ generation: 2 }, { spec: { size: 2 } })],
    ['a label change', changed({ labels: { team: 'b' } })],
    ['an annotation change', changed({ annotations: {} })],
    ['a finalizer change', changed({ finalizers: ['x/y'] })],
    ['a deletion', changed({ deletionTimestamp: '2026-11-21T00:00:00Z' })],
  ])('reconciles %s', (_, after) => {
    expect(worthReconciling(base, after)).toBe(true);
  });
});
