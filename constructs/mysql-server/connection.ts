/**
 * One connection per operation: opened with a short connect timeout, closed when the operation ends,
 * dropped at once when the caller's AbortSignal aborts. Operations are rare (a reconcile, an observe
 * interval), the account comes from a Secret that may change between two of them, and a server that went
 * away leaves no pooled socket behind: a handshake per operation (milliseconds) is cheaper than a pool's
 * staleness and its key (which would have to hold the password).
 *
 * Every driver error leaves here as a MysqlServerError: a reason the kinds' Ready condition takes, and a
 * message with no SQL text and no secret in it (the driver's errors carry the statement, values
 * interpolated; a statement that sets a password must not reach a log through one).
 */
import { createConnection, type Connection, type QueryError } from 'mysql2';
import { isMysqlServerError, MysqlServerError } from './errors';

export { isMysqlServerError, MysqlServerError, type ServerReason } from './errors';

/** Where the server is and the account that manages it (the Secret `spec.serverSecretRef` names). */
export interface ServerConnection {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
}

export interface OperationOptions {
  /** Stops waiting (the connection is dropped) when it aborts; the operation rejects with its reason. */
  readonly signal?: AbortSignal;
  /** @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Per statement. @default 30000 */
  readonly statementTimeoutMs?: number;
}

/** Network and server-going-away failures: the server may answer later. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_HOST_IS_BLOCKED',
  'ER_CONNECTION_KILLED',
]);
/** By number too: a MariaDB-only error may have no name in the driver. */
const UNREACHABLE_ERRNO = new Set([1040, 1053, 1129, 1927]);

/** The account is refused, or lacks a privilege the operation needs. */
const DENIED = new Set([
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_TABLEACCESS_DENIED_ERROR',
  'ER_COLUMNACCESS_DENIED_ERROR',
  'ER_SPECIFIC_ACCESS_DENIED_ERROR',
  'ER_PROCACCESS_DENIED_ERROR',
  'ER_ACCESS_DENIED_NO_PASSWORD_ERROR',
  'ER_HOST_NOT_PRIVILEGED',
  'ER_CANT_CREATE_USER_WITH_GRANT',
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
  'ER_MUST_CHANGE_PASSWORD_LOGIN',
]);
const DENIED_ERRNO = new Set([1044, 1045, 1130, 1142, 1143, 1227, 1370, 1410, 1698, 4151]);

/** What the driver's errors carry (its typings leave out `sqlMessage`, the server's own words). */
type DriverError = Partial<QueryError> & { message: string; sqlMessage?: string };

/**
 * Whether `error` came from the driver or the server (a code it set), not from a bug of ours. By shape, not
 * `instanceof Error`: a socket's error may come from another realm (a test runner's sandbox).
 */
export function isDriverError(error: unknown): error is DriverError {
  const e = error as { code?: unknown; message?: unknown } | null;
  return typeof e === 'object' && e !== null && typeof e.code === 'string' && typeof e.message === 'string';
}

/** Every occurrence of each secret, as written and as the driver escapes it into SQL text, replaced. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === '') continue;
    for (const form of new Set([secret, escapeLikeDriver(secret)])) out = out.split(form).join('***');
  }
  return out;
}

/** What mysql2's escape puts between the quotes of a string value. */
function escapeLikeDriver(value: string): string {
  const map: Record<string, string> = {
    '\0': '\\0',
    '\b': '\\b',
    '\t': '\\t',
    '\n': '\\n',
    '\r': '\\r',
    '\x1a': '\\Z',
    '"': '\\"',
    "'": "\\'",
    '\\': '\\\\',
  };
  return [...value].map((c) => map[c] ?? c).join('');
}

/**
 * A driver error as a MysqlServerError: its reason, and a message from the server's words (never the
 * statement), with `secrets` (the passwords in play) redacted from it. A MysqlServerError passes through.
 */
export function classifyError(
  error: unknown,
  server?: Pick<ServerConnection, 'host' | 'port'>,
  secrets: readonly string[] = [],
): MysqlServerError {
  if (isMysqlServerError(error)) return error;
  const message = (error as { message?: unknown } | null)?.message;
  const e: DriverError = isDriverError(error)
    ? error
    : { message: typeof message === 'string' ? message : String(error) };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const errno = typeof e.errno === 'number' ? e.errno : undefined;
  // The server's own words when it answered; else the driver's message (no SQL text in either).
  const said = redact(e.sqlMessage ?? e.message, secrets);
  const where = server ? ` at ${server.host}:${server.port}` : '';
  if ((code && DENIED.has(code)) || (errno && DENIED_ERRNO.has(errno))) {
    return new MysqlServerError(
      'AccessDenied',
      `the MySQL server${where} refused the account: ${said}`,
      code,
    );
  }
  // A fatal error the server did not send (no SQL state) is the connection's: the socket, the handshake.
  const lost = e.fatal && !e.sqlState;
  if ((code && UNREACHABLE.has(code)) || (errno && UNREACHABLE_ERRNO.has(errno)) || lost) {
    return new MysqlServerError('ServerUnreachable', `cannot reach the MySQL server${where}: ${said}`, code);
  }
  return new MysqlServerError('Invalid', `the MySQL server${where} refused: ${said}`, code);
}

/** Ends the connection politely (the server logs no aborted connection), or drops it after a second. */
function close(connection: Connection): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      connection.destroy();
      resolve();
    }, 1000);
    connection.end(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The statements of one operation, on its one connection. */
export interface Session {
  /** The rows a read returns. */
  rows(sql: string, values?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** A statement; `secrets` (values among `values`) are redacted from any error it raises. */
  run(sql: string, values?: readonly unknown[], secrets?: readonly string[]): Promise<void>;
}

/**
 * Opens a connection to `server`, runs `work` on it and closes it. A driver error rejects as a
 * MysqlServerError; an abort of `options.signal` drops the connection and rejects with the signal's reason.
 */
export async function withSession<T>(
  server: ServerConnection,
  work: (session: Session) => Promise<T>,
  options: OperationOptions = {},
): Promise<T> {
  const { signal, connectTimeoutMs = 5000, statementTimeoutMs = 30000 } = options;
  signal?.throwIfAborted();
  const connection = createConnection({
    host: server.host,
    port: server.port,
    user: server.username,
    password: server.password,
    connectTimeout: connectTimeoutMs,
    charset: 'utf8mb4_general_ci',
    multipleStatements: false,
  });
  // A fatal error also fails the statement waiting on it; one with no statement waiting has no reader.
  connection.on('error', () => undefined);
  const serverSecrets = [server.password];

  const query = (sql: string, values: readonly unknown[], secrets: readonly string[]) =>
    new Promise<unknown>((resolve, reject) => {
      connection.query({ sql, values: [...values], timeout: statementTimeoutMs }, (err, result) => {
        if (err) reject(classifyError(err, server, [...serverSecrets, ...secrets]));
        else resolve(result);
      });
    });
  const session: Session = {
    rows: async (sql, values = []) => (await query(sql, values, [])) as Record<string, unknown>[],
    run: async (sql, values = [], secrets = []) => {
      await query(sql, values, secrets);
    },
  };

  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      connection.destroy();
      // An Error (or DOMException) when aborted with none given or with one.
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const result = await Promise.race([work(session), aborted]);
    await close(connection);
    return result;
  } catch (error) {
    connection.destroy();
    throw error;
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
