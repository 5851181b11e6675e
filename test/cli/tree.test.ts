/** The text form of `reconstruct tree`. */
import { formatTree } from '../../cli/tree';

describe('formatTree', () => {
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
});
