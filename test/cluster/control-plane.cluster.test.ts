/**
 * The local control plane itself (scripts/cluster/up.sh): fake nodes, the project's CRDs,
 * printer columns, garbage collection, Deployment -> ReplicaSet -> Pod on kwok's fake nodes, and the
 * supervisor that restarts kube-scheduler (and kube-controller-manager, kwok) when it exits.
 * Run through `npm run test:cluster` (scripts/cluster/with-cluster.sh).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
import { Crd, crdsInRepo, KINDS, KubeObject, List, manifest, storageVersion } from './manifests';

const REPO = join(__dirname, '..', '..');

jest.setTimeout(120_000);

let ns: string;
beforeAll(() => {
  ns = createNamespace('cp');
});
afterAll(() => {
  if (ns) deleteNamespace(ns);
});

const condition = (obj: { status?: { conditions?: { type: string; status: string }[] } }, type: string) =>
  obj.status?.conditions?.find((c) => c.type === type)?.status;

describe('the control plane', () => {
  test('serves the pinned Kubernetes version', () => {
    const version = JSON.parse(kubectl(['version', '-o', 'json']).stdout) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(version.serverVersion.gitVersion).toMatch(/^v1\.3\d\.\d+$/);
    expect(version.clientVersion.gitVersion).toBe(version.serverVersion.gitVersion);
  });

  test('has three Ready fake nodes, one labelled as worker', () => {
    const nodes = getJson<List<KubeObject>>(['nodes']).items;
    expect(nodes.map((n) => [n.metadata.name, condition(n, 'Ready')])).toEqual([
      ['kwok-node-0', 'True'],
      ['kwok-node-1', 'True'],
      ['kwok-node-2', 'True'],
    ]);
    const workers = nodes.filter((n) => 'node-role.kubernetes.io/worker' in (n.metadata.labels ?? {}));
    expect(workers.map((n) => n.metadata.name)).toEqual(['kwok-node-0']);
  });

  test('serves StorageVersionMigration and sharded list (its default feature gates)', () => {
    expect(kubectl(['api-versions']).stdout.split('\n')).toContain('storagemigration.k8s.io/v1beta1');
    const selector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
    const list = JSON.parse(
      kubectl(['get', '--raw', `/api/v1/namespaces?shardSelector=${encodeURIComponent(selector)}`]).stdout,
    ) as { metadata: { shardInfo?: { selector?: string } } };
    expect(list.metadata.shardInfo?.selector).toBe(selector);
  });

  test('is not reused by a start asking for other feature gates: one line says what to do', () => {
    // The cluster of this run was started by up.sh (with-cluster.sh), which recorded its gates there.
    expect(existsSync(join(REPO, '.cluster', 'features'))).toBe(true);
    const up = spawnSync('bash', [join(REPO, 'scripts', 'cluster', 'up.sh')], {
      encoding: 'utf8',
      env: { ...process.env, RECONSTRUCT_CLUSTER_FEATURE_GATES: 'ShardedListAndWatch=false' },
    });
    expect(up.status).toBe(1);
    expect(up.stderr.trim().split('\n').pop()).toMatch(
      /^\[cluster\] ERROR: a cluster is up with gates \[StorageVersionMigrator=true,ShardedListAndWatch=true\], runtime config \[storagemigration.k8s.io\/v1beta1=true\], services 10.96.0.0\/16; asked for: gates \[ShardedListAndWatch=false\], .*Stop it first \(npm run cluster:down\)$/,
    );
  });
});

describe('the CRDs in crds/', () => {
  const crds = crdsInRepo();

  test('are the built-in kinds', () => {
    expect(crds.map((c) => c.spec.names.kind).sort()).toEqual(Object.keys(KINDS).sort());
  });

  test.each(Object.values(KINDS).map((k) => k.resource))('%s is installed and Established', (name) => {
    const crd = getJson<Crd>(['crd', name]);
    expect(condition(crd, 'NamesAccepted')).toBe('True');
    expect(condition(crd, 'Established')).toBe('True');
  });

  test.each(Object.keys(KINDS))('%s has the scope its kind declares', (kind) => {
    const { resource, namespaced } = KINDS[kind];
    const [plural, ...group] = resource.split('.');
    const listed = (scoped: boolean) =>
      kubectl(['api-resources', `--api-group=${group.join('.')}`, `--namespaced=${scoped}`, '-o', 'name'])
        .stdout.split('\n')
        .filter(Boolean);
    expect(listed(namespaced)).toContain(`${plural}.${group.join('.')}`);
    expect(listed(!namespaced)).toEqual([]);
  });

  test('kubectl get reconstruct lists the resources of every kind (the CRD category)', () => {
    const created = Object.entries(KINDS).map(([kind, { resource, namespaced, spec }]) => {
      const name = uniqueName(kind.toLowerCase());
      const nsArgs = namespaced ? ['-n', ns] : [];
      applyYaml(manifest(kind, name, spec), nsArgs);
      // kubectl -o name says <kind>.<group>/<name>, the kind in lower case.
      const listedAs = `${kind.toLowerCase()}.${resource.split('.').slice(1).join('.')}/${name}`;
      return { resource, name, nsArgs, listedAs };
    });
    try {
      const listed = kubectl(['get', 'reconstruct', '-A', '-o', 'name']).stdout.split('\n');
      for (const { listedAs } of created) expect(listed).toContain(listedAs);
    } finally {
      for (const { resource, name, nsArgs } of created) {
        kubectl(['delete', resource, name, ...nsArgs, '--ignore-not-found', '--wait=false']);
      }
    }
  });

  test.each(Object.keys(KINDS))('%s: kubectl get shows the printer columns of the CRD', (kind) => {
    const { resource, namespaced, spec } = KINDS[kind];
    const crd = getJson<Crd>(['crd', resource]);
    const columns = storageVersion(crd).additionalPrinterColumns ?? [];
    expect(columns.length).toBeGreaterThan(0);

    const name = uniqueName(kind.toLowerCase());
    const nsArgs = namespaced ? ['-n', ns] : [];
    applyYaml(manifest(kind, name, spec), nsArgs);
    try {
      const header = (args: string[]) =>
        kubectl(['get', resource, name, ...nsArgs, ...args]).stdout.split('\n')[0];
      const headerColumns = (args: string[]) =>
        header(args)
          .trim()
          .split(/\s{2,}/);
      const expected = columns.filter((c) => !c.priority).map((c) => c.name.toUpperCase());
      expect(headerColumns([])).toEqual(['NAME', ...expected]);
      for (const col of columns) expect(headerColumns(['-o', 'wide'])).toContain(col.name.toUpperCase());
    } finally {
      kubectl(['delete', resource, name, ...nsArgs, '--ignore-not-found']);
    }
  });
});

describe('built-in controllers', () => {
  test('garbage collection deletes a dependent when its owner goes', async () => {
    const owner = uniqueName('owner');
    const dependent = uniqueName('dependent');
    kubectl(['create', 'configmap', owner, '-n', ns, '--from-literal=role=owner']);
    const uid = getJson<KubeObject>(['configmap', owner, '-n', ns]).metadata.uid;
    applyYaml(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: dependent,
          namespace: ns,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid }],
        },
        data: { role: 'dependent' },
      }),
    );
    expect(exists(['configmap', dependent, '-n', ns])).toBe(true);

    kubectl(['delete', 'configmap', owner, '-n', ns]);
    await waitFor(() => !exists(['configmap', dependent, '-n', ns]), {
      what: `the garbage collector to delete configmap ${ns}/${dependent}`,
      timeoutMs: 60_000,
      intervalMs: 500,
    });
  });

  test('a Deployment gets Running pods on the fake nodes', async () => {
    const name = uniqueName('web');
    applyYaml(
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: ns },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              // kwok's nodes are fake: no container runs, kwok only reports the pods Running.
              nodeSelector: { type: 'kwok' },
              containers: [{ name: 'web', image: 'registry.invalid/web:1' }],
            },
          },
        },
      }),
    );
    const pods = await waitFor(
      () => {
        const items = getJson<List<KubeObject>>(['pods', '-n', ns, '-l', `app=${name}`]).items;
        const running = items.filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName);
        return running.length === 2 ? running : undefined;
      },
      { what: `2 Running pods of deployment ${ns}/${name}`, timeoutMs: 90_000, intervalMs: 500 },
    );
    for (const pod of pods) expect(pod.spec?.nodeName).toMatch(/^kwok-node-\d$/);
    await waitFor(
      () =>
        (getJson<KubeObject>(['deployment', name, '-n', ns]).status?.readyReplicas as number | undefined) ===
        2,
      { what: `deployment ${ns}/${name} to report 2 ready replicas`, timeoutMs: 60_000 },
    );
  });
});

/** The local control plane's own processes (scripts/cluster/supervise.sh), when the tests started it. */
const CLUSTER_DIR = join(__dirname, '../../.cluster/kwok/clusters/reconstruct');
const ownCluster =
  process.env.RECONSTRUCT_USE_EXISTING_CLUSTER !== '1' && existsSync(join(CLUSTER_DIR, 'pids'));
const pidOf = (component: string) =>
  Number(readFileSync(join(CLUSTER_DIR, 'pids', `${component}.pid`), 'utf8'));
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

(ownCluster ? describe : describe.skip)('the supervisor', () => {
  test('starts kube-scheduler again when it dies, and pods are scheduled', async () => {
    const before = pidOf('kube-scheduler');
    expect(readFileSync(`/proc/${before}/cmdline`, 'utf8')).toContain(CLUSTER_DIR);
    const killed = Date.now();
    process.kill(before, 'SIGKILL');
    const after = await waitFor(
      () => {
        const pid = pidOf('kube-scheduler');
        return pid !== before && alive(pid) ? pid : undefined;
      },
      { what: 'a new kube-scheduler process', timeoutMs: 30_000, intervalMs: 100 },
    );
    const restartedMs = Date.now() - killed;
    const name = uniqueName('after-restart');
    applyYaml(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: ns },
        spec: { nodeSelector: { type: 'kwok' }, containers: [{ name: 'c', image: 'registry.invalid/c:1' }] },
      }),
    );
    await waitFor(() => getJson<KubeObject>(['pod', name, '-n', ns]).spec?.nodeName as string | undefined, {
      what: `pod ${name} scheduled by the new kube-scheduler`,
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect(alive(after)).toBe(true);
    expect(restartedMs).toBeLessThan(5_000);
  });
});
