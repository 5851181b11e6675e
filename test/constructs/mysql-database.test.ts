/**
 * MysqlDatabase: its schema (defaults, an immutable name, a default name the server takes), and its
 * handlers as the controller runs them, on the in-memory cluster with a fake server (test/support/fake-
 * mysql.ts): created, altered, repaired, failures in the kind's words with no password shown, deletion by
 * its policy. Against a real MariaDB: test/controller/mysql-kinds.cluster.test.ts.
 */
import { EXTERNAL_FINALIZER, OBSERVE_INTERVAL_ANNOTATION, SECRET } from '../../constructs';
import { mysqlDatabaseKind } from '../../constructs';
import { validateResource } from '../../constructs/kit/validate';
import { mysqlDatabaseKindOn } from '../../constructs/mysql-database/kind';
import { createLogger } from '../../controller/log';
import { InMemoryCluster } from '../../testing';
import { FakeMysql } from '../support/fake-mysql';

const NS = 'shop';
let server: FakeMysql;
let kind: ReturnType<typeof mysqlDatabaseKindOn>;
let cluster: InMemoryCluster;

beforeEach(() => {
  server = new FakeMysql();
  kind = mysqlDatabaseKindOn(server);
  cluster = new InMemoryCluster([kind]);
  cluster.clock = Date.parse('2026-11-28T08:00:00Z');
  cluster.put(SECRET, server.secret(NS));
});
afterEach(() => cluster.external.stop(0));

const put = (name = 'shop-db', spec: object = {}) =>
  cluster.putResource(kind, name, { serverSecretRef: { name: 'mysql-admin' }, ...spec }, NS);
const converge = (name = 'shop-db') => cluster.converge(kind, NS, name);
const ready = (name = 'shop-db') => cluster.ready(kind, NS, name);
const status = (name = 'shop-db') => cluster.any(kind, NS, name)?.status as { observed?: object };

describe('the schema', () => {
  const resource = (spec: object, name = 'shop-db') => ({
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name, namespace: NS },
    spec: { serverSecretRef: { name: 'mysql-admin' }, ...spec },
  });
  const errors = (spec: object, options: { old?: object; name?: string } = {}) =>
    validateResource(kind.crd, resource(spec, options.name), options).errors.map(
      (e) => `${e.field}: ${e.message}`,
    );

  it('defaults the character set, the collation and the deletion policy', () => {
    expect(put().spec).toEqual({
      serverSecretRef: { name: 'mysql-admin' },
      characterSet: 'utf8mb4',
      collation: 'utf8mb4_unicode_ci',
      deletionPolicy: 'Retain',
    });
  });

  it('keeps the name, given or defaulted, as it was at creation', () => {
    expect(errors({ name: 'orders' }, { old: resource({ name: 'shop' }) })).toEqual([
      'spec.name: Invalid value: name is immutable: a database of another name is another MysqlDatabase',
    ]);
    expect(errors({ name: 'shop_db' }, { old: resource({}) })).toHaveLength(1);
    expect(errors({ collation: 'utf8mb4_bin' }, { old: resource({}) })).toEqual([]);
  });

  it('refuses a name the server cannot take, and a default name that would be one', () => {
    expect(errors({ name: 'a.b' }).join()).toContain('spec.name: Invalid value: "a.b"');
    expect(errors({}, { name: 'shop.db' })).toEqual([
      'spec.name: Invalid value: spec.name is required when metadata.name has a "." (a database name cannot)',
    ]);
    expect(errors({ name: 'shop_db' }, { name: 'shop.db' })).toEqual([]);
    expect(errors({ deletionPolicy: 'Orphan' }).join()).toContain('spec.deletionPolicy: Unsupported value');
  });

  it('has no children, and the real kind loads no database driver until a handler runs', () => {
    expect(mysqlDatabaseKind.children).toEqual([]);
    expect(kind.crd.metadata.name).toBe('mysqldatabases.mysql.reconstruct.dev');
    expect(Object.keys(require.cache).some((m) => m.includes('/node_modules/mysql2/'))).toBe(false);
  });
});

describe('a new MysqlDatabase', () => {
  it('is created with the spec’s settings, named after the resource, and says what the server has', async () => {
    put();
    await converge();
    expect(server.calls).toEqual([
      'observeDatabase shop_db',
      'applyDatabase shop_db',
      'observeDatabase shop_db',
    ]);
    expect(server.databases.get('shop_db')).toEqual({
      name: 'shop_db',
      characterSet: 'utf8mb4',
      collation: 'utf8mb4_unicode_ci',
    });
    expect(ready()).toMatchObject({
      status: 'True',
      reason: 'Ready',
      message: 'MySQL database shop_db is as the spec wants',
    });
    expect(status().observed).toEqual(server.databases.get('shop_db'));
    expect(cluster.any(kind, NS, 'shop-db')?.metadata.finalizers).toEqual([EXTERNAL_FINALIZER]);
  });

  it('takes spec.name, and the port of the Secret', async () => {
    cluster.put(SECRET, server.secret(NS, { ...server.secretData(), port: '' }));
    put('orders', { name: 'Orders-2026' });
    await converge('orders');
    expect([...server.databases.keys()]).toEqual(['Orders-2026']);
  });
});

describe('a MysqlDatabase that exists', () => {
  beforeEach(async () => {
    put();
    await converge();
    server.calls.length = 0;
  });

  it('is altered when its collation changes, saying what differs meanwhile', async () => {
    cluster.setSpec(kind, NS, 'shop-db', {
      serverSecretRef: { name: 'mysql-admin' },
      collation: 'utf8mb4_bin',
    });
    await cluster.reconcile(kind, NS, 'shop-db');
    await cluster.external.idle();
    await cluster.reconcile(kind, NS, 'shop-db');
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Updating',
      message: 'updating MySQL database shop_db: collation: utf8mb4_unicode_ci -> utf8mb4_bin',
    });
    await converge();
    expect(server.databases.get('shop_db')?.collation).toBe('utf8mb4_bin');
    expect(ready()).toMatchObject({ status: 'True' });
  });

  it('is made again when dropped out of band, within its observe interval', async () => {
    cluster.patch(kind, NS, 'shop-db', {
      metadata: { annotations: { [OBSERVE_INTERVAL_ANNOTATION]: '2s' } },
    });
    server.databases.delete('shop_db');
    cluster.clock += 2_000;
    await converge();
    expect(server.writes).toEqual(['applyDatabase shop_db']);
    expect(server.databases.has('shop_db')).toBe(true);
  });

  it('is left on the server when the resource goes (Retain, the default)', async () => {
    cluster.remove(kind, NS, 'shop-db');
    await converge();
    expect(cluster.any(kind, NS, 'shop-db')).toBeUndefined();
    expect(server.writes).toEqual([]);
    expect(server.databases.has('shop_db')).toBe(true);
  });
});

describe('deletionPolicy: Delete', () => {
  it('drops the database, then lets the resource go', async () => {
    put('shop-db', { deletionPolicy: 'Delete' });
    await converge();
    cluster.remove(kind, NS, 'shop-db');
    await converge();
    expect(server.writes).toEqual(['applyDatabase shop_db', 'dropDatabase shop_db']);
    expect(server.databases.size).toBe(0);
    expect(cluster.any(kind, NS, 'shop-db')).toBeUndefined();
  });
});

describe('failures, in the kind’s words', () => {
  it('AccessDenied names the Secret, and no password shows in the condition, the events or the log', async () => {
    const lines: string[] = [];
    cluster.log = createLogger({ write: (line) => lines.push(line), level: 'debug' });
    cluster.put(SECRET, server.secret(NS, server.secretData('wrong-pw-8c1e')));
    put();
    await converge();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'AccessDenied',
      message:
        "Secret shop/mysql-admin: the MySQL server at db.example.com:3306 refused the account: Access denied for user 'admin'@'10.0.0.7' (using password: YES)",
    });
    const said = JSON.stringify([cluster.any(kind, NS, 'shop-db'), cluster.events, lines]);
    expect(said).not.toContain('wrong-pw-8c1e');
  });

  it('ServerUnreachable, retried within 5 s, Ready once the server answers', async () => {
    server.down = true;
    put();
    const { requeueAfterMs } = await converge();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'ServerUnreachable',
      message: 'cannot reach the MySQL server at db.example.com:3306: connect ECONNREFUSED',
    });
    expect(requeueAfterMs).toBeLessThanOrEqual(5_000);
    server.down = false;
    cluster.clock += 5_000;
    await converge();
    expect(ready()).toMatchObject({ status: 'True' });
  });

  it('Invalid: a port in the Secret that is not one', async () => {
    cluster.put(SECRET, server.secret(NS, { ...server.secretData(), port: 'mysql' }));
    put();
    await converge();
    expect(ready()).toMatchObject({
      reason: 'Invalid',
      message: 'Secret shop/mysql-admin: port "mysql" is not a port number',
    });
  });

  it('Invalid: a name the server cannot take; the resource still goes at once', async () => {
    put('emoji', { name: 'shop_\u{1F600}' });
    await converge('emoji');
    expect(ready('emoji')).toMatchObject({ reason: 'Invalid' });
    expect(ready('emoji')?.message).toContain('has a character outside U+0001 to U+FFFF');
    // Nothing can exist under such a name: the resource goes at once.
    cluster.remove(kind, NS, 'emoji');
    await converge('emoji');
    expect(cluster.any(kind, NS, 'emoji')).toBeUndefined();
  });

  it('MissingSecret while the server Secret is not there', async () => {
    cluster.remove(SECRET, NS, 'mysql-admin');
    put();
    await converge();
    expect(ready()).toMatchObject({
      reason: 'MissingSecret',
      message: 'Secret shop/mysql-admin does not exist',
    });
  });
});
