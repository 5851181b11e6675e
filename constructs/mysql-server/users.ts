/**
 * A MysqlUser on the server: read it (its grants, whether its password is a given one), create or change
 * it to match, drop it.
 *
 * The password never goes to the server: the account is set with its mysql_native_password hash
 * (`IDENTIFIED BY PASSWORD '*…'`), and the check compares that hash, computed here, with the one the
 * server stores. Neither appears in an error (both are redacted from what the server says).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  MysqlServerError,
  type OperationOptions,
  type ServerConnection,
  type Session,
  withSession,
} from './connection';
import { type Grant, grantStatements, normalizeGrants, type ObservedGrant, observedGrants } from './grants';
import { checkHost, checkUserName, quoteAccount } from './names';

/** An account: `name`@`host` (`host` may be a pattern, `%` any host). */
export interface UserAccount {
  readonly name: string;
  readonly host: string;
}

/** A user as wanted: its password and exactly these grants. */
export interface WantedUser extends UserAccount {
  readonly password: string;
  readonly grants: readonly Grant[];
}

/** A user as the server has it (`name` and `host` as asked: the server keeps `host` in lower case). */
export interface ObservedUser extends UserAccount {
  /** Sorted by database; see ObservedGrant. */
  readonly grants: readonly ObservedGrant[];
  /** Whether the password is the one asked about (observeUser's `password`); absent when none was asked. */
  readonly passwordMatches?: boolean;
}

/** MariaDB's mysql_native_password hash, `PASSWORD()`'s: `*` and the upper-case hex of SHA1(SHA1(password)). */
export function nativePasswordHash(password: string): string {
  const once = createHash('sha1').update(password, 'utf8').digest();
  return `*${createHash('sha1').update(once).digest('hex').toUpperCase()}`;
}

function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password === '') {
    throw new MysqlServerError('Invalid', 'password: must be a non-empty string');
  }
}

function checkAccount(user: UserAccount): void {
  checkUserName(user.name);
  checkHost(user.host);
}

async function readUser(
  session: Session,
  user: UserAccount,
  password?: string,
): Promise<ObservedUser | undefined> {
  // The server keeps a host in lower case (host names know no case) and looks it up so.
  const key = [user.name, user.host.toLowerCase()];
  const [row] = await session.rows('SELECT * FROM mysql.user WHERE User = ? AND Host = ?', key);
  if (!row) return undefined;
  const dbRows = await session.rows('SELECT * FROM mysql.db WHERE User = ? AND Host = ?', key);
  const observed = { name: user.name, host: user.host, grants: observedGrants(dbRows, row) };
  if (password === undefined) return observed;
  return { ...observed, passwordMatches: storedHashMatches(row, password) };
}

/** Whether a mysql.user row's credential is `password`, by its mysql_native_password hash. */
function storedHashMatches(row: Readonly<Record<string, unknown>>, password: string): boolean {
  if (row.plugin !== 'mysql_native_password' && row.plugin !== '') return false;
  const stored = Buffer.from(
    typeof row.authentication_string === 'string' ? row.authentication_string.toUpperCase() : '',
  );
  const wanted = Buffer.from(nativePasswordHash(password));
  return stored.length === wanted.length && timingSafeEqual(stored, wanted);
}

/**
 * The user `name`@`host` and its grants, or undefined when there is none; with `password`, also whether
 * that is its password. Reads only.
 */
export async function observeUser(
  server: ServerConnection,
  user: UserAccount & { readonly password?: string },
  options?: OperationOptions,
): Promise<ObservedUser | undefined> {
  checkAccount(user);
  if (user.password !== undefined) checkPassword(user.password);
  return withSession(server, (session) => readUser(session, user, user.password), options);
}

/**
 * Creates the user, or sets its password where it differs, and gives it exactly the wanted grants
 * (revoking any other, global ones included); resolves what the server then has. Rejects with reason
 * `Waiting`, changing nothing, while a database a grant names does not exist.
 */
export async function applyUser(
  server: ServerConnection,
  wanted: WantedUser,
  options?: OperationOptions,
): Promise<ObservedUser> {
  const account = quoteAccount(wanted);
  checkPassword(wanted.password);
  const grants = normalizeGrants(wanted.grants);
  const hash = nativePasswordHash(wanted.password);
  const secrets = [wanted.password, hash];
  return withSession(
    server,
    async (session) => {
      await checkDatabasesExist(session, grants);
      const observed = await readUser(session, wanted, wanted.password);
      if (!observed) {
        await session.run(`CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY PASSWORD ?`, [hash], secrets);
      } else if (!observed.passwordMatches) {
        await session.run(`ALTER USER ${account} IDENTIFIED BY PASSWORD ?`, [hash], secrets);
      }
      for (const statement of grantStatements(account, grants, observed?.grants ?? [])) {
        await session.run(statement);
      }
      const now = await readUser(session, wanted, wanted.password);
      if (!now) throw new MysqlServerError('Invalid', `user ${account} was dropped as it was made`);
      return now;
    },
    options,
  );
}

/** Rejects with reason `Waiting`, naming them, while databases the grants name do not exist. */
async function checkDatabasesExist(session: Session, grants: readonly Grant[]): Promise<void> {
  if (grants.length === 0) return;
  const names = grants.map((g) => g.database);
  const rows = await session.rows(
    `SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (${names.map(() => '?').join(', ')})`,
    names,
  );
  const present = new Set(rows.map((r) => r.name));
  const missing = names.filter((n) => !present.has(n));
  if (missing.length > 0) {
    const quoted = missing.map((n) => JSON.stringify(n)).join(', ');
    throw new MysqlServerError(
      'Waiting',
      `${missing.length === 1 ? 'database' : 'databases'} ${quoted} ${missing.length === 1 ? 'does' : 'do'} not exist yet`,
    );
  }
}

/** Drops the user (its grants go with it); nothing when there is none. */
export async function dropUser(
  server: ServerConnection,
  user: UserAccount,
  options?: OperationOptions,
): Promise<void> {
  const account = quoteAccount(user);
  await withSession(server, (session) => session.run(`DROP USER IF EXISTS ${account}`), options);
}
