/**
 * A MySQL server in memory, for the unit tests of the MysqlDatabase and MysqlUser kinds: the server
 * operations their handlers call (ServerOperations), on maps, with the server layer's own name checks and
 * grant normalization, and its failures as it says them (MysqlServerError). Every call is recorded; `down`
 * makes the server unreachable; an account other than the admin's is refused. Tests change the maps out of
 * band as an operator's SQL would.
 */
import type { KubeObject } from '../../constructs/kit';
import type { ObservedDatabase } from '../../constructs/mysql-server/databases';
import { MysqlServerError } from '../../constructs/mysql-server/errors';
import { normalizeGrants, type Grant, type ObservedGrant } from '../../constructs/mysql-server/grants';
import { checkDatabaseName, checkHost, checkUserName } from '../../constructs/mysql-server/names';
import type { ServerOperations } from '../../constructs/mysql-server/operations';
import type { ServerConnection } from '../../constructs/mysql-server/connection';
import type { ObservedUser, UserAccount, WantedUser } from '../../constructs/mysql-server/users';

export interface FakeUser {
  password: string;
  grants: ObservedGrant[];
}

export class FakeMysql implements ServerOperations {
  readonly databases = new Map<string, ObservedDatabase>();
  /** By `name@host`. */
  readonly users = new Map<string, FakeUser>();
  /** `observeUser app@%`, one per call, in order. */
  readonly calls: string[] = [];
  /** The admin account's password: any other is refused. */
  adminPassword = 'admin-pw';
  /** Unreachable while true. */
  down = false;

  constructor(readonly host = 'db.example.com') {}

  /** What a server Secret holds for the admin account. */
  secretData(password = this.adminPassword): Record<string, string> {
    return { host: this.host, port: '3306', username: 'admin', password };
  }

  /** The server Secret `mysql-admin` in `namespace`, with `data` (by default the admin account's). */
  secret(namespace: string, data = this.secretData()): KubeObject {
    const encoded = Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]);
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'mysql-admin', namespace },
      data: Object.fromEntries(encoded),
    };
  }

  private enter(call: string, server: ServerConnection): void {
    this.calls.push(call);
    const where = `${server.host}:${server.port}`;
    if (this.down || server.host !== this.host) {
      throw new MysqlServerError(
        'ServerUnreachable',
        `cannot reach the MySQL server at ${where}: connect ECONNREFUSED`,
      );
    }
    if (server.password !== this.adminPassword) {
      throw new MysqlServerError(
        'AccessDenied',
        `the MySQL server at ${where} refused the account: Access denied for user '${server.username}'@'10.0.0.7' (using password: YES)`,
      );
    }
  }

  get writes(): string[] {
    return this.calls.filter((c) => !c.startsWith('observe'));
  }

  readonly observeDatabase: ServerOperations['observeDatabase'] = (server, name) => {
    checkDatabaseName(name, 'name');
    this.enter(`observeDatabase ${name}`, server);
    return Promise.resolve(this.databases.get(name));
  };

  readonly applyDatabase: ServerOperations['applyDatabase'] = (server, wanted) => {
    checkDatabaseName(wanted.name, 'name');
    this.enter(`applyDatabase ${wanted.name}`, server);
    this.databases.set(wanted.name, { ...wanted });
    return Promise.resolve({ ...wanted });
  };

  readonly dropDatabase: ServerOperations['dropDatabase'] = (server, name) => {
    this.enter(`dropDatabase ${name}`, server);
    this.databases.delete(name);
    return Promise.resolve();
  };

  readonly observeUser: ServerOperations['observeUser'] = (server, user) => {
    checkUserName(user.name);
    checkHost(user.host);
    this.enter(`observeUser ${user.name}@${user.host}`, server);
    return Promise.resolve(this.observed(user, user.password));
  };

  readonly applyUser: ServerOperations['applyUser'] = (server, wanted: WantedUser) => {
    checkUserName(wanted.name);
    const grants = normalizeGrants(wanted.grants);
    this.enter(`applyUser ${wanted.name}@${wanted.host}`, server);
    const missing = grants.map((g) => g.database).filter((d) => !this.databases.has(d));
    if (missing.length > 0) {
      throw new MysqlServerError('Waiting', `database ${JSON.stringify(missing[0])} does not exist yet`);
    }
    this.users.set(`${wanted.name}@${wanted.host}`, { password: wanted.password, grants: held(grants) });
    return Promise.resolve(this.observed(wanted, wanted.password)!);
  };

  readonly dropUser: ServerOperations['dropUser'] = (server, user) => {
    this.enter(`dropUser ${user.name}@${user.host}`, server);
    this.users.delete(`${user.name}@${user.host}`);
    return Promise.resolve();
  };

  private observed(account: UserAccount, password?: string): ObservedUser | undefined {
    const user = this.users.get(`${account.name}@${account.host}`);
    if (!user) return undefined;
    const grants = structuredClone(user.grants);
    const matches = password === undefined ? {} : { passwordMatches: user.password === password };
    return { name: account.name, host: account.host, grants, ...matches };
  }
}

/** Grants as the server holds them once given. */
export const held = (grants: readonly Grant[]): ObservedGrant[] =>
  grants.map((g) => ({ database: g.database, privileges: [...g.privileges] }));
