/**
 * Names in SQL text: what the server can take, checked before any statement is sent (the error names the
 * field), and quoted so that no name can end a statement. Values (passwords, names compared in a WHERE)
 * go as placeholders, never through these.
 */

/** A name the server cannot take, or one that is not what the field allows. */
export class InvalidNameError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'InvalidNameError';
  }
}

/** Outside the Basic Multilingual Plane: the server's identifiers are UCS-2 (U+0001 to U+FFFF). */
const ASTRAL = /[\uD800-\uDFFF]/;

/** Checks what every identifier shares: not empty, within `max` characters, no NUL, BMP characters only. */
function checkIdentifier(field: string, value: string, max: number): void {
  if (typeof value !== 'string' || value === '') throw new InvalidNameError(field, 'must not be empty');
  if (value.length > max)
    throw new InvalidNameError(field, `${JSON.stringify(value)} is longer than ${max} characters`);
  if (value.includes('\0'))
    throw new InvalidNameError(field, `${JSON.stringify(value)} contains a NUL character`);
  if (ASTRAL.test(value)) {
    throw new InvalidNameError(field, `${JSON.stringify(value)} has a character outside U+0001 to U+FFFF`);
  }
}

/**
 * A database name: at most 64 characters, none of `/`, `\`, `.` (the server keeps a database as a
 * directory), no trailing space.
 */
export function checkDatabaseName(value: string, field = 'database'): void {
  checkIdentifier(field, value, 64);
  if (/[/\\.]/.test(value))
    throw new InvalidNameError(field, `${JSON.stringify(value)} contains "/", "\\" or "."`);
  if (value.endsWith(' ')) throw new InvalidNameError(field, `${JSON.stringify(value)} ends with a space`);
}

/** A user name: at most 80 characters (MariaDB's limit), not empty (the empty name is the anonymous user). */
export function checkUserName(value: string, field = 'name'): void {
  checkIdentifier(field, value, 80);
}

/** A user's host: a host name, an address or a pattern with `%` and `_`, at most 255 characters. */
export function checkHost(value: string, field = 'host'): void {
  checkIdentifier(field, value, 255);
}

/** A character set or collation name: letters, digits and `_` (`utf8mb4`, `utf8mb4_unicode_ci`). */
export function checkCharsetName(value: string, field: string): void {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(value)) {
    throw new InvalidNameError(field, `${JSON.stringify(value)} is not a character set or collation name`);
  }
}

/** An identifier in backticks, a backtick in it doubled: `` a`b `` -> `` `a``b` ``. */
export function quoteIdentifier(value: string): string {
  return '`' + value.replace(/`/g, '``') + '`';
}

/** An account, `` `name`@`host` ``, each part checked and quoted. */
export function quoteAccount(user: { name: string; host: string }): string {
  checkUserName(user.name);
  checkHost(user.host);
  return `${quoteIdentifier(user.name)}@${quoteIdentifier(user.host)}`;
}

/**
 * The database of a database-level GRANT or REVOKE, `` `app\_db`.* ``: in a grant `_` and `%` are
 * wildcards, so a grant on `app_db` would also grant on `app1db`; escaped, it names that database only.
 */
export function grantTarget(database: string): string {
  checkDatabaseName(database);
  return `${quoteIdentifier(escapeGrantPattern(database))}.*`;
}

/** A database name as a grant stores it: `_` and `%` escaped with a backslash. */
export function escapeGrantPattern(database: string): string {
  return database.replace(/[_%]/g, (c) => `\\${c}`);
}

/**
 * The database a stored grant names (mysql.db's `Db`): the literal name when every `_` and `%` in it is
 * escaped, undefined when it is a pattern (an unescaped wildcard: it may match other databases too).
 */
export function grantedDatabase(stored: string): string | undefined {
  let name = '';
  for (let i = 0; i < stored.length; i++) {
    const c = stored[i];
    if (c === '\\' && i + 1 < stored.length) {
      name += stored[++i];
    } else if (c === '_' || c === '%') {
      return undefined;
    } else {
      name += c;
    }
  }
  return name;
}
