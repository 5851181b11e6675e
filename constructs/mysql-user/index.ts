/**
 * MysqlUser (`mysql.reconstruct.dev/v1alpha1`): a user of a MySQL or MariaDB server with exactly the
 * grants of its spec, made and kept with the account of the Secret `spec.serverSecretRef` names; its
 * password generated once by the controller into the Secret `spec.passwordSecretName`. Deleting the
 * resource drops the user.
 */
import { customResourceClass } from '../kit';
import { mariadbOperations } from '../mysql-server/operations';
import { mysqlUserKindOn } from './kind';

export { MysqlUser, type MysqlUserProps } from './mysql-user';
export { mysqlUserSchema } from './schema';
export type * from './types.generated';

export const mysqlUserKind = mysqlUserKindOn(mariadbOperations);

/** A MysqlUser custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class MysqlUserResource extends customResourceClass(mysqlUserKind) {}
