import type { KubeObject } from '../../../constructs/kit';
import {
  annotationsChanged,
  childUpdate,
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

describe('childUpdate: a child update wakes its owner when something its reconcile reads changed', () => {
  const DEPLOYMENT_TYPE = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
  };
  const owner = {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    name: 'mc',
    uid: 'u1',
    controller: true,
  };
  const deployment = (status: object, meta: Partial<KubeObject['metadata']> = {}, rv = '20'): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'mc',
      namespace: 'demo',
      generation: 1,
      resourceVersion: rv,
      ownerReferences: [owner],
      ...meta,
    },
    spec: { replicas: 1 },
    status,
  });
  const progressing = (time: string, reason = 'ReplicaSetUpdated') => ({
    type: 'Progressing',
    status: 'True',
    reason,
    lastUpdateTime: time,
  });
  const rolling = (time: string) =>
    deployment({ observedGeneration: 1, replicas: 1, updatedReplicas: 1, conditions: [progressing(time)] });
  const nothingRead = childUpdate(DEPLOYMENT_TYPE, () => false);

  it('skips a status write that leaves the readiness as it was (a condition’s timestamp, its reason)', () => {
    const later = deployment(
      {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        conditions: [progressing('t2', 'NewReplicaSetCreated')],
      },
      {},
      '21',
    );
    expect(nothingRead(rolling('t1'), later)).toBe(false);
  });

  it('passes a status write that changes the readiness: replicas available, the message’s counts', () => {
    const available = deployment(
      { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 },
      {},
      '21',
    );
    expect(nothingRead(rolling('t1'), available)).toBe(true);
    const none = deployment({}, {}, '19');
    expect(nothingRead(none, rolling('t1'))).toBe(true); // 0 of 1 updated -> 0 of 1 available
  });

  it.each([
    ['a label', { labels: { team: 'b' } }],
    ['an annotation (the applied hash)', { annotations: { 'reconstruct.dev/applied-hash': 'x' } }],
    ['a deletion', { deletionTimestamp: '2026-11-28T00:00:00Z' }],
    ['the owner', { ownerReferences: [] }],
  ])('passes a change of %s', (_, meta) => {
    const status = {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      conditions: [progressing('t1')],
    };
    expect(nothingRead(rolling('t1'), deployment(status, meta, '21'))).toBe(true);
  });

  it('passes a spec change (drift to repair)', () => {
    const drifted = {
      ...rolling('t1'),
      spec: { replicas: 5 },
      metadata: { ...rolling('t1').metadata, resourceVersion: '21' },
    };
    expect(nothingRead(rolling('t1'), drifted)).toBe(true);
  });

  it('passes every status write when the owner’s kind reads objects of the type in its own code', () => {
    const reads = jest.fn(() => true);
    const later = deployment(
      { observedGeneration: 1, replicas: 1, updatedReplicas: 1, conditions: [progressing('t2')] },
      {},
      '21',
    );
    expect(childUpdate(DEPLOYMENT_TYPE, reads)(rolling('t1'), later)).toBe(true);
    expect(reads).toHaveBeenCalledWith(owner, DEPLOYMENT_TYPE);
  });

  it('passes every status write of a child with no controller owner (adopted or retained by labels)', () => {
    const orphan = (time: string, rv: string) => ({
      ...rolling(time),
      metadata: { ...rolling(time).metadata, ownerReferences: undefined, resourceVersion: rv },
    });
    expect(nothingRead(orphan('t1', '20'), orphan('t2', '21'))).toBe(true);
  });
});
