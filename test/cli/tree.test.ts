/** The text form of `reconstruct tree`, and the member of a sharded controller it shows. */
import { exitStatus, formatTree } from '../../cli/tree/command';
import { readRings, treeOf, type Tree } from '../../cli/tree/walk';
import type { CustomResource, KubeObject } from '../../constructs/kit';
import { ApiError } from '../../controller/kube/errors';
import { recordAnnotations, type RingRecord } from '../../controller/sharding/ring-record';
import { greetingKind } from '../fixtures/kinds/greeting';
import { answeringClient } from '../support/answering-client';

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

  it('says "stalled" on the first line, and not the Reconciling and Stalled conditions that repeat Ready', () => {
    const tree = (conditions: { type: string; status: string; reason: string; message: string }[]) =>
      formatTree({
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        name: 'm',
        conditions,
        children: [],
      });
    const ready = { type: 'Ready', status: 'False', reason: 'InvalidSpec', message: 'spec.size: too big' };
    expect(tree([ready, { ...ready, type: 'Stalled', status: 'True' }])).toBe(
      'Memcached m  Ready=False InvalidSpec (stalled)\n  spec.size: too big\n',
    );
    const creating = { type: 'Ready', status: 'False', reason: 'Creating', message: '0 of 1 ready' };
    expect(tree([creating, { ...creating, type: 'Reconciling', status: 'True' }])).toBe(
      'Memcached m  Ready=False Creating\n  0 of 1 ready\n',
    );
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

describe('the member of a sharded controller', () => {
  const members = ['web-7f9c-1a2b3c4d', 'web-7f9c-5e6f7a8b', 'web-7f9c-9c0d1e2f'];
  const LEASES = '/apis/coordination.k8s.io/v1/leases';

  /** A ring's record Lease, as its leader writes it (ranges read path). */
  const record = (ring: string, r: RingRecord): KubeObject => ({
    metadata: {
      name: `${ring}-ring`,
      namespace: 'reconstruct-system',
      labels: { 'sharding.reconstruct.dev/ring': ring },
      annotations: recordAnnotations(r),
    },
  });

  /** An API server holding `leases` (or refusing to list them), and no child of the Greeting yet. */
  function cluster(leases: KubeObject[] | ApiError) {
    return answeringClient((req) => {
      if (req.path === LEASES && leases instanceof ApiError) throw leases;
      if (req.path === LEASES) return { items: leases };
      if (req.query?.labelSelector) return { items: [] };
      throw new ApiError(404, 'not found');
    });
  }

  const greeting = (uid: string, labels?: Record<string, string>): CustomResource => ({
    apiVersion: 'greetings.example.com/v1',
    kind: 'Greeting',
    metadata: { name: 'hello', namespace: 'default', uid, ...(labels ? { labels } : {}) },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: 'all ready' }] },
  });

  /** The tree as `reconstruct tree` reads it: the rings once, then the resources. */
  async function treeIn(leases: KubeObject[] | ApiError, ...resources: CustomResource[]) {
    const { client, requests } = cluster(leases);
    const rings = await readRings(client);
    const trees: Tree[] = [];
    for (const r of resources) trees.push(await treeOf(client, greetingKind, r, rings));
    return { trees, requests };
  }

  it('labels path: names the member of its shard label, before any ring record', async () => {
    const settled = record('other', { generation: 2, members, settled: 2 });
    const resource = greeting('8d3f0c1e-5b7a-4c2d-9e6f-0a1b2c3d4e5f', {
      'shard.alpha.sharding.timebertt.dev/reconstruct-controller': 'web-7f9c-5e6f7a8b',
    });
    const { trees } = await treeIn([settled], resource);
    expect(trees[0].shard).toEqual({
      ring: 'reconstruct-controller',
      member: 'web-7f9c-5e6f7a8b',
      path: 'labels',
      moving: false,
    });
    expect(formatTree(trees[0]).split('\n').slice(0, 3)).toEqual([
      'Greeting default/hello  Ready=True Ready',
      '  all ready',
      '  held by member web-7f9c-5e6f7a8b of ring reconstruct-controller',
    ]);
  });

  it('labels path: says a resource with the drain label is being moved', async () => {
    const resource = greeting('8d3f0c1e-5b7a-4c2d-9e6f-0a1b2c3d4e5f', {
      'shard.alpha.sharding.timebertt.dev/reconstruct-controller': 'web-7f9c-1a2b3c4d',
      'drain.alpha.sharding.timebertt.dev/reconstruct-controller': 'true',
    });
    const { trees } = await treeIn([], resource);
    expect(trees[0].shard).toMatchObject({ member: 'web-7f9c-1a2b3c4d', moving: true });
    expect(formatTree(trees[0]).split('\n')[2]).toBe(
      '  held by member web-7f9c-1a2b3c4d of ring reconstruct-controller (being moved)',
    );
  });

  it("ranges path: names the member the ring's record gives each uid, listing the records once", async () => {
    const { trees, requests } = await treeIn(
      [record('reconstruct-controller', { generation: 3, members, settled: 3 })],
      greeting('8d3f0c1e-5b7a-4c2d-9e6f-0a1b2c3d4e5f'),
      greeting('6a7b8c9d-2e3f-4a5b-9c6d-e7f8a9b0c1d2'),
    );
    expect(trees.map((t) => t.shard)).toEqual([
      { ring: 'reconstruct-controller', member: 'web-7f9c-9c0d1e2f', path: 'ranges', moving: false },
      { ring: 'reconstruct-controller', member: 'web-7f9c-5e6f7a8b', path: 'ranges', moving: false },
    ]);
    expect(requests.filter((r) => r.path === LEASES)).toEqual([
      { method: 'GET', path: LEASES, query: { labelSelector: 'sharding.reconstruct.dev/ring' } },
    ]);
    expect(formatTree(trees[0]).split('\n')[2]).toBe(
      '  held by member web-7f9c-9c0d1e2f of ring reconstruct-controller',
    );
  });

  it('ranges path: says the member takes the resource up once a changing ring settles', async () => {
    const changing = record('reconstruct-controller', { generation: 4, members, settled: 3 });
    const { trees } = await treeIn([changing], greeting('6a7b8c9d-2e3f-4a5b-9c6d-e7f8a9b0c1d2'));
    expect(trees[0].shard).toEqual({
      ring: 'reconstruct-controller',
      member: 'web-7f9c-5e6f7a8b',
      path: 'ranges',
      moving: true,
    });
    expect(formatTree(trees[0]).split('\n')[2]).toBe(
      '  held by member web-7f9c-5e6f7a8b of ring reconstruct-controller once the ring settles (its members are changing)',
    );
  });

  it('ranges path: takes the first ring by name that has members, and skips a Lease without a record', async () => {
    const blank: KubeObject = {
      metadata: { name: 'a-ring', labels: { 'sharding.reconstruct.dev/ring': 'a' } },
    };
    const { trees } = await treeIn(
      [
        record('c', { generation: 1, members: ['web-7f9c-1a2b3c4d'], settled: 1 }),
        record('b', { generation: 1, members, settled: 1 }),
        record('a', { generation: 1, members: [], settled: 1 }),
        blank,
      ],
      greeting('8d3f0c1e-5b7a-4c2d-9e6f-0a1b2c3d4e5f'),
    );
    expect(trees[0].shard).toEqual({ ring: 'b', member: 'web-7f9c-9c0d1e2f', path: 'ranges', moving: false });
  });

  it('shows no member, and no error, to a user who may not list Leases', async () => {
    const { trees } = await treeIn(
      new ApiError(403, 'leases is forbidden', { reason: 'Forbidden' }),
      greeting('8d3f0c1e-5b7a-4c2d-9e6f-0a1b2c3d4e5f'),
    );
    expect(trees[0].shard).toBeUndefined();
    expect(formatTree(trees[0])).not.toContain('held by');
  });

  it('shows no member without sharding', async () => {
    const { trees } = await treeIn([], greeting('8d3f0c1e-5b7a-4c2d-9e6f-0a1b2c3d4e5f'));
    expect(trees[0].shard).toBeUndefined();
    expect(formatTree(trees[0])).toBe(
      [
        'Greeting default/hello  Ready=True Ready',
        '  all ready',
        '└── ✗ ConfigMap hello-greeting  Progressing: does not exist yet',
        '',
      ].join('\n'),
    );
  });
});
