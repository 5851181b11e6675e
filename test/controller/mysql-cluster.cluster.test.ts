/**
 * The MySQL Cluster kind on the local control plane (kwok marks the member pods ready), with the controller
 * running as users run it: the password Secret made once and never rewritten (across spec changes and a
 * restart), scaling, a version upgrade and a refused downgrade, the user's own Secret, a foreign
 * StatefulSet in the way, and deletion that keeps the data claims.
 */
import { versions } from '../support/versions';
import { type RunningController, startController, watchingOnly } from '../support/controller';
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

jest.setTimeout(240_000);

let ns: string;
let lease: string;
let controller: RunningController | undefined;
const start = async () => {
  controller = await startController(watchingOnly(ns, lease));
};

beforeAll(async () => {
  ns = createNamespace('mysql');
  lease = uniqueName('lease');
  await start();
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface ClusterStatus {
  members?: number;
  readyMembers?: number;
  version?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}
interface StatefulSet {
  metadata: { uid: string };
  spec: {
    replicas: number;
    template: {
      spec: { containers: { name: string; image: string; env?: { name: string; value?: string }[] }[] };
    };
  };
}

const apply = (name: string, spec: object) =>
  applyYaml(
    JSON.stringify({
      apiVersion: 'mysql.oracle.com/v1alpha1',
      kind: 'Cluster',
      metadata: { name, namespace: ns },
      spec,
    }),
  );
const clusterOf = (name: string) =>
  getJson<{ metadata: { generation: number }; status?: ClusterStatus }>(['mysqlcluster', name, '-n', ns]);
const ready = (name: string) => clusterOf(name).status?.conditions?.find((c) => c.type === 'Ready');
const statefulSet = (name: string) => getJson<StatefulSet>(['statefulset', name, '-n', ns]);
const password = (name: string) =>
  getJson<{ data: { password: string } }>(['secret', `${name}-root-password`, '-n', ns]).data.password;
/** Ready=True for the latest generation. */
const readyNow = (name: string) => {
  const c = clusterOf(name);
  return (
    c.status?.observedGeneration === c.metadata.generation &&
    c.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True'
  );
};

it('a 3-member Cluster becomes Ready with its Secret, Service and StatefulSet; scales, upgrades, keeps its password', async () => {
  apply('mysql', {});
  await waitFor(() => readyNow('mysql'), { what: 'Cluster mysql Ready', timeoutMs: 120_000 });
  expect(clusterOf('mysql').status).toMatchObject({ members: 3, readyMembers: 3, version: '8.0.12' });
  expect(ready('mysql')?.message).toBe('3 of 3 members ready, running MySQL 8.0.12');
  expect(getJson<{ spec: { clusterIP: string } }>(['service', 'mysql', '-n', ns]).spec.clusterIP).toBe(
    'None',
  );
  const secret = password('mysql');
  expect(Buffer.from(secret, 'base64').toString()).toMatch(/^[A-Za-z0-9]{16}$/);

  // members 3 -> 5: the StatefulSet scales and every member learns the new seeds.
  apply('mysql', { members: 5 });
  await waitFor(() => statefulSet('mysql').spec.replicas === 5, { what: 'StatefulSet scaled to 5' });
  const agent = statefulSet('mysql').spec.template.spec.containers.find((c) => c.name === 'mysql-agent');
  expect(agent?.env?.find((e) => e.name === 'REPLICATION_GROUP_SEEDS')?.value).toBe(
    [0, 1, 2, 3, 4].map((i) => `mysql-${i}.mysql:13306`).join(','),
  );
  await waitFor(() => readyNow('mysql'), { what: 'Cluster mysql Ready with 5 members', timeoutMs: 120_000 });
  expect(clusterOf('mysql').status).toMatchObject({ members: 5, readyMembers: 5 });

  // 8.0.12 -> 8.0.13: the members roll to the new image; Upgrading until all run it.
  // Every status written, by a watch: the roll of kwok's pods may say Upgrading for less than a poll.
  const written = versions<{ metadata: object; status?: ClusterStatus }>(
    `/apis/mysql.oracle.com/v1alpha1/namespaces/${ns}/mysqlclusters`,
    'mysql',
  );
  try {
    await written.established();
    apply('mysql', { members: 5, version: '8.0.13' });
    await waitFor(() => readyNow('mysql') && clusterOf('mysql').status?.version === '8.0.13', {
      what: 'Cluster mysql upgraded to 8.0.13',
      timeoutMs: 180_000,
    });
  } finally {
    written.stop();
  }
  const reasons = new Set(
    written.all().map((o) => o.status?.conditions?.find((c) => c.type === 'Ready')?.reason),
  );
  expect(reasons).toContain('Upgrading');
  expect(statefulSet('mysql').spec.template.spec.containers[0].image).toBe('mysql/mysql-server:8.0.13');

  // The password stayed through two spec changes, and stays through a restart of the controller.
  expect(password('mysql')).toBe(secret);
  await controller?.stop('SIGTERM');
  await start();
  apply('mysql', { members: 4, version: '8.0.13' });
  await waitFor(() => readyNow('mysql'), {
    what: 'Cluster mysql Ready after the restart',
    timeoutMs: 120_000,
  });
  expect(password('mysql')).toBe(secret);
});

it('refuses a downgrade at admission, naming the field and both versions', () => {
  apply('down', { version: '8.0.13', members: 1 });
  const refused = kubectl(
    [
      'patch',
      'mysqlcluster',
      'down',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { version: '8.0.12' } }),
    ],
    { allowFail: true },
  );
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('spec.version');
  expect(refused.stderr).toContain('unsupported downgrade from 8.0.13 to 8.0.12');
});

it('refuses a version before 8.0.11 and a name longer than 28 characters', () => {
  const old = kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'mysql.oracle.com/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'old', namespace: ns },
      spec: { version: '8.0.10' },
    }),
    allowFail: true,
  });
  expect(old.stderr).toContain('minimum supported MySQL version is 8.0.11');
  const long = kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'mysql.oracle.com/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'a'.repeat(29), namespace: ns },
      spec: {},
    }),
    allowFail: true,
  });
  expect(long.stderr).toContain('at most 28 characters');
});

it('generates no Secret when spec.rootPasswordSecret names the user’s', async () => {
  kubectl(['create', 'secret', 'generic', 'own-pw', '-n', ns, '--from-literal=password=hunter2hunter2']);
  apply('own', { members: 1, rootPasswordSecret: { name: 'own-pw' } });
  await waitFor(() => readyNow('own'), { what: 'Cluster own Ready', timeoutMs: 120_000 });
  expect(exists(['secret', 'own-root-password', '-n', ns])).toBe(false);
  expect(
    getJson<{ status: { createdChildren?: unknown } }>(['mysqlcluster', 'own', '-n', ns]).status
      .createdChildren,
  ).toBeUndefined();
});

it('reports a foreign StatefulSet of its name as ErrResourceExists, and takes over once it is deleted', async () => {
  applyYaml(
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'taken', namespace: ns },
      spec: {
        replicas: 0,
        serviceName: 'taken',
        selector: { matchLabels: { app: 'foreign' } },
        template: {
          metadata: { labels: { app: 'foreign' } },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    }),
  );
  const foreign = statefulSet('taken').metadata.uid;
  apply('taken', { members: 1 });
  await waitFor(() => ready('taken')?.reason === 'ErrResourceExists', { what: 'ErrResourceExists' });
  expect(ready('taken')?.message).toContain(
    `StatefulSet ${ns}/taken already exists and is not managed by Cluster`,
  );
  expect(statefulSet('taken').metadata.uid).toBe(foreign); // untouched
  // Quiet first: the reconciles that its other children's events bring are over.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const deletedAt = Date.now();
  kubectl(['delete', 'statefulset', 'taken', '-n', ns, '--wait=true']);
  await waitFor(() => readyNow('taken'), {
    what: 'Cluster taken Ready after the foreign object went',
    timeoutMs: 60_000,
  });
  // Noticed through the watch on what blocked it, not at the next resync ten minutes later.
  expect(Date.now() - deletedAt).toBeLessThan(30_000);
  expect(statefulSet('taken').metadata.uid).not.toBe(foreign);
});

it('deleting the Cluster removes its children and keeps the data claims', async () => {
  const claim = (name: string) => ({
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  // One member: the StatefulSet makes the next member's claims only once the first one is ready, and no
  // volume ever binds on this cluster (no provisioner), so the first member stays Pending.
  apply('gone', {
    members: 1,
    volumeClaimTemplate: claim('data'),
    backupVolumeClaimTemplate: claim('backup'),
  });
  const claims = ['data-gone-0', 'backup-gone-0'];
  await waitFor(() => claims.every((c) => exists(['pvc', c, '-n', ns])), {
    what: 'the StatefulSet’s claims',
  });
  kubectl(['delete', 'mysqlcluster', 'gone', '-n', ns, '--wait=true']);
  await waitFor(
    () =>
      !exists(['statefulset', 'gone', '-n', ns]) &&
      !exists(['service', 'gone', '-n', ns]) &&
      !exists(['secret', 'gone-root-password', '-n', ns]),
    { what: 'the children garbage-collected', timeoutMs: 60_000 },
  );
  for (const c of claims) expect(`${c}: ${exists(['pvc', c, '-n', ns])}`).toBe(`${c}: true`);
});
