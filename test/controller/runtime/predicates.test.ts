import type { KubeObject } from '../../../constructs/kit';
import {
  annotationsChanged,
  generationChanged,
  metadataOrSpecChanged,
} from '../../../controller/runtime/predicates';

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

describe('metadataOrSpecChanged', () => {
  it('skips an update that changed status only (our own status writes)', () => {
    expect(metadataOrSpecChanged(base, changed({}, { status: { nodes: ['mc-1'] } }))).toBe(false);
  });

  it.each([
    ['a spec change (generation)', changed({ generation: 2 }, { spec: { size: 2 } })],
    ['a label change', changed({ labels: { team: 'b' } })],
    ['an annotation change', changed({ annotations: {} })],
    ['a finalizer change', changed({ finalizers: ['x/y'] })],
    ['a deletion', changed({ deletionTimestamp: '2026-11-21T00:00:00Z' })],
  ])('reconciles %s', (_, after) => {
    expect(metadataOrSpecChanged(base, after)).toBe(true);
  });
});

describe('named predicates', () => {
  it('each passes on its own field only', () => {
    const spec = changed({ generation: 2 });
    const note = changed({ annotations: {} });
    expect([generationChanged(base, spec), generationChanged(base, note)]).toEqual([true, false]);
    expect([annotationsChanged(base, note), annotationsChanged(base, spec)]).toEqual([true, false]);
  });
});
