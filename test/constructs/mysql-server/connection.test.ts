/** Driver errors as reasons, and no secret in what is left of them. */
import {
  classifyError,
  isDriverError,
  MysqlServerError,
  redact,
} from '../../../constructs/mysql-server/connection';

/** An error shaped as mysql2 makes them. */
function driverError(fields: {
  code: string;
  errno?: number;
  sqlMessage?: string;
  sql?: string;
  fatal?: boolean;
}) {
  return Object.assign(new Error(fields.sqlMessage ?? `connect ${fields.code}`), {
    sqlState: undefined,
    ...fields,
  });
}
const SERVER = { host: 'db.example', port: 3306 };

describe('classifyError', () => {
  it.each([
    ['ECONNREFUSED', 'ServerUnreachable'],
    ['ETIMEDOUT', 'ServerUnreachable'],
    ['EHOSTUNREACH', 'ServerUnreachable'],
    ['ENOTFOUND', 'ServerUnreachable'],
    ['PROTOCOL_CONNECTION_LOST', 'ServerUnreachable'],
  ])('%s -> %s', (code, reason) => {
    const e = classifyError(driverError({ code, fatal: true }), SERVER);
    expect(e).toBeInstanceOf(MysqlServerError);
    expect(e.reason).toBe(reason);
    expect(e.code).toBe(code);
    expect(e.message).toBe(`cannot reach the MySQL server at db.example:3306: connect ${code}`);
  });

  it.each([
    ['ER_ACCESS_DENIED_ERROR', 1045, "Access denied for user 'admin'@'10.0.0.1' (using password: YES)"],
    ['ER_DBACCESS_DENIED_ERROR', 1044, "Access denied for user 'admin'@'%' to database 'app'"],
    [
      'ER_SPECIFIC_ACCESS_DENIED_ERROR',
      1227,
      'Access denied; you need (at least one of) the CREATE USER privilege(s)',
    ],
    ['ER_UNKNOWN_NAME_FOR_MARIADB', 1045, 'Access denied'],
  ])('%s -> AccessDenied, in the server words', (code, errno, sqlMessage) => {
    const e = classifyError(driverError({ code, errno, sqlMessage, fatal: true }), SERVER);
    expect(e.reason).toBe('AccessDenied');
    expect(e.message).toBe(`the MySQL server at db.example:3306 refused the account: ${sqlMessage}`);
  });

  it('takes any other refusal as Invalid, with the server message and not the statement', () => {
    const e = classifyError(
      Object.assign(
        driverError({
          code: 'ER_UNKNOWN_CHARACTER_SET',
          errno: 1115,
          sqlMessage: "Unknown character set: 'nope'",
          sql: 'CREATE DATABASE `x` CHARACTER SET nope',
        }),
        { sqlState: '42000' },
      ),
    );
    expect(e.reason).toBe('Invalid');
    expect(e.message).toBe("the MySQL server refused: Unknown character set: 'nope'");
    expect(JSON.stringify({ ...e })).not.toContain('CREATE DATABASE');
  });

  it('passes a MysqlServerError through', () => {
    const waiting = new MysqlServerError('Waiting', 'database "a" does not exist yet');
    expect(classifyError(waiting)).toBe(waiting);
  });

  it('redacts the secrets from the server message, as written and as escaped into SQL', () => {
    const secret = "pa'ss\\word";
    const sqlMessage = `You have an error in your SQL syntax near 'pa\\'ss\\\\word' at line 1 (${secret})`;
    const e = classifyError(
      Object.assign(driverError({ code: 'ER_PARSE_ERROR', errno: 1064, sqlMessage }), { sqlState: '42000' }),
      SERVER,
      [secret],
    );
    expect(e.message).toBe(
      "the MySQL server at db.example:3306 refused: You have an error in your SQL syntax near '***' at line 1 (***)",
    );
  });
});

describe('redact and isDriverError', () => {
  it('leave what holds no secret, and ignore an empty secret', () => {
    expect(redact('nothing here', ['', 'secret'])).toBe('nothing here');
    expect(redact('a secret and a secret', ['secret'])).toBe('a *** and a ***');
  });
  it('tell a driver error from a bug', () => {
    expect(isDriverError(driverError({ code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDriverError(new TypeError('x is undefined'))).toBe(false);
  });
});
