/**
 * MysqlUser: its schema, its construct (the password Secret, generated once by the controller), what it
 * says differs, and its handlers as the controller runs them, on the in-memory cluster with a fake server
 * (test/support/fake-mysql.ts): the user made with the generated password and exactly its grants, grants
 * changed and repaired, Waiting for a database, dropped with the resource. Against a real MariaDB:
 * test/controller/mysql-kinds.cluster.test.ts.
 */
import { App, Chart } from 'cdk8s';
import {
  CREATE_ONLY_ANNOTATION,
  GENERATE_ANNOTATION,
  REQUESTED_AT_ANNOTATION,
  SECRET,
  isWriteOnly,
  synthesize,
  type KubeObject,
} from '../../constructs';
import { MysqlUser, mysqlUserKind } from '../../constructs';
import { validateResource } from '../../constructs/kit/validate';
import { mysqlUserKindOn, userDifferences, type DesiredUser } from '../../constructs/mysql-user/kind';
import { InMemoryCluster } from '../../testing';
import { FakeMysql } from '../support/fake-mysql';

const NS = 'shop';
let server: FakeMysql;
let kind: ReturnType<typeof mysqlUserKindOn>;
let cluster: InMemoryCluster;

const decoded = (obj?: KubeObject) =>
  Object.fromEntries(
    Object.entries((obj as { data?: Record<string, string> } | undefined)?.data ?? {}).map(([k, v]) => [
      k,
      Buffer.from(v, 'base64').toString(),
    ]),
  );

beforeEach(() => {
  server = new FakeMysql();
  server.databases.set('shop', { name: 'shop', characterSet: 'utf8mb4', collation: 'utf8mb4_unicode_ci' });
  kind = mysqlUserKindOn(server);
  cluster = new InMemoryCluster([kind]);
  cluster.clock = Date.parse('2026-11-28T08:00:00Z');
  cluster.put(SECRET, server.secret(NS));
});
afterEach(() => cluster.external.stop(0));

const READ_WRITE = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;
const spec = (more: object = {}) => ({
  serverSecretRef: { name: 'mysql-admin' },
  grants: [{ database: 'shop', privileges: [...READ_WRITE] }],
  ...more,
});
const put = (more: object = {}) => cluster.putResource(kind, 'shop-app', spec(more), NS);
const converge = () => cluster.converge(kind, NS, 'shop-app');
const ready = () => cluster.ready(kind, NS, 'shop-app');
const passwordSecret = (name = 'shop-app-mysql') => decoded(cluster.any(SECRET, NS, name));

describe('the schema', () => {
  const resource = (s: object) => ({
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name: 'shop-app', namespace: NS },
    spec: { serverSecretRef: { name: 'mysql-admin' }, ...s },
  });
  const errors = (s: object, old?: object) =>
    validateResource(kind.crd, resource(s), old ? { old: resource(old) } : {}).errors.map(
      (e) => `${e.field}: ${e.message}`,
    );

  it('defaults the host to any host and the grants to none', () => {
    expect(cluster.putResource(kind, 'plain', { serverSecretRef: { name: 'a' } }, NS).spec).toEqual({
      serverSecretRef: { name: 'a' },
      host: '%',
      grants: [],
    });
  });

  it('keeps the name and the host as they were at creation; the grants may change', () => {
    expect(errors({ name: 'other' }, {})).toEqual([
      'spec.name: Invalid value: name is immutable: a user of another name is another MysqlUser',
    ]);
    expect(errors({ host: '10.%' }, { host: '%' })).toHaveLength(1);
    expect(errors({ grants: [] }, { grants: [{ database: 'shop', privileges: ['ALL'] }] })).toEqual([]);
  });

  it('takes only the privileges it knows, each once, and one grant per database', () => {
    expect(errors({ grants: [{ database: 'shop', privileges: ['SUPER'] }] }).join()).toContain(
      'spec.grants[0].privileges[0]: Unsupported value: "SUPER"',
    );
    expect(errors({ grants: [{ database: 'shop', privileges: ['SELECT', 'SELECT'] }] }).join()).toContain(
      'spec.grants[0].privileges[1]: Duplicate value: "SELECT"',
    );
    const twice = [
      { database: 'shop', privileges: ['SELECT'] },
      { database: 'shop', privileges: ['INSERT'] },
    ];
    expect(errors({ grants: twice }).join()).toContain('spec.grants[1]: Duplicate value');
  });
});

describe('the construct', () => {
  it('makes the credentials Secret, create-only, its password generated (24 characters) by the controller', () => {
    const chart = new Chart(new App(), 'test');
    const inputs = { host: 'db.example.net', port: '3307' };
    const user = new MysqlUser(chart, 'user', { name: 'shop-app', spec: spec(), inputs });
    const [secret] = chart.toJson() as object[];
    expect(secret).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'shop-app-mysql',
        annotations: expect.objectContaining({
          [CREATE_ONLY_ANNOTATION]: 'true',
          [GENERATE_ANNOTATION]: '/stringData/password=alphanumeric(24)',
        }) as object,
      },
      type: 'Opaque',
      stringData: { username: 'shop-app', host: 'db.example.net', port: '3307', database: 'shop' },
    });
    expect(user.passwordSecret.name).toBe('shop-app-mysql');
  });

  it('names the Secret and the user as the spec says; no database key without a grant', () => {
    const resource = {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      metadata: { name: 'shop-app', namespace: NS },
      spec: spec({ name: 'app_rw', passwordSecretName: 'app-credentials', grants: [] }),
    };
    const inputs = { host: 'db', port: '3306' };
    const [secret] = synthesize(mysqlUserKind, resource, { inputs }) as (KubeObject & {
      stringData: object;
    })[];
    expect(secret.metadata.name).toBe('app-credentials');
    expect(secret.stringData).toEqual({ username: 'app_rw', host: 'db', port: '3306' });
  });

  it('is a write-only child: the controller creates it and never lists or watches Secrets', () => {
    expect(mysqlUserKind.children).toHaveLength(1);
    expect(isWriteOnly(mysqlUserKind.children[0])).toBe(true);
  });
});

describe('what differs', () => {
  const desired: DesiredUser = {
    name: 'app',
    host: '%',
    grants: [
      { database: 'app', privileges: ['INSERT', 'SELECT'] },
      { database: 'logs', privileges: ['ALL'] },
    ],
  };
  const observed = (grants: { database: string; privileges: string[]; pattern?: true }[], same = true) => ({
    name: 'app',
    host: '%',
    grants,
    passwordMatches: same,
  });

  it('says nothing when the user is as wanted', () => {
    const o = observed([
      { database: 'app', privileges: ['INSERT', 'SELECT'] },
      { database: 'logs', privileges: ['ALL'] },
    ]);
    expect(userDifferences(desired, o)).toEqual([]);
  });

  it('says each database whose privileges differ, extra grants, and that the password differs without it', () => {
    const o = observed(
      [
        { database: '*', privileges: ['SELECT'] },
        { database: 'app', privileges: ['SELECT'] },
        { database: 'app_%', privileges: ['SELECT'], pattern: true },
        { database: 'logs', privileges: ['ALL', 'GRANT OPTION'] },
        { database: 'old', privileges: ['ALL'] },
      ],
      false,
    );
    expect(userDifferences(desired, o)).toEqual([
      'grants on app: SELECT -> INSERT, SELECT',
      'grants on logs: ALL, GRANT OPTION -> ALL',
      'grants on old: ALL -> (none)',
      'grants on *.*: SELECT -> (none)',
      'grants on app_% (a pattern): SELECT -> (none)',
      'password: differs',
    ]);
  });
});

describe('a new MysqlUser', () => {
  it('gets its password Secret first, then the user with that password and exactly its grants', async () => {
    put();
    await converge();
    const secret = passwordSecret();
    // Where to connect, as the server Secret says (inputs), beside the credentials.
    expect(secret).toEqual({
      username: 'shop-app',
      host: 'db.example.com',
      port: '3306',
      database: 'shop',
      password: expect.any(String) as string,
    });
    expect(secret.password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(server.calls).toEqual([
      'observeUser shop-app@%',
      'applyUser shop-app@%',
      'observeUser shop-app@%',
    ]);
    expect(server.users.get('shop-app@%')).toEqual({
      password: secret.password,
      grants: [{ database: 'shop', privileges: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'] }],
    });
    expect(ready()).toMatchObject({
      status: 'True',
      message: 'MySQL user shop-app@% is as the spec wants; its password is in Secret shop-app-mysql',
    });
    expect(JSON.stringify([cluster.any(kind, NS, 'shop-app'), cluster.events])).not.toContain(
      secret.password,
    );
  });

  it('waits, Ready=False Waiting, while a database it is granted on does not exist, looking again within 5 s', async () => {
    put({ grants: [{ database: 'orders', privileges: ['SELECT'] }] });
    const { requeueAfterMs } = await converge();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Waiting',
      message: 'database "orders" does not exist yet',
    });
    expect(requeueAfterMs).toBeLessThanOrEqual(5_000);
    server.databases.set('orders', { name: 'orders', characterSet: 'utf8mb4', collation: 'utf8mb4_bin' });
    cluster.clock += 5_000;
    await converge();
    expect(ready()).toMatchObject({ status: 'True' });
  });

  it('Invalid, naming the field, for a grant on a database the server cannot name; deleted all the same', async () => {
    put({ grants: [{ database: 'db\u{1F600}', privileges: ['SELECT'] }] });
    await converge();
    expect(ready()).toMatchObject({ status: 'False', reason: 'Invalid' });
    expect(ready()?.message).toContain('grants[0].database: "db\u{1F600}" has a character outside');
    // Deleted once the backoff lets it observe: there is no such user to drop.
    cluster.remove(kind, NS, 'shop-app');
    cluster.clock += 5_000;
    await converge();
    expect(server.writes).toEqual([]);
    expect(cluster.any(kind, NS, 'shop-app')).toBeUndefined();
  });
});

describe('a MysqlUser that exists', () => {
  beforeEach(async () => {
    put();
    await converge();
    server.calls.length = 0;
  });

  it('gets the grants of its new spec', async () => {
    cluster.setSpec(kind, NS, 'shop-app', spec({ grants: [{ database: 'shop', privileges: ['SELECT'] }] }));
    await cluster.reconcile(kind, NS, 'shop-app');
    await cluster.external.idle();
    await cluster.reconcile(kind, NS, 'shop-app');
    expect(ready()).toMatchObject({
      reason: 'Updating',
      message: 'updating MySQL user shop-app@%: grants on shop: DELETE, INSERT, SELECT, UPDATE -> SELECT',
    });
    await converge();
    expect(server.users.get('shop-app@%')?.grants).toEqual([{ database: 'shop', privileges: ['SELECT'] }]);
  });

  it('has a grant made out of band revoked, and its password set back, on a reconcile now', async () => {
    const user = server.users.get('shop-app@%')!;
    user.grants.push({ database: 'mysql', privileges: ['ALL'] });
    user.password = 'changed-by-hand';
    cluster.patch(kind, NS, 'shop-app', { metadata: { annotations: { [REQUESTED_AT_ANNOTATION]: '1' } } });
    await converge();
    expect(server.writes).toEqual(['applyUser shop-app@%']);
    expect(server.users.get('shop-app@%')).toEqual({
      password: passwordSecret().password,
      grants: [{ database: 'shop', privileges: ['DELETE', 'INSERT', 'SELECT', 'UPDATE'] }],
    });
  });

  it('is dropped when the resource goes', async () => {
    cluster.remove(kind, NS, 'shop-app');
    await converge();
    expect(server.writes).toEqual(['dropUser shop-app@%']);
    expect(server.users.size).toBe(0);
    expect(cluster.any(kind, NS, 'shop-app')).toBeUndefined();
  });
});
