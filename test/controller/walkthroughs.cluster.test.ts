/**
 * The seed articles' walkthroughs of the namespaced kinds (Memcached, DatabaseManager, Balancer) and of
 * drift, as a user checks them with kubectl, against a real API server with the real controller running as
 * a separate process. The cluster-scoped NodePool's is walkthroughs-nodepool.cluster.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createNamespace, deleteNamespace, events, exists, kubectl, waitFor } from '../support/kubectl';
import { RunningController, startController } from '../support/controller';
import { apply, get, type Obj } from './walkthrough-objects';

jest.setTimeout(180_000);

const sample = (file: string) =>
  parse(readFileSync(join(__dirname, '../../samples', file), 'utf8')) as Obj & Record<string, unknown>;
const ready = (o: Obj) => o.status?.conditions?.find((c) => c.type === 'Ready');

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
    await waitFor(() => events(ns, 'involvedObject.name=collides,reason=ErrResourceExists').length > 0, {
      what: 'a Warning event ErrResourceExists',
    });
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
