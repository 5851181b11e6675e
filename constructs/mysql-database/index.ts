/**
 * MysqlDatabase (`mysql.reconstruct.dev/v1alpha1`): a database on a MySQL or MariaDB server, made and kept
 * with the account of the Secret `spec.serverSecretRef` names. No children; `status.observed` says what the
 * server has; deleting the resource drops the database only with `deletionPolicy: Delete`.
 */
import { customResourceClass } from '../kit';
import { mariadbOperations } from '../mysql-server/operations';
import { mysqlDatabaseKindOn } from './kind';

export { mysqlDatabaseSchema } from './schema';
export type * from './types.generated';

export const mysqlDatabaseKind = mysqlDatabaseKindOn(mariadbOperations);

/** A MysqlDatabase custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class MysqlDatabaseResource extends customResourceClass(mysqlDatabaseKind) {}
