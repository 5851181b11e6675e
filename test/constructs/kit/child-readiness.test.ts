import {
  DEPLOYMENT,
  JOB,
  CONFIG_MAP,
  childReadiness,
  childrenReadiness,
  type ClusterView,
  type KubeObject,
  type Manifest,
} from '../../../constructs';

const child = (apiVersion: string, kind: string, name = 'x'): Manifest => ({
  apiVersion,
  kind,
  metadata: { name, namespace: 'ns' },
});

/** A live object of `kind` with `status` and `spec`, at generation 2, observed unless said otherwise. */
function live(spec: object, status: object, generation = 2): KubeObject {
  return {
    metadata: { name: 'x', namespace: 'ns', generation },
    spec,
    status: { observedGeneration: 2, ...status },
  };
}

const verdict = (c: Manifest, obj: KubeObject | undefined) => {
  const r = childReadiness(c, obj);
  return r.ready ? 'ready' : `${r.reason}: ${r.message}`;
};

describe('childReadiness, by the kstatus rules of each kind', () => {
  const deployment = child('apps/v1', 'Deployment', 'web');
  const statefulSet = child('apps/v1', 'StatefulSet', 'mysql');
  const job = child('batch/v1', 'Job', 'migrate');

  it.each([
    ['does not exist', deployment, undefined, 'Progressing: Deployment web: does not exist yet'],
    [
      'has not observed its spec',
      deployment,
      live({ replicas: 1 }, { observedGeneration: 1 }),
      'Progressing: Deployment web: its latest spec is not observed yet',
    ],
    [
      'is rolling out',
      deployment,
      live({ replicas: 3 }, { replicas: 3, updatedReplicas: 1, availableReplicas: 3 }),
      'Progressing: Deployment web: 1 of 3 replicas updated',
    ],
    [
      'has old replicas left',
      deployment,
      live({ replicas: 2 }, { replicas: 3, updatedReplicas: 2, availableReplicas: 2 }),
      'Progressing: Deployment web: 1 old replicas still terminating',
    ],
    [
      'waits for available replicas',
      deployment,
      live({ replicas: 3 }, { replicas: 3, updatedReplicas: 3, availableReplicas: 1 }),
      'Progressing: Deployment web: 1 of 3 replicas available',
    ],
    [
      'missed its progress deadline',
      deployment,
      live(
        {},
        {
          conditions: [
            { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'too slow' },
          ],
        },
      ),
      'Failed: Deployment web: progress deadline exceeded: too slow',
    ],
    [
      'cannot create its pods (a ReplicaSet FailedCreate: quota, admission)',
      deployment,
      live(
        {},
        {
          replicas: 0,
          conditions: [
            {
              type: 'ReplicaFailure',
              status: 'True',
              reason: 'FailedCreate',
              message: 'pods "web-1" is forbidden: exceeded quota: pods',
            },
          ],
        },
      ),
      'Failed: Deployment web: cannot create pods: pods "web-1" is forbidden: exceeded quota: pods',
    ],
    [
      'has rolled out (replicas default to 1)',
      deployment,
      live({}, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
      'ready',
    ],
    [
      'StatefulSet waits for ready replicas',
      statefulSet,
      live({ replicas: 3 }, { replicas: 3, readyReplicas: 1 }),
      'Progressing: StatefulSet mysql: 1 of 3 replicas ready',
    ],
    [
      'StatefulSet rolls out a revision',
      statefulSet,
      live(
        { replicas: 2 },
        { readyReplicas: 2, updatedReplicas: 1, currentRevision: 'a', updateRevision: 'b' },
      ),
      'Progressing: StatefulSet mysql: 1 of 2 replicas updated',
    ],
    [
      'StatefulSet finishing a rollout',
      statefulSet,
      live(
        { replicas: 2 },
        { readyReplicas: 2, updatedReplicas: 2, currentRevision: 'a', updateRevision: 'b' },
      ),
      'Progressing: StatefulSet mysql: rolling out revision b',
    ],
    [
      'StatefulSet rolled out',
      statefulSet,
      live(
        { replicas: 2 },
        { readyReplicas: 2, updatedReplicas: 2, currentRevision: 'b', updateRevision: 'b' },
      ),
      'ready',
    ],
    [
      'Job running',
      job,
      live({}, { active: 1 }),
      'Progressing: Job migrate: not complete (1 active, 0 succeeded)',
    ],
    [
      'Job complete',
      job,
      live({}, { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] }),
      'ready',
    ],
    [
      'Job failed',
      job,
      live({}, { conditions: [{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }] }),
      'Failed: Job migrate: failed: BackoffLimitExceeded',
    ],
    [
      'PVC pending',
      child('v1', 'PersistentVolumeClaim', 'data'),
      live({}, { phase: 'Pending' }),
      'Progressing: PersistentVolumeClaim data: Pending, not bound',
    ],
    ['PVC bound', child('v1', 'PersistentVolumeClaim', 'data'), live({}, { phase: 'Bound' }), 'ready'],
    ['ClusterIP Service', child('v1', 'Service', 's'), live({ type: 'ClusterIP' }, {}), 'ready'],
    [
      'LoadBalancer Service without an address',
      child('v1', 'Service', 's'),
      live({ type: 'LoadBalancer' }, { loadBalancer: {} }),
      'Progressing: Service s: no load balancer address yet',
    ],
    ['a ConfigMap that exists', child('v1', 'ConfigMap', 'c'), { metadata: { name: 'c' } }, 'ready'],
    [
      'anything with a Ready condition',
      child('example.com/v1', 'Database', 'db'),
      live(
        {},
        { conditions: [{ type: 'Ready', status: 'False', reason: 'Provisioning', message: 'disk 2 of 3' }] },
      ),
      'Provisioning: Database db: disk 2 of 3',
    ],
    [
      'anything stalled',
      child('example.com/v1', 'Database', 'db'),
      live(
        {},
        { conditions: [{ type: 'Stalled', status: 'True', reason: 'QuotaExceeded', message: 'no quota' }] },
      ),
      'QuotaExceeded: Database db: no quota',
    ],
    [
      'being deleted',
      deployment,
      { metadata: { name: 'web', deletionTimestamp: '2026-01-01T00:00:00Z' } },
      'Progressing: Deployment web: being deleted',
    ],
  ])('%s', (_what, c, obj, expected) => {
    expect(verdict(c, obj)).toBe(expected);
  });
});

describe('childrenReadiness', () => {
  const children = [
    child('v1', 'ConfigMap', 'conf'),
    child('apps/v1', 'Deployment', 'web'),
    child('batch/v1', 'Job', 'once'),
  ];
  const viewOf = (objects: Record<string, KubeObject>): ClusterView => ({
    get: (type, _ns, name) => objects[`${type.plural}/${name}`],
    list: () => [],
    exists: (type, _ns, name) => `${type.plural}/${name}` in objects,
  });
  const ready = {
    'configmaps/conf': { metadata: { name: 'conf' } },
    'deployments/web': live({ replicas: 1 }, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
    'jobs/once': live({}, { conditions: [{ type: 'Complete', status: 'True' }] }),
  };

  it('names the first child that blocks, in the order the construct made them', () => {
    const view = viewOf({
      ...ready,
      'deployments/web': live({ replicas: 2 }, { replicas: 2, updatedReplicas: 2, availableReplicas: 1 }),
      'jobs/once': live({}, {}),
    });
    expect(childrenReadiness(children, view, [CONFIG_MAP, DEPLOYMENT, JOB], 'ns')).toEqual({
      ready: false,
      reason: 'Progressing',
      message: 'Deployment web: 1 of 2 replicas available',
    });
  });

  it('is ready when every child is', () => {
    expect(childrenReadiness(children, viewOf(ready), [CONFIG_MAP, DEPLOYMENT, JOB], 'ns')).toEqual({
      ready: true,
      reason: 'Ready',
      message: 'all 3 child object(s) ready',
    });
  });
});
