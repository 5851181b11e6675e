/**
 * The seed articles' walkthroughs, as a user checks them with kubectl, against a real API server with the
 * real controller running as a separate process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  kubectl,
  uniqueName,
  waitFor,
} from '../support/kubectl';
import { sleep } from '../../controller/abortable';
import { RunningController, startController } from '../support/controller';

jest.setTimeout(180_000);

type Obj = {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: { uid: string }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & {
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
  data?: Record<string, string>;
};

const sample = (file: string) =>
  parse(readFileSync(join(__dirname, '../../samples', file), 'utf8')) as Obj & Record<string, unknown>;
const ready = (o: Obj) => o.status?.conditions?.find((c) => c.type === 'Ready');
const get = (args: string[]) => getJson<Obj>(args);
const apply = (obj: unknown, ns?: string) => applyYaml(JSON.stringify(obj), ns ? ['-n', ns] : []);

let controller: RunningController;
let ns: string;

beforeAll(async () => {
  ns = createNamespace('walk');
  controller = await startController(['--resync', '3600']);
});
afterAll(async () => {
  if (controller) expect(await controller.stop()).toBe(0);
  if (ns) deleteNamespace(ns);
});

describe('Memcached (seed 000)', () => {
  it('size 1 gives one pod name, size 2 two, and deleting the resource removes the Deployment', async () => {
    const mc = { ...sample('memcached.yaml'), metadata: { name: 'memcached-sample' } };
    apply(mc, ns);
    await waitFor(() => exists(['deployment', 'memcached-sample', '-n', ns]), { what: 'the Deployment' });
    const deployment = get(['deployment', 'memcached-sample', '-n', ns]);
    expect(deployment.spec?.replicas).toBe(1);
    const one = await waitFor(
      () => {
        const mc = get(['memcached', 'memcached-sample', '-n', ns]);
        return (mc.status?.nodes as string[] | undefined)?.length === 1 ? mc : undefined;
      },
      { what: 'status.nodes with one pod', timeoutMs: 60_000 },
    );
    expect((one.status?.nodes as string[])[0]).toMatch(/^memcached-sample-/);
    await waitFor(() => ready(get(['memcached', 'memcached-sample', '-n', ns]))?.status === 'True', {
      what: 'Ready=True',
      timeoutMs: 60_000,
    });

    apply({ ...mc, spec: { size: 2 } }, ns);
    const two = await waitFor(
      () => {
        const nodes = get(['memcached', 'memcached-sample', '-n', ns]).status?.nodes as string[] | undefined;
        return (nodes?.length === 2 && nodes) || undefined;
      },
      { what: 'status.nodes with two pods', timeoutMs: 60_000 },
    );
    expect([...two].sort()).toEqual(two);
    expect(get(['deployment', 'memcached-sample', '-n', ns]).spec?.replicas).toBe(2);

    kubectl(['delete', 'memcached', 'memcached-sample', '-n', ns]);
    await waitFor(() => !exists(['deployment', 'memcached-sample', '-n', ns]), {
      what: 'the Deployment to go',
      timeoutMs: 60_000,
    });
  });
});

describe('DatabaseManager (seed 003)', () => {
  it('mysql -> mariadb rolls the same Deployment; renaming deploymentName creates the new one and prunes the old', async () => {
    const dm = { ...sample('database-manager.yaml'), metadata: { name: 'example-mysql' } };
    apply(dm, ns);
    await waitFor(() => exists(['deployment', 'mysql', '-n', ns]), { what: 'Deployment mysql' });
    const mysql = get(['deployment', 'mysql', '-n', ns]);
    expect(JSON.stringify(mysql.spec)).toContain('"image":"mysql:5.7"');
    await waitFor(() => get(['dm', 'example-mysql', '-n', ns]).status?.availableReplicas === 1, {
      what: 'availableReplicas 1',
      timeoutMs: 60_000,
    });

    apply({ ...dm, spec: { ...dm.spec, dbtype: 'mariadb' } }, ns);
    await waitFor(
      () => JSON.stringify(get(['deployment', 'mysql', '-n', ns]).spec).includes('"image":"mariadb:10.7.1"'),
      {
        what: 'the Deployment to run mariadb',
      },
    );
    expect(get(['deployment', 'mysql', '-n', ns]).metadata.uid).toBe(mysql.metadata.uid);

    apply({ ...dm, spec: { ...dm.spec, dbtype: 'mariadb', deploymentName: 'mariadb' } }, ns);
    await waitFor(
      () => exists(['deployment', 'mariadb', '-n', ns]) && !exists(['deployment', 'mysql', '-n', ns]),
      {
        what: 'Deployment mariadb to exist and mysql to be pruned',
        timeoutMs: 60_000,
      },
    );
  });

  it('leaves a foreign Deployment of that name untouched, with a Warning event and Ready=False', async () => {
    kubectl(['create', 'deployment', 'taken', '--image=busybox:1.36', '-n', ns]);
    const before = get(['deployment', 'taken', '-n', ns]);
    apply(
      {
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        metadata: { name: 'collides' },
        spec: { deploymentName: 'taken' },
      },
      ns,
    );
    const condition = await waitFor(
      () => {
        const c = ready(get(['dm', 'collides', '-n', ns]));
        return (c?.reason === 'ErrResourceExists' && c) || undefined;
      },
      { what: 'Ready=False ErrResourceExists' },
    );
    expect(condition.status).toBe('False');
    expect(condition.message).toContain('already exists and is not managed by DatabaseManager');
    await waitFor(
      () =>
        kubectl([
          'get',
          'events',
          '-n',
          ns,
          '--field-selector',
          'involvedObject.name=collides,reason=ErrResourceExists',
          '-o',
          'name',
        ]).stdout.trim() !== '',
      { what: 'a Warning event ErrResourceExists' },
    );
    const after = get(['deployment', 'taken', '-n', ns]);
    expect(after.metadata.annotations).toEqual(before.metadata.annotations);
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.ownerReferences).toBeUndefined();
  });
});

describe('Balancer (seed 004)', () => {
  const names = ['balancer-sample', 'balancer-sample-proxy-configmap', 'balancer-sampleproxy'];
  const backends = (n: string) => ['v1', 'v2', 'v3'].map((b) => `${n}-${b}-backend`);

  it('renders the seed sample, follows backend and weight changes, and leaves another namespace alone', async () => {
    const other = createNamespace('walk-other');
    try {
      const b = { ...sample('balancer.yaml'), metadata: { name: 'balancer-sample' } } as Obj & {
        spec: { backends: { name: string; weight: number }[] };
      };
      apply(b, ns);
      apply(b, other);
      const status = await waitFor(
        () => {
          const s = get(['balancer', 'balancer-sample', '-n', ns]).status;
          return (s?.activeBackendsNum === 3 && s) || undefined;
        },
        { what: 'status 3 active', timeoutMs: 60_000 },
      );
      expect(status.obsoleteBackendsNum).toBe(0);
      expect(exists(['service', names[0], '-n', ns])).toBe(true);
      expect(exists(['configmap', names[1], '-n', ns])).toBe(true);
      expect(exists(['deployment', names[2], '-n', ns])).toBe(true);
      for (const s of backends('balancer-sample')) expect(exists(['service', s, '-n', ns])).toBe(true);
      const hash = () =>
        get(['deployment', names[2], '-n', ns]).spec as {
          template: { metadata: { annotations: Record<string, string> } };
        };
      const hashBefore =
        hash().template.metadata.annotations['balancer.exposer.hliangzhao.io/configmap-hash'];

      apply({ ...b, spec: { ...b.spec, backends: b.spec.backends.slice(0, 2) } }, ns);
      await waitFor(() => !exists(['service', 'balancer-sample-v3-backend', '-n', ns]), {
        what: 'the v3 backend Service to go',
      });
      await waitFor(() => get(['balancer', 'balancer-sample', '-n', ns]).status?.activeBackendsNum === 2, {
        what: 'status 2 active',
      });

      const reweighted = b.spec.backends.slice(0, 2).map((x, i) => (i === 0 ? { ...x, weight: 10 } : x));
      apply({ ...b, spec: { ...b.spec, backends: reweighted } }, ns);
      await waitFor(
        () =>
          get(['configmap', names[1], '-n', ns]).data?.['nginx.conf'].includes(
            'balancer-sample-v1-backend:80 weight=10;',
          ),
        {
          what: 'nginx.conf with the new weight',
        },
      );
      await waitFor(
        () =>
          hash().template.metadata.annotations['balancer.exposer.hliangzhao.io/configmap-hash'] !==
          hashBefore,
        {
          what: 'a new config-hash annotation',
        },
      );

      // The Balancer of the same name in the other namespace kept all three backends.
      for (const s of backends('balancer-sample')) expect(exists(['service', s, '-n', other])).toBe(true);
      await waitFor(() => get(['balancer', 'balancer-sample', '-n', other]).status?.activeBackendsNum === 3, {
        what: 'the other namespace at 3',
      });
    } finally {
      deleteNamespace(other);
    }
  });

  it('gives a resource that cannot be synthesized Ready=False while the others keep working', async () => {
    apply(
      {
        apiVersion: 'exposer.hliangzhao.io/v1alpha1',
        kind: 'Balancer',
        metadata: { name: 'no-selector' },
        spec: { ports: [{ name: 'http', port: 80 }], backends: [{ name: 'a', weight: 1 }] },
      },
      ns,
    );
    apply(
      {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: 'still-works' },
        spec: { size: 1 },
      },
      ns,
    );
    const condition = await waitFor(
      () => {
        const c = ready(get(['balancer', 'no-selector', '-n', ns]));
        return (c?.reason === 'InvalidSpec' && c) || undefined;
      },
      { what: 'Ready=False InvalidSpec' },
    );
    expect(condition.status).toBe('False');
    expect(condition.message).toContain('spec.backends[0].selector');
    await waitFor(() => exists(['deployment', 'still-works', '-n', ns]), {
      what: 'the other resource to be reconciled',
    });
    expect(exists(['configmap', 'no-selector-proxy-configmap', '-n', ns])).toBe(false);
  });
});

describe('drift', () => {
  it('brings back a child deleted by hand and restores a managed field edited by hand', async () => {
    apply(
      {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: 'drift' },
        spec: { size: 1 },
      },
      ns,
    );
    await waitFor(() => exists(['service', 'drift', '-n', ns]), { what: 'the Service' });
    const first = get(['service', 'drift', '-n', ns]).metadata.uid;
    kubectl(['delete', 'service', 'drift', '-n', ns]);
    await waitFor(
      () =>
        exists(['service', 'drift', '-n', ns]) && get(['service', 'drift', '-n', ns]).metadata.uid !== first,
      {
        what: 'the Service to come back',
      },
    );
    kubectl(['scale', 'deployment', 'drift', '--replicas=3', '-n', ns]);
    await waitFor(() => get(['deployment', 'drift', '-n', ns]).spec?.replicas === 1, {
      what: 'replicas restored to 1',
    });
  });
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
        !(get(['runtimeclass', `node-pool-${pool}`]) as unknown as { scheduling: { tolerations?: object[] } })
          .scheduling.tolerations,
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
