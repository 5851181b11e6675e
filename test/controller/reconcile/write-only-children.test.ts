/**
 * A MySQL Cluster through the reconciler, in memory: its root password Secret is a child of a write-only
 * kind (created, never read: the controller may not read Secrets), and its Ready condition says Creating,
 * Scaling or Upgrading. The harness refuses any read of a write-only kind, so each case also proves that
 * the controller never looks at a Secret.
 */
import {
  SECRET,
  STATEFUL_SET,
  mysqlClusterKind,
  type KubeObject,
  type MysqlClusterSpec,
} from '../../../constructs';
import { PROGRESS_WRITE_DELAY_MS } from '../../../controller/reconcile/status';
import { AdmissionError, InMemoryCluster, type Write } from '../../../testing';

const NS = 'db';
const SECRET_NAME = 'mysql-root-password';
let cluster: InMemoryCluster;

beforeEach(() => {
  cluster = new InMemoryCluster([mysqlClusterKind]);
  cluster.clock = Date.parse('2026-11-24T00:00:00Z');
});

const reconcile = () => cluster.reconcile(mysqlClusterKind, NS, 'mysql');
const writes = () => cluster.takeWrites().map((w: Write) => `${w.verb} ${w.kind}/${w.name}`);
const password = () =>
  (cluster.any(SECRET, NS, SECRET_NAME)?.stringData as { password?: string } | undefined)?.password;
const status = () =>
  cluster.any(mysqlClusterKind, NS, 'mysql')?.status as {
    createdChildren?: { kind: string; name: string; uid: string }[];
    version?: string;
    members?: number;
    readyMembers?: number;
  };
const ready = () => cluster.ready(mysqlClusterKind, NS, 'mysql');
const create = (spec: MysqlClusterSpec = {}) => cluster.putResource(mysqlClusterKind, 'mysql', spec, NS);
const statefulSet = () =>
  cluster.any(STATEFUL_SET, NS, 'mysql') as KubeObject & {
    spec: {
      replicas: number;
      template: {
        spec: { containers: { name: string; image: string; env?: { name: string; value?: string }[] }[] };
      };
    };
  };

/** The StatefulSet controller's report: `ready` of `replicas` members, `updated` at the latest revision. */
function members(replicas: number, ready: number, updated = ready) {
  const generation = (statefulSet().metadata.generation ?? 0) + 1;
  cluster.patch(STATEFUL_SET, NS, 'mysql', {
    metadata: { generation },
    status: {
      observedGeneration: generation,
      replicas,
      readyReplicas: ready,
      updatedReplicas: updated,
      currentRevision: updated === replicas ? 'rev-new' : 'rev-old',
      updateRevision: 'rev-new',
    },
  });
}

describe('the generated root password Secret', () => {
  it('is created with a 16-character password, recorded by uid, beside the Service and StatefulSet', async () => {
    create();
    await reconcile();
    expect(writes().sort()).toEqual([
      'apply Service/mysql',
      'apply StatefulSet/mysql',
      'create Secret/mysql-root-password',
      'status Cluster/mysql',
    ]);
    expect(password()).toMatch(/^[A-Za-z0-9]{16}$/);
    const uid = cluster.any(SECRET, NS, SECRET_NAME)?.metadata.uid;
    expect(status().createdChildren).toEqual([{ apiVersion: 'v1', kind: 'Secret', name: SECRET_NAME, uid }]);
    // A new resource's children are said by its status, not by an event.
    expect(cluster.events).toEqual([]);
  });

  it('is left alone by later reconciles: no request at all', async () => {
    create();
    await reconcile();
    writes();
    await reconcile();
    expect(writes()).toEqual([]);
  });

  it('stays ours when the cache shows a status from before it was recorded', async () => {
    create();
    await reconcile();
    const recorded = status().createdChildren;
    // The watch has not brought our status write back yet: the reconcile a child's event brings sees none.
    cluster.patch(mysqlClusterKind, NS, 'mysql', { status: { createdChildren: null } });
    cluster.clock += 600_000; // and it is time to check that the Secret is still there
    await reconcile();
    expect(ready()?.reason).not.toBe('ErrResourceExists');
    expect(status().createdChildren).toEqual(recorded);
  });

  it('keeps its password across a spec change and a controller restart', async () => {
    create();
    await reconcile();
    const first = password();
    cluster.setSpec(mysqlClusterKind, NS, 'mysql', { members: 5 });
    await reconcile();
    cluster.restart();
    await reconcile();
    expect(password()).toBe(first);
    // The restarted controller learned it still exists by a creation the API server refused.
    expect(writes()).toContain('create Secret/mysql-root-password');
    expect(cluster.events.filter((e) => e.reason === 'Created')).toEqual([]); // nothing was made again
  });

  it('is created again, with a new password, when it was deleted, at the next check', async () => {
    create();
    await reconcile();
    const first = password();
    cluster.remove(SECRET, NS, SECRET_NAME);
    writes();
    await reconcile();
    expect(writes()).toEqual([]); // within ten minutes of the last check, not looked for
    cluster.clock += 600_000;
    await reconcile();
    expect(writes()).toEqual(['create Secret/mysql-root-password', 'status Cluster/mysql']);
    expect(password()).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(password()).not.toBe(first);
    expect(status().createdChildren?.[0].uid).toBe(cluster.any(SECRET, NS, SECRET_NAME)?.metadata.uid);
    // Made again for a resource that has a status: news, an event.
    expect(cluster.events).toEqual([
      expect.objectContaining({ reason: 'Created', message: 'Created Secret mysql-root-password' }),
    ]);
  });

  it('brings its Ready resource back when it is due to be looked for, whatever the resync period', async () => {
    create();
    await reconcile();
    members(3, 3);
    // Ready: nothing else would bring it back before the next resync.
    expect(await reconcile()).toEqual({ requeueAfterMs: 600_000 });
    cluster.clock += 240_000;
    writes();
    // A reconcile in between (a StatefulSet event) does not look for it: its check stays due at 600 s.
    expect(await reconcile()).toEqual({ requeueAfterMs: 360_000 });
    expect(writes()).toEqual([]);
    cluster.clock += 360_000;
    expect(await reconcile()).toEqual({ requeueAfterMs: 600_000 });
    expect(writes()).toEqual(['create Secret/mysql-root-password']); // refused: it is still there
  });

  it('asks for no visit once the resource has none', async () => {
    create();
    await reconcile();
    cluster.setSpec(mysqlClusterKind, NS, 'mysql', { rootPasswordSecret: { name: 'mine' } });
    await reconcile(); // deletes the generated Secret
    expect(status().createdChildren).toBeUndefined();
    members(3, 3);
    expect(await reconcile()).toEqual({});
  });

  it('is never made when spec.rootPasswordSecret names the user’s', async () => {
    create({ rootPasswordSecret: { name: 'mine' } });
    await reconcile();
    expect(writes().sort()).toEqual([
      'apply Service/mysql',
      'apply StatefulSet/mysql',
      'status Cluster/mysql',
    ]);
    expect(cluster.any(SECRET, NS, SECRET_NAME)).toBeUndefined();
  });

  it('is deleted, by its uid, once the spec names the user’s instead', async () => {
    create();
    await reconcile();
    writes();
    cluster.setSpec(mysqlClusterKind, NS, 'mysql', { rootPasswordSecret: { name: 'mine' } });
    await reconcile();
    expect(writes()).toEqual([
      'apply StatefulSet/mysql',
      'delete Secret/mysql-root-password',
      'status Cluster/mysql',
    ]);
    expect(cluster.any(SECRET, NS, SECRET_NAME)).toBeUndefined();
    expect(status().createdChildren).toBeUndefined();
    await reconcile();
    expect(writes()).toEqual([]); // not deleted again and again
  });

  it('of the same name but made by someone else is neither used as ours nor deleted: ErrResourceExists', async () => {
    cluster.put(SECRET, { apiVersion: 'v1', kind: 'Secret', metadata: { name: SECRET_NAME, namespace: NS } });
    create();
    await reconcile();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'ErrResourceExists',
      message: expect.stringContaining(
        `Secret ${NS}/${SECRET_NAME} already exists and is not managed by Cluster`,
      ) as string,
    });
    expect(status().createdChildren).toBeUndefined();
    // Switching to the user's Secret does not delete the foreign one: it was never recorded as ours.
    cluster.setSpec(mysqlClusterKind, NS, 'mysql', { rootPasswordSecret: { name: 'mine' } });
    await reconcile();
    expect(cluster.any(SECRET, NS, SECRET_NAME)).toBeDefined();
  });
});

describe('admission, as the API server does it', () => {
  it('refuses a downgrade of spec.version, naming the field and both versions', () => {
    create({ version: '8.0.13' });
    expect(() => cluster.setSpec(mysqlClusterKind, NS, 'mysql', { version: '8.0.12' })).toThrow(
      new AdmissionError('Cluster "mysql"', [
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.12": unsupported downgrade from 8.0.13 to 8.0.12',
        },
      ]),
    );
    expect(() => cluster.setSpec(mysqlClusterKind, NS, 'mysql', { version: '8.0.14' })).not.toThrow();
  });

  it('refuses a version before 8.0.11 and more than 9 members', () => {
    expect(() => create({ version: '8.0.9', members: 10 })).toThrow(
      /spec.members: Invalid value: 10: InnoDB clustering supports between 1-9 members/,
    );
    expect(() => create({ version: '8.0.9' })).toThrow(
      'spec.version: Invalid value: "8.0.9": minimum supported MySQL version is 8.0.11',
    );
  });
});

describe('Ready', () => {
  it('says Creating until every member is ready, then Ready with the version every member runs', async () => {
    create();
    await reconcile();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Creating',
      message: expect.stringMatching(/^0 of 3 members ready/) as string,
    });
    members(3, 2);
    // Progress only (still Creating): held back a second, to go out with the next steps in one write.
    expect(await reconcile()).toEqual({ requeueAfterMs: PROGRESS_WRITE_DELAY_MS });
    expect(ready()?.message).toMatch(/^0 of 3 members ready/);
    cluster.clock += PROGRESS_WRITE_DELAY_MS;
    await reconcile();
    expect(ready()).toMatchObject({
      reason: 'Creating',
      message: expect.stringMatching(/^2 of 3 members ready/) as string,
    });
    expect(status().version).toBeUndefined();
    members(3, 3);
    await reconcile();
    expect(ready()).toMatchObject({
      status: 'True',
      reason: 'Ready',
      message: '3 of 3 members ready, running MySQL 8.0.12',
    });
    expect(status()).toMatchObject({ version: '8.0.12', members: 3, readyMembers: 3 });
  });

  it('says Scaling while members join, and rewrites the seeds', async () => {
    create();
    await reconcile();
    members(3, 3);
    await reconcile();
    cluster.setSpec(mysqlClusterKind, NS, 'mysql', { members: 5 });
    await reconcile();
    expect(statefulSet().spec.replicas).toBe(5);
    const agent = statefulSet().spec.template.spec.containers.find((c) => c.name === 'mysql-agent');
    expect(agent?.env?.find((e) => e.name === 'REPLICATION_GROUP_SEEDS')?.value).toBe(
      [0, 1, 2, 3, 4].map((i) => `mysql-${i}.mysql:13306`).join(','),
    );
    members(4, 3, 3);
    await reconcile();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Scaling',
      message: expect.stringMatching(/^3 of 5 members ready/) as string,
    });
    members(5, 5);
    await reconcile();
    expect(ready()).toMatchObject({ status: 'True', message: '5 of 5 members ready, running MySQL 8.0.12' });
  });

  it('says Upgrading while members roll to a new version, and reports it once all run it', async () => {
    create();
    await reconcile();
    members(3, 3);
    await reconcile();
    cluster.setSpec(mysqlClusterKind, NS, 'mysql', { version: '8.0.13' });
    await reconcile();
    expect(statefulSet().spec.template.spec.containers[0].image).toBe('mysql/mysql-server:8.0.13');
    members(3, 3, 1);
    await reconcile();
    cluster.clock += PROGRESS_WRITE_DELAY_MS; // the progress write held back
    await reconcile();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Upgrading',
      message: '1 of 3 members run MySQL 8.0.13 (from 8.0.12)',
    });
    expect(status().version).toBe('8.0.12');
    members(3, 3);
    await reconcile();
    expect(ready()).toMatchObject({ status: 'True', message: '3 of 3 members ready, running MySQL 8.0.13' });
    expect(status().version).toBe('8.0.13');
  });
});
