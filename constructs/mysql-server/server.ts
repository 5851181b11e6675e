/**
 * The server side of the MysqlDatabase and MysqlUser kinds: plain async operations on a MariaDB (or
 * MySQL) server, given where it is and an account that may create databases, users and grants. No
 * Kubernetes here: the kinds' external handlers (observe, apply, delete) call these, and turn a
 * MysqlServerError's `reason` into their Ready condition.
 *
 * - observe* only read (a dry run may call them); apply* make the server match and resolve what it then
 *   has; drop* remove and do nothing when there is nothing.
 * - Each operation opens one connection and closes it (connection.ts says why), and stops waiting when
 *   its AbortSignal aborts.
 * - Names are checked before anything is sent (InvalidNameError names the field); no password or SQL
 *   text is in any error.
 */
export { classifyError, type OperationOptions, type ServerConnection } from './connection';
export { isMysqlServerError, MysqlServerError, type ServerReason } from './errors';
export {
  applyDatabase,
  dropDatabase,
  type ObservedDatabase,
  observeDatabase,
  type WantedDatabase,
} from './databases';
export {
  type Grant,
  grantsDiffer,
  normalizeGrants,
  type ObservedGrant,
  PRIVILEGES,
  type Privilege,
} from './grants';
export { InvalidNameError } from './names';
export {
  applyUser,
  dropUser,
  type ObservedUser,
  observeUser,
  type UserAccount,
  type WantedUser,
} from './users';
