/**
 * How the server layer fails: a reason the MysqlDatabase and MysqlUser kinds' Ready condition takes, and a
 * message with no password and no SQL text. Apart from the connection (which loads the driver), so that
 * the kinds can tell these errors without loading it.
 */

/** Why the server could not be made to match: the kinds' Ready=False reasons. */
export type ServerReason = 'ServerUnreachable' | 'AccessDenied' | 'Invalid' | 'Waiting';

/** A failure with its reason; its message holds no password and no SQL text. */
export class MysqlServerError extends Error {
  constructor(
    readonly reason: ServerReason,
    message: string,
    /** The driver's or server's code (`ECONNREFUSED`, `ER_ACCESS_DENIED_ERROR`), when there is one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'MysqlServerError';
  }
}

export const isMysqlServerError = (error: unknown): error is MysqlServerError =>
  error instanceof MysqlServerError;
