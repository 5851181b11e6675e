import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ResourceProps, admitSpec, childPolicy } from '../kit';
import { mysqlUserSchema } from './schema';
import type { MysqlUserSpec, MysqlUserSpecWithDefaults } from './types.generated';

export type MysqlUserProps = ResourceProps<MysqlUserSpec>;

/** How many characters the generated password has. */
export const PASSWORD_LENGTH = 24;

/** The user's name on the server: `spec.name`, else the resource's name. */
export function userName({ name, spec }: { name: string; spec: Pick<MysqlUserSpec, 'name'> }): string {
  return spec.name ?? name;
}

/** The password Secret's name: `spec.passwordSecretName`, else `<name>-mysql`. */
export function passwordSecretName({
  name,
  spec,
}: {
  name: string;
  spec: Pick<MysqlUserSpec, 'passwordSecretName'>;
}): string {
  return spec.passwordSecretName ?? `${name}-mysql`;
}

/**
 * The child of a MysqlUser: the Secret with the user's credentials, which the controller creates once
 * with a generated password and never writes again (the user itself is the kind's external object, on
 * the server). Keys `username`, `password` and `database` (the first grant's, when there is one).
 *
 * Not `host` and `port`: they are the server Secret's, and a construct sees the spec alone (no Secret, no
 * I/O), so an application reads them from the server Secret. The Secret is create-only: a later change of
 * the first grant does not reach `database`; a new `passwordSecretName` makes a new Secret, and the
 * user's password becomes its password.
 */
export class MysqlUser extends Construct {
  readonly passwordSecret: ApiObject;

  constructor(scope: Construct, id: string, props: MysqlUserProps) {
    super(scope, id);
    const spec = admitSpec<MysqlUserSpec, MysqlUserSpecWithDefaults>(this, mysqlUserSchema.spec, props.spec);
    const [first] = spec.grants;
    this.passwordSecret = new ApiObject(this, 'password', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: passwordSecretName(props) },
      type: 'Opaque',
      stringData: { username: userName(props), ...(first ? { database: first.database } : {}) },
    });
    childPolicy(this.passwordSecret, {
      generate: { '/stringData/password': { length: PASSWORD_LENGTH } },
    });
  }
}
