/**
 * MysqlDatabase and MysqlUser as a user runs them: the real controller (with the install's derived RBAC:
 * the Secrets read by name) against a real MariaDB server (demo/mariadb.ts, on 127.0.0.1, which
 * the controller on this machine reaches), checked with kubectl and with SQL as the server's admin. The
 * resources observe every 2 s (`reconstruct.dev/observe-interval`) so that drift shows quickly.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { OBSERVE_INTERVAL_ANNOTATION } from '../../constructs';
import { startController, type RunningController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  kubectl,
  readyCondition,
  waitFor,
} from '../support/kubectl';
import { MARIADB_START_TIMEOUT, startMariadb, type MariadbServer } from '../../demo/mariadb';

jest.setTimeout(120_000);

const CLI = join(__dirname, '../../dist/cli/main.js');
const API = 'mysql.reconstruct.dev/v1alpha1';
let server: MariadbServer;
let ns: string;
let controller: RunningController;

const secret = (name: string, data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, stringData: data });
const resource = (kind: string, name: string, spec: object, serverSecret = 'mysql-admin') =>
  JSON.stringify({
    apiVersion: API,
    kind,
    metadata: { name, namespace: ns, annotations: { [OBSERVE_INTERVAL_ANNOTATION]: '2s' } },
    spec: { serverSecretRef: { name: serverSecret }, ...spec },
  });

beforeAll(async () => {
  server = await startMariadb();
  ns = createNamespace('mysql');
  const { host, port, username, password } = server;
  applyYaml(secret('mysql-admin', { host, port: String(port), username, password }));
  controller = await startController(['--namespaces', ns]);
}, MARIADB_START_TIMEOUT + 60_000);

afterAll(async () => {
  // The resources go while the controller and the server run: their finalizers would hold the namespace.
  if (ns && controller) {
    await server?.start();
    kubectl(['delete', 'mysqlusers,mysqldatabases', '--all', '-n', ns, '--timeout=60s'], { allowFail: true });
  }
  await controller?.stop();
  if (ns) deleteNamespace(ns);
  await server?.destroy();
}, 120_000);

const ready = (kind: string, name: string) => readyCondition(kind, name, ns);
/** Waits until Ready has `status` (and `reason`), returning the condition. */
const becomes = (kind: string, name: string, status: string, reason?: string, timeoutMs = 60_000) =>
  waitFor(
    () => {
      const c = ready(kind, name);
      return c?.status === status && (reason === undefined || c.reason === reason) ? c : undefined;
    },
    { what: `${kind}/${name} Ready=${status} ${reason ?? ''}`, timeoutMs },
  );

/** The user's grants as SHOW GRANTS says them, but for USAGE: `SELECT, INSERT ON `shop`.*`. */
async function grants(user: string): Promise<string[]> {
  const rows = await server.sql<Record<string, string>[]>('SHOW GRANTS FOR ?@?', [user, '%']);
  return rows
    .map((r) => Object.values(r)[0])
    .filter((g) => !g.startsWith('GRANT USAGE'))
    .map((g) => g.replace(/^GRANT (.*) TO .*$/, '$1'));
}
const userExists = async (user: string) =>
  (await server.sql<unknown[]>('SELECT 1 FROM mysql.user WHERE User = ?', [user])).length > 0;
const databaseExists = async (name: string) =>
  (await server.sql<unknown[]>('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]))
    .length > 0;
/** The password Secret's keys, decoded (the tests' own kubectl is the admin's). */
const passwordSecret = (name: string) =>
  Object.fromEntries(
    Object.entries(getJson<{ data: Record<string, string> }>(['secret', name, '-n', ns]).data).map(
      ([k, v]) => [k, Buffer.from(v, 'base64').toString()],
    ),
  );
async function logsIn(user: string, password: string, database: string): Promise<boolean> {
  const { host, port } = server;
  try {
    const connection = await createConnection({ host, port, user, password, database });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

describe('a database and a user', () => {
  it('are made: the database as the spec says, the user with the generated password and its grants', async () => {
    applyYaml(resource('MysqlDatabase', 'shop', {}));
    applyYaml(
      resource('MysqlUser', 'shop-app', { grants: [{ database: 'shop', privileges: ['SELECT', 'INSERT'] }] }),
    );
    await becomes('mysqldatabase', 'shop', 'True');
    expect(ready('mysqldatabase', 'shop')?.message).toBe('MySQL database shop is as the spec wants');
    expect(
      getJson<{ status: { observed: object } }>(['mysqldatabase', 'shop', '-n', ns]).status.observed,
    ).toEqual({
      name: 'shop',
      characterSet: 'utf8mb4',
      collation: 'utf8mb4_unicode_ci',
    });
    await becomes('mysqluser', 'shop-app', 'True');
    expect(await grants('shop-app')).toEqual(['SELECT, INSERT ON `shop`.*']);
    const credentials = passwordSecret('shop-app-mysql');
    // All an application needs: where the server is (its Secret's host and port, inputs), and who it is.
    expect(Object.keys(credentials).sort()).toEqual(['database', 'host', 'password', 'port', 'username']);
    expect(credentials).toMatchObject({
      username: 'shop-app',
      database: 'shop',
      host: server.host,
      port: String(server.port),
    });
    expect(credentials.password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(await logsIn('shop-app', credentials.password, 'shop')).toBe(true);
    // A normal creation fails nothing on the way (the password Secret is there before the user is made).
    expect(controller.logs.filter((l) => l.includes('external work failed'))).toEqual([]);
  });

  it('a user granted on a database not made yet waits for it (Waiting), then is made', async () => {
    applyYaml(
      resource('MysqlUser', 'reports', { grants: [{ database: 'reports', privileges: ['SELECT'] }] }),
    );
    const waiting = await becomes('mysqluser', 'reports', 'False', 'Waiting');
    expect(waiting.message).toBe('database "reports" does not exist yet');
    applyYaml(resource('MysqlDatabase', 'reports', { deletionPolicy: 'Delete' }));
    await becomes('mysqluser', 'reports', 'True', undefined, 30_000);
    expect(await grants('reports')).toEqual(['SELECT ON `reports`.*']);
  });

  it('gets the grants of a changed spec', async () => {
    kubectl([
      'patch',
      'mysqluser',
      'shop-app',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      JSON.stringify({
        spec: { grants: [{ database: 'shop', privileges: ['SELECT'] }] },
      }),
    ]);
    await waitFor(async () => (await grants('shop-app')).join() === 'SELECT ON `shop`.*', {
      what: 'the grants to become SELECT',
    });
    await becomes('mysqluser', 'shop-app', 'True');
  });
});

describe('drift made out of band', () => {
  it('is repaired within the observe interval: a grant revoked, a grant added, the user dropped', async () => {
    await server.sql("REVOKE SELECT ON `shop`.* FROM 'shop-app'@'%'");
    await server.sql("GRANT DROP ON `reports`.* TO 'shop-app'@'%'");
    await waitFor(async () => (await grants('shop-app')).join() === 'SELECT ON `shop`.*', {
      what: 'the grants repaired',
      timeoutMs: 20_000,
    });
    await server.sql("DROP USER 'shop-app'@'%'");
    await waitFor(() => userExists('shop-app'), { what: 'the user made again', timeoutMs: 20_000 });
    await becomes('mysqluser', 'shop-app', 'True');
    expect(await logsIn('shop-app', passwordSecret('shop-app-mysql').password, 'shop')).toBe(true);
  });

  it('is repaired at once on a reconcile now, whatever the interval', async () => {
    kubectl([
      'annotate',
      'mysqluser',
      'shop-app',
      '-n',
      ns,
      '--overwrite',
      `${OBSERVE_INTERVAL_ANNOTATION}=1h`,
    ]);
    await becomes('mysqluser', 'shop-app', 'True');
    await server.sql("REVOKE SELECT ON `shop`.* FROM 'shop-app'@'%'");
    const run = spawnSync(process.execPath, [CLI, 'reconcile', 'mysqluser/shop-app', '-n', ns], {
      encoding: 'utf8',
    });
    expect([run.status, run.stderr]).toEqual([0, '']);
    await waitFor(async () => (await grants('shop-app')).join() === 'SELECT ON `shop`.*', {
      what: 'the grants repaired on a reconcile now',
      timeoutMs: 20_000,
    });
    kubectl([
      'annotate',
      'mysqluser',
      'shop-app',
      '-n',
      ns,
      '--overwrite',
      `${OBSERVE_INTERVAL_ANNOTATION}=2s`,
    ]);
  });
});

describe('failures', () => {
  it('a server that stops: ServerUnreachable, then Ready again within the backoff once it is back', async () => {
    await server.stop();
    const down = await becomes('mysqluser', 'shop-app', 'False', 'ServerUnreachable', 30_000);
    expect(down.message).toContain(`cannot reach the MySQL server at 127.0.0.1:${server.port}`);
    await becomes('mysqldatabase', 'shop', 'False', 'ServerUnreachable', 30_000);
    await server.start();
    const back = Date.now();
    await becomes('mysqluser', 'shop-app', 'True', undefined, 60_000);
    await becomes('mysqldatabase', 'shop', 'True', undefined, 60_000);
    // At most two failures in a row while it was down: a retry within 10 s, and a moment to do it.
    expect(Date.now() - back).toBeLessThan(25_000);
  });

  it('a refused admin password: AccessDenied naming the Secret, and no password anywhere', async () => {
    const wrong = `wrong-${Math.random().toString(36).slice(2, 12)}`;
    const { host, port, username } = server;
    applyYaml(secret('bad-admin', { host, port: String(port), username, password: wrong }));
    applyYaml(resource('MysqlDatabase', 'denied', {}, 'bad-admin'));
    const denied = await becomes('mysqldatabase', 'denied', 'False', 'AccessDenied');
    expect(denied.message).toContain(`Secret ${ns}/bad-admin: the MySQL server at ${host}:${port} refused`);
    expect(denied.message).toContain(`Access denied for user '${username}'`);
    const generated = passwordSecret('shop-app-mysql').password;
    const everything = [
      controller.logs.join('\n'),
      kubectl(['get', 'events', '-n', ns, '-o', 'json']).stdout,
      kubectl(['get', 'mysqldatabases,mysqlusers', '-n', ns, '-o', 'json']).stdout,
    ].join('\n');
    for (const password of [wrong, server.password, generated]) expect(everything).not.toContain(password);
    // Retained (the default policy): it goes at once, though its account is refused.
    kubectl(['delete', 'mysqldatabase', 'denied', '-n', ns, '--timeout=30s']);
  });
});

describe('deletion', () => {
  it('drops the user', async () => {
    kubectl(['delete', 'mysqluser', 'shop-app', '-n', ns, '--timeout=60s']);
    expect(await userExists('shop-app')).toBe(false);
  });

  it('drops the database only with deletionPolicy Delete', async () => {
    kubectl(['delete', 'mysqluser', 'reports', '-n', ns, '--timeout=60s']);
    kubectl(['delete', 'mysqldatabase', 'shop', 'reports', '-n', ns, '--timeout=60s']);
    expect(exists(['mysqldatabase', 'shop', '-n', ns])).toBe(false);
    expect(await databaseExists('shop')).toBe(true);
    expect(await databaseExists('reports')).toBe(false);
  });
});
