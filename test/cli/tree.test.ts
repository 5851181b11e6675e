/** The text form of `reconstruct tree`. */
import { exitStatus, formatTree } from '../../cli/tree/command';
import type { Tree } from '../../cli/tree/walk';

describe('formatTree', () => {
  it("shows the kind's revision the children run, and a rollout's condition", () => {
    const text = formatTree({
      apiVersion: 'rollouts.example.com/v1',
      kind: 'Rolling',
      namespace: 'shop',
      name: 'r3',
      revision: 'v1',
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Ready', message: 'all 1 child object(s) ready' },
        { type: 'Rollout', status: 'False', reason: 'Waiting', message: 'this one runs v1 until its turn' },
      ],
      children: [],
    });
    expect(text.split('\n').slice(0, 3)).toEqual([
      'Rolling shop/r3  Ready=True Ready  revision v1',
      '  all 1 child object(s) ready',
      '  Rollout=False Waiting: this one runs v1 until its turn',
    ]);
  });

  it('prints the Ready condition, the other conditions, a stale status, then one line per child', () => {
    const text = formatTree({
      apiVersion: 'mysql.oracle.com/v1alpha1',
      kind: 'Cluster',
      namespace: 'db',
      name: 'mysql',
      generation: 3,
      observedGeneration: 2,
      conditions: [
        { type: 'Ready', status: 'False', reason: 'Upgrading', message: '1 of 3 members run MySQL 8.0.13' },
        { type: 'Degraded', status: 'False', reason: 'AsExpected' },
      ],
      children: [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          name: 'mysql-root-password',
          state: 'Unknown',
          reason: 'Created',
          message: 'created',
        },
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name: 'mysql',
          state: 'NotReady',
          reason: 'Progressing',
          message: '1 of 3 replicas updated',
        },
        { apiVersion: 'v1', kind: 'Service', name: 'mysql', state: 'Ready', reason: 'Ready', message: '' },
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: 'old',
          state: 'Stale',
          reason: 'NotWanted',
          message: 'pruned next',
        },
      ],
    });
    expect(text).toBe(
      [
        'Cluster db/mysql  Ready=False Upgrading',
        '  1 of 3 members run MySQL 8.0.13',
        '  (status is of generation 2; the spec is at 3)',
        '  Degraded=False AsExpected',
        '├── ? Secret mysql-root-password  Created: created',
        '├── ✗ StatefulSet mysql           Progressing: 1 of 3 replicas updated',
        '├── ✓ Service mysql               ready',
        '└── - Service old                 NotWanted: pruned next',
        '',
      ].join('\n'),
    );
  });

  it('says a resource is being deleted and what holds it, without calling the deletion’s generation a spec change', () => {
    const text = formatTree(held);
    expect(text).toBe(
      [
        'TenantNamespace team-a  Ready=False PodsRunning',
        '  deletion waits for 1 pod(s) still running in namespace team-a: web-1',
        '  being deleted since 2026-11-27T08:00:00Z, held by tenants.example.com/pods-gone',
        '└── ✓ Namespace team-a  ready',
        '',
      ].join('\n'),
    );
  });
});

const held: Tree = {
  apiVersion: 'tenants.example.com/v1',
  kind: 'TenantNamespace',
  name: 'team-a',
  generation: 2,
  observedGeneration: 1,
  deletion: { since: '2026-11-27T08:00:00Z', finalizers: ['tenants.example.com/pods-gone'] },
  conditions: [
    {
      type: 'Ready',
      status: 'False',
      reason: 'PodsRunning',
      message: 'deletion waits for 1 pod(s) still running in namespace team-a: web-1',
    },
  ],
  children: [
    { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', state: 'Ready', reason: 'Ready', message: '' },
  ],
};

describe('exitStatus', () => {
  const readyTree: Tree = { ...held, deletion: undefined, conditions: [{ type: 'Ready', status: 'True' }] };

  it('is 0 when every resource is Ready, 1 when one is not', () => {
    expect(exitStatus([readyTree])).toBe(0);
    expect(exitStatus([readyTree, held])).toBe(1);
  });

  it('is 1 for a resource being deleted, even while its status still says Ready', () => {
    expect(exitStatus([{ ...readyTree, deletion: held.deletion }])).toBe(1);
  });
});
