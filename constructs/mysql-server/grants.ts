/**
 * A user's grants as data: the wanted ones normalized, the server's read from its privilege tables
 * (mysql.db, and mysql.user for the global ones), and the GRANT and REVOKE statements that make the
 * second equal the first. Pure: no connection here, so each rule has a table test.
 */
import { checkDatabaseName, grantedDatabase, grantTarget, InvalidNameError, quoteIdentifier } from './names';

/** What a MysqlUser may grant on a database. */
export const PRIVILEGES = [
  'ALL',
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'CREATE',
  'DROP',
  'ALTER',
  'INDEX',
  'REFERENCES',
  'CREATE TEMPORARY TABLES',
  'LOCK TABLES',
  'EXECUTE',
] as const;
export type Privilege = (typeof PRIVILEGES)[number];

/** Privileges on one database (database-level: `ON db.*`). */
export interface Grant {
  readonly database: string;
  readonly privileges: readonly Privilege[];
}

/**
 * A grant the server holds: `privileges` sorted, `ALL` when the user has every database-level privilege
 * (then with `GRANT OPTION` only beside it), names outside PRIVILEGES as the server names them
 * (`CREATE VIEW`, `GRANT OPTION`). `database` is `*` for global privileges (beyond USAGE); `pattern` marks
 * a grant whose database has an unescaped `_` or `%` (it may match other databases: `database` is the
 * pattern as stored).
 */
export interface ObservedGrant {
  readonly database: string;
  readonly privileges: readonly string[];
  readonly pattern?: true;
}

const ALLOWED = new Set<string>(PRIVILEGES);

/**
 * The wanted grants checked (the error names the field) and normalized: one per database (privileges of
 * two for the same database joined), privileges unique and sorted, `ALL` alone when present, none empty;
 * sorted by database.
 */
export function normalizeGrants(grants: readonly Grant[], field = 'grants'): Grant[] {
  const byDatabase = new Map<string, Set<Privilege>>();
  grants.forEach((grant, i) => {
    checkDatabaseName(grant.database, `${field}[${i}].database`);
    if (grant.database === '*') {
      throw new InvalidNameError(`${field}[${i}].database`, '"*" (global privileges) is not a database');
    }
    for (const privilege of grant.privileges) {
      if (!ALLOWED.has(privilege)) {
        throw new InvalidNameError(
          `${field}[${i}].privileges`,
          `${JSON.stringify(privilege)} is not one of ${PRIVILEGES.join(', ')}`,
        );
      }
    }
    const set = byDatabase.get(grant.database) ?? new Set<Privilege>();
    grant.privileges.forEach((p) => set.add(p));
    byDatabase.set(grant.database, set);
  });
  return [...byDatabase]
    .filter(([, set]) => set.size > 0)
    .map(([database, set]) => ({ database, privileges: set.has('ALL') ? ['ALL' as const] : [...set].sort() }))
    .sort((a, b) => compare(a.database, b.database));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Privilege columns whose names do not read as the privilege (`Create_tmp_table_priv`). */
const COLUMN_NAMES: Record<string, string> = {
  Grant_priv: 'GRANT OPTION',
  Create_tmp_table_priv: 'CREATE TEMPORARY TABLES',
  Repl_slave_priv: 'REPLICATION SLAVE',
  Repl_client_priv: 'BINLOG MONITOR',
  Show_db_priv: 'SHOW DATABASES',
};

/** The privilege a `..._priv` column of mysql.db or mysql.user stands for: `Lock_tables_priv` -> `LOCK TABLES`. */
export function privilegeOfColumn(column: string): string {
  return (
    COLUMN_NAMES[column] ??
    column
      .replace(/_priv$/, '')
      .replace(/_/g, ' ')
      .toUpperCase()
  );
}

/**
 * The privileges a row of mysql.db (or mysql.user) gives, normalized: `ALL` when every privilege column
 * but `Grant_priv` is `Y`, else the names of those that are; `GRANT OPTION` beside them when held; sorted.
 */
export function privilegesOfRow(row: Readonly<Record<string, unknown>>): string[] {
  const columns = Object.keys(row).filter((c) => c.endsWith('_priv') && c !== 'Grant_priv');
  const held = columns.filter((c) => row[c] === 'Y');
  const privileges =
    held.length === columns.length && columns.length > 0 ? ['ALL'] : held.map(privilegeOfColumn);
  if (row.Grant_priv === 'Y') privileges.push('GRANT OPTION');
  return privileges.sort(compare);
}

/**
 * The grants the server holds for a user: a row of mysql.db per database (or pattern), and the user's
 * mysql.user row for global privileges (none, USAGE, is not a grant). Sorted by database.
 */
export function observedGrants(
  dbRows: readonly Readonly<Record<string, unknown>>[],
  userRow?: Readonly<Record<string, unknown>>,
): ObservedGrant[] {
  const grants: ObservedGrant[] = [];
  for (const row of dbRows) {
    const privileges = privilegesOfRow(row);
    if (privileges.length === 0) continue;
    const stored = String(row.Db);
    const database = grantedDatabase(stored);
    grants.push(
      database === undefined ? { database: stored, privileges, pattern: true } : { database, privileges },
    );
  }
  if (userRow) {
    const global = privilegesOfRow(userRow);
    if (global.length > 0) grants.push({ database: '*', privileges: global });
  }
  return grants.sort(
    (a, b) => compare(a.database, b.database) || compare(String(a.pattern), String(b.pattern)),
  );
}

const sqlPrivilege = (p: string) => (p === 'ALL' ? 'ALL PRIVILEGES' : p);
const list = (privileges: readonly string[]) => privileges.map(sqlPrivilege).join(', ');

/** Where an observed grant is, in a GRANT or REVOKE: `*.*`, a pattern as stored, or the escaped database. */
function observedTarget(grant: ObservedGrant): string {
  if (grant.database === '*' && !grant.pattern) return '*.*';
  return grant.pattern ? `${quoteIdentifier(grant.database)}.*` : grantTarget(grant.database);
}

/**
 * The statements that give `account` (quoted, `` `name`@`host` ``) exactly the `wanted` grants
 * (normalized) where it holds `observed`: revokes first, then grants. None when they already match.
 */
export function grantStatements(
  account: string,
  wanted: readonly Grant[],
  observed: readonly ObservedGrant[],
): string[] {
  const revokes: string[] = [];
  const grants: string[] = [];
  const revoke = (privileges: readonly string[], target: string) =>
    revokes.push(`REVOKE ${list(privileges)} ON ${target} FROM ${account}`);
  const grant = (privileges: readonly string[], target: string) =>
    grants.push(`GRANT ${list(privileges)} ON ${target} TO ${account}`);

  // All of a grant: ALL PRIVILEGES and GRANT OPTION apart (the server takes them together only without
  // ON), each only when held (a REVOKE of what a database does not have fails).
  const revokeAll = (o: ObservedGrant) => {
    if (o.privileges.some((p) => p !== 'GRANT OPTION')) revoke(['ALL'], observedTarget(o));
    if (o.privileges.includes('GRANT OPTION')) revoke(['GRANT OPTION'], observedTarget(o));
  };

  const held = new Map<string, ObservedGrant>();
  for (const o of observed) {
    if (o.pattern || o.database === '*') revokeAll(o);
    else held.set(o.database, o);
  }
  for (const w of wanted) {
    const target = grantTarget(w.database);
    let has = new Set(held.get(w.database)?.privileges ?? []);
    held.delete(w.database);
    if (w.privileges.includes('ALL')) {
      if (!has.has('ALL')) grant(['ALL'], target);
      if (has.has('GRANT OPTION')) revoke(['GRANT OPTION'], target);
      continue;
    }
    if (has.has('ALL')) {
      revoke(['ALL'], target);
      has = new Set([...has].filter((p) => p !== 'ALL'));
    }
    const extra = [...has].filter((p) => !w.privileges.includes(p as Privilege));
    const missing = w.privileges.filter((p) => !has.has(p));
    if (extra.length > 0) revoke(extra, target);
    if (missing.length > 0) grant(missing, target);
  }
  for (const o of held.values()) revokeAll(o);
  return [...revokes, ...grants];
}

/** Whether the user's grants differ from the wanted ones (normalized): whether applying would change them. */
export function grantsDiffer(wanted: readonly Grant[], observed: readonly ObservedGrant[]): boolean {
  return grantStatements('`-`@`-`', wanted, observed).length > 0;
}
