/**
 * The MysqlDatabase and MysqlUser server layer against a real MariaDB server (demo/mariadb.ts):
 * no Kubernetes, but a server, so it runs in the cluster project (CI installs MariaDB first). Changes made
 * out of band go through the admin account's own connection (`server.sql`), as an operator would make them.
 */
import { createServer, type Server } from 'node:net';
import { inspect } from 'node:util';
import { createConnection } from 'mysql2/promise';
import {
  applyDatabase,
  applyUser,
  dropDatabase,
  dropUser,
  InvalidNameError,
  MysqlServerError,
  observeDatabase,
  observeUser,
  type ServerConnection,
} from '../../../constructs/mysql-server/server';
import { nativePasswordHash } from '../../../constructs/mysql-server/users';
import { MARIADB_START_TIMEOUT, type MariadbServer, startMariadb } from '../../../demo/mariadb';

jest.setTimeout(60_000);

let server: MariadbServer;
beforeAll(async () => {
  server = await startMariadb();
}, MARIADB_START_TIMEOUT);
afterAll(() => server?.destroy());

const UTF8 = { characterSet: 'utf8mb4', collation: 'utf8mb4_unicode_ci' };

/** Whether `username` can log in with `password` (and so use what it was granted). */
async function canLogin(username: string, password: string): Promise<boolean> {
  try {
    const connection = await createConnection({
      host: server.host,
      port: server.port,
      user: username,
      password,
    });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

/** The rejection of `promise` (failing when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** Everything an error could show a log: its message, stack, own fields and how Node prints it. */
const everything = (error: Error) =>
  [error.message, error.stack, JSON.stringify({ ...error }), inspect(error, { depth: 5 })].join('\n');

describe('databases', () => {
  it('creates a database with its character set and collation, alters it, drops it', async () => {
    expect(await observeDatabase(server, 'shop_db')).toBeUndefined();

    const created = await applyDatabase(server, {
      name: 'shop_db',
      characterSet: 'latin1',
      collation: 'latin1_swedish_ci',
    });
    expect(created).toEqual({ name: 'shop_db', characterSet: 'latin1', collation: 'latin1_swedish_ci' });
    expect(await observeDatabase(server, 'shop_db')).toEqual(created);

    const altered = await applyDatabase(server, { name: 'shop_db', ...UTF8 });
    expect(altered).toEqual({ name: 'shop_db', ...UTF8 });
    const [row] = await server.sql<{ c: string }[]>(
      'SELECT DEFAULT_COLLATION_NAME AS c FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      ['shop_db'],
    );
    expect(row.c).toBe('utf8mb4_unicode_ci');
    // Applying again changes nothing.
    expect(await applyDatabase(server, { name: 'shop_db', ...UTF8 })).toEqual(altered);

    await dropDatabase(server, 'shop_db');
    expect(await observeDatabase(server, 'shop_db')).toBeUndefined();
    await dropDatabase(server, 'shop_db');
  });

  it('takes a name that needs quoting, and sees no other database by another case', async () => {
    const name = 'odd`name-1';
    await applyDatabase(server, { name, ...UTF8 });
    expect(await observeDatabase(server, name)).toEqual({ name, ...UTF8 });
    expect(await observeDatabase(server, 'ODD`NAME-1')).toBeUndefined();
    await dropDatabase(server, name);
  });

  it('takes the refusal of an unknown character set or a mismatched collation as Invalid', async () => {
    const unknown = await rejection(
      applyDatabase(server, { name: 'x', characterSet: 'nope', collation: 'nope_ci' }),
    );
    expect(unknown).toMatchObject({ reason: 'Invalid' });
    expect(unknown.message).toMatch(/Unknown character set: 'nope'/);
    const mismatch = await rejection(
      applyDatabase(server, { name: 'x', characterSet: 'latin1', collation: 'utf8mb4_bin' }),
    );
    expect(mismatch).toMatchObject({ reason: 'Invalid' });
    expect(mismatch.message).toMatch(/COLLATION 'utf8mb4_bin' is not valid for CHARACTER SET 'latin1'/);
  });
});

describe('users', () => {
  const password = 'Xy7-first-secret-9qRt';
  beforeAll(async () => {
    for (const name of ['app_db', 'app1db', 'reports']) await applyDatabase(server, { name, ...UTF8 });
  });
  afterEach(() => dropUser(server, { name: 'app', host: '%' }));

  it('creates a user with exactly its grants, on the database named and no other', async () => {
    const user = await applyUser(server, {
      name: 'app',
      host: '%',
      password,
      grants: [
        { database: 'reports', privileges: ['SELECT'] },
        { database: 'app_db', privileges: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] },
      ],
    });
    const grants = [
      { database: 'app_db', privileges: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'] },
      { database: 'reports', privileges: ['SELECT'] },
    ];
    expect(user).toEqual({ name: 'app', host: '%', grants, passwordMatches: true });
    expect(await observeUser(server, { name: 'app', host: '%' })).toEqual({ name: 'app', host: '%', grants });
    expect(await canLogin('app', password)).toBe(true);

    // `_` is a wildcard in a grant: escaped, the grant on app_db does not reach app1db.
    const shown = await server.sql<Record<string, string>[]>("SHOW GRANTS FOR 'app'@'%'");
    expect(shown.map((r) => Object.values(r)[0]).join('\n')).toContain('ON `app\\_db`.*');
    const asApp = await createConnection({ host: server.host, port: server.port, user: 'app', password });
    try {
      await expect(asApp.query('CREATE TABLE app1db.t (i INT)')).rejects.toThrow(/denied to user 'app'/);
    } finally {
      await asApp.end();
    }
  });

  it('changes grants, ALL and back; sees a grant revoked out of band and grants it again', async () => {
    const base = { name: 'app', host: '%', password };
    await applyUser(server, { ...base, grants: [{ database: 'app_db', privileges: ['SELECT'] }] });

    const all = await applyUser(server, { ...base, grants: [{ database: 'app_db', privileges: ['ALL'] }] });
    expect(all.grants).toEqual([{ database: 'app_db', privileges: ['ALL'] }]);

    const fewer = await applyUser(server, {
      ...base,
      grants: [{ database: 'app_db', privileges: ['SELECT', 'CREATE TEMPORARY TABLES', 'LOCK TABLES'] }],
    });
    expect(fewer.grants).toEqual([
      { database: 'app_db', privileges: ['CREATE TEMPORARY TABLES', 'LOCK TABLES', 'SELECT'] },
    ]);

    await server.sql("REVOKE LOCK TABLES ON `app\\_db`.* FROM 'app'@'%'");
    expect((await observeUser(server, { name: 'app', host: '%' }))?.grants).toEqual([
      { database: 'app_db', privileges: ['CREATE TEMPORARY TABLES', 'SELECT'] },
    ]);
    const again = await applyUser(server, {
      ...base,
      grants: [{ database: 'app_db', privileges: ['SELECT', 'CREATE TEMPORARY TABLES', 'LOCK TABLES'] }],
    });
    expect(again.grants).toEqual(fewer.grants);
  });

  it('revokes what was granted out of band: another privilege, a database, a pattern, global privileges', async () => {
    const wanted = {
      name: 'app',
      host: '%',
      password,
      grants: [{ database: 'app_db', privileges: ['SELECT' as const] }],
    };
    await applyUser(server, wanted);
    await server.sql("GRANT DELETE ON `app\\_db`.* TO 'app'@'%'");
    await server.sql("GRANT SELECT ON reports.* TO 'app'@'%' WITH GRANT OPTION");
    await server.sql("GRANT SELECT ON `app_%`.* TO 'app'@'%'");
    await server.sql("GRANT PROCESS, SELECT ON *.* TO 'app'@'%'");
    expect((await observeUser(server, { name: 'app', host: '%' }))?.grants).toEqual([
      { database: '*', privileges: ['PROCESS', 'SELECT'] },
      { database: 'app_%', privileges: ['SELECT'], pattern: true },
      { database: 'app_db', privileges: ['DELETE', 'SELECT'] },
      { database: 'reports', privileges: ['GRANT OPTION', 'SELECT'] },
    ]);

    const user = await applyUser(server, wanted);
    expect(user.grants).toEqual([{ database: 'app_db', privileges: ['SELECT'] }]);
    const shown = await server.sql<Record<string, string>[]>("SHOW GRANTS FOR 'app'@'%'");
    expect(shown.map((r) => Object.values(r)[0].replace(/ IDENTIFIED BY PASSWORD '[^']*'/, ''))).toEqual([
      'GRANT USAGE ON *.* TO `app`@`%`',
      'GRANT SELECT ON `app\\_db`.* TO `app`@`%`',
    ]);
  });

  it('tells whether the password is a given one, and sets it when it is not', async () => {
    const base = { name: 'app', host: '%', grants: [] };
    await applyUser(server, { ...base, password });
    expect(await observeUser(server, { name: 'app', host: '%', password })).toMatchObject({
      passwordMatches: true,
    });
    expect(await observeUser(server, { name: 'app', host: '%', password: 'another' })).toMatchObject({
      passwordMatches: false,
    });

    // Changed out of band: seen, and set back.
    await server.sql("SET PASSWORD FOR 'app'@'%' = PASSWORD('changed-by-hand')");
    expect(await observeUser(server, { name: 'app', host: '%', password })).toMatchObject({
      passwordMatches: false,
    });
    expect(await canLogin('app', password)).toBe(false);
    expect(await applyUser(server, { ...base, password })).toMatchObject({ passwordMatches: true });
    expect(await canLogin('app', password)).toBe(true);

    // A new password.
    expect(await applyUser(server, { ...base, password: 'Second-secret-4411' })).toMatchObject({
      passwordMatches: true,
    });
    expect(await canLogin('app', 'Second-secret-4411')).toBe(true);
    expect(await canLogin('app', password)).toBe(false);
  });

  it('sees a user dropped out of band as missing, makes it again, and drops it', async () => {
    const wanted = {
      name: 'app',
      host: '%',
      password,
      grants: [{ database: 'reports', privileges: ['SELECT' as const] }],
    };
    await applyUser(server, wanted);
    await server.sql("DROP USER 'app'@'%'");
    expect(await observeUser(server, { name: 'app', host: '%', password })).toBeUndefined();

    expect((await applyUser(server, wanted)).grants).toEqual([
      { database: 'reports', privileges: ['SELECT'] },
    ]);
    await dropUser(server, { name: 'app', host: '%' });
    expect(await observeUser(server, { name: 'app', host: '%' })).toBeUndefined();
    expect(await canLogin('app', password)).toBe(false);
    await dropUser(server, { name: 'app', host: '%' });
  });

  it('finds a user whatever the case of its host (the server keeps it in lower case)', async () => {
    const user = { name: 'app', host: 'Clients.Example', password, grants: [] };
    try {
      expect(await applyUser(server, user)).toEqual({
        name: 'app',
        host: 'Clients.Example',
        grants: [],
        passwordMatches: true,
      });
      expect(await observeUser(server, { name: 'app', host: 'clients.example' })).toMatchObject({
        grants: [],
      });
    } finally {
      await dropUser(server, user);
    }
    expect(await observeUser(server, user)).toBeUndefined();
  });

  it('waits, changing nothing, while a database it grants on does not exist', async () => {
    const error = await rejection(
      applyUser(server, {
        name: 'app',
        host: '%',
        password,
        grants: [
          { database: 'reports', privileges: ['SELECT'] },
          { database: 'not_yet', privileges: ['SELECT'] },
        ],
      }),
    );
    expect(error).toBeInstanceOf(MysqlServerError);
    expect(error).toMatchObject({ reason: 'Waiting', message: 'database "not_yet" does not exist yet' });
    expect(await observeUser(server, { name: 'app', host: '%' })).toBeUndefined();
  });

  it('refuses a bad name before it sends anything, naming the field', async () => {
    const unreachable = { ...server, port: 1 };
    await expect(observeDatabase(unreachable, 'a/b')).rejects.toThrow(InvalidNameError);
    await expect(observeDatabase(unreachable, 'a/b')).rejects.toThrow('name: "a/b" contains "/"');
    await expect(
      applyUser(unreachable, {
        name: 'app',
        host: '%',
        password,
        grants: [{ database: 'x'.repeat(65), privileges: ['SELECT'] }],
      }),
    ).rejects.toThrow('grants[0].database: ');
    await expect(dropUser(unreachable, { name: '', host: '%' })).rejects.toThrow('name: must not be empty');
  });
});

describe('failures', () => {
  it('takes a wrong admin password as AccessDenied, and the password is nowhere in the error', async () => {
    const wrong = { ...server, password: 'Wrong-admin-Pass-5521' };
    const error = await rejection(observeDatabase(wrong, 'reports'));
    expect(error).toMatchObject({ reason: 'AccessDenied', code: 'ER_ACCESS_DENIED_ERROR' });
    expect(error.message).toMatch(/Access denied for user 'reconstruct_admin'/);
    for (const secret of ['Wrong-admin-Pass-5521', server.password])
      expect(everything(error)).not.toContain(secret);
  });

  it('never shows a password set in a statement the server refuses', async () => {
    // An account that may read the privilege tables but not create users.
    await server.sql("CREATE USER 'reader'@'%' IDENTIFIED BY 'Reader-pass-88'");
    await server.sql("GRANT SELECT ON *.* TO 'reader'@'%'");
    const reader: ServerConnection = { ...server, username: 'reader', password: 'Reader-pass-88' };
    const secret = 'Never-Shown-Secret-7731';
    try {
      const error = await rejection(
        applyUser(reader, { name: 'victim', host: '%', password: secret, grants: [] }),
      );
      expect(error).toMatchObject({ reason: 'AccessDenied' });
      for (const text of [secret, nativePasswordHash(secret), 'Reader-pass-88', 'IDENTIFIED']) {
        expect(everything(error)).not.toContain(text);
      }
    } finally {
      await server.sql("DROP USER 'reader'@'%'");
    }
  });

  it('reports a stopped server as ServerUnreachable, and works again once it is back', async () => {
    await applyDatabase(server, { name: 'outage', ...UTF8 });
    await server.stop();
    try {
      const error = await rejection(observeDatabase(server, 'outage'));
      expect(error).toMatchObject({ reason: 'ServerUnreachable', code: 'ECONNREFUSED' });
      expect(error.message).toContain(`cannot reach the MySQL server at 127.0.0.1:${server.port}`);
      expect(everything(error)).not.toContain(server.password);
    } finally {
      await server.start();
    }
    expect(await observeDatabase(server, 'outage')).toEqual({ name: 'outage', ...UTF8 });
  });

  describe('against a server that accepts and never answers', () => {
    let silent: Server;
    let port: number;
    beforeAll(async () => {
      silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      port = (silent.address() as { port: number }).port;
    });
    afterAll(() => new Promise((resolve) => silent.close(resolve)));
    const at = () => ({ host: '127.0.0.1', port, username: 'x', password: 'Silent-secret' });

    it('gives up after the connect timeout, as ServerUnreachable', async () => {
      const started = Date.now();
      const error = await rejection(observeDatabase(at(), 'db', { connectTimeoutMs: 300 }));
      expect(error).toMatchObject({ reason: 'ServerUnreachable', code: 'ETIMEDOUT' });
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('stops waiting when the signal aborts, with its reason', async () => {
      const controller = new AbortController();
      const reason = new Error('the reconcile was cancelled');
      setTimeout(() => controller.abort(reason), 200);
      const started = Date.now();
      const error = await rejection(observeDatabase(at(), 'db', { signal: controller.signal }));
      expect(error).toBe(reason);
      expect(Date.now() - started).toBeLessThan(4000);
      await expect(observeDatabase(at(), 'db', { signal: controller.signal })).rejects.toBe(reason);
    });
  });
});
