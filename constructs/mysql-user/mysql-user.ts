import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { admitSpec, childPolicy, fromSecret, type InputValues, type ResourcePropsWithInputs } from '../kit';
import { DEFAULT_PORT } from '../mysql-server/kinds';
import { mysqlUserSchema } from './schema';
import type { MysqlUserSpec, MysqlUserSpecWithDefaults } from './types.generated';

/**
 * Where the server is, as its Secret says (`spec.serverSecretRef`: keys `host` and `port`): inputs, so
 * that the user's Secret carries all an application needs to connect.
 */
export const mysqlUserInputs = {
  host: fromSecret<MysqlUserSpec>({ name: (r) => r.spec.serverSecretRef.name, key: 'host' }),
  port: fromSecret<MysqlUserSpec>({
    name: (r) => r.spec.serverSecretRef.name,
    key: 'port',
    default: String(DEFAULT_PORT),
  }),
};

export type MysqlUserProps = ResourcePropsWithInputs<MysqlUserSpec, InputValues<typeof mysqlUserInputs>>;

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
 * The child of a MysqlUser: the Secret with the user's credentials and where to use them, which the
 * controller creates once with a generated password and never writes again (the user itself is the
 * kind's external object, on the server). Keys `username`, `password`, `host` and `port` (the server
 * Secret's: inputs, so the Secret waits until that Secret says them), and `database` (the first grant's,
 * when there is one).
 *
 * The Secret is create-only: a later change of the first grant, or of the server's host or port, does not
 * reach it; a new `passwordSecretName` makes a new Secret, and the user's password becomes its password.
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
      stringData: {
        username: userName(props),
        host: props.inputs.host,
        port: props.inputs.port,
        ...(first ? { database: first.database } : {}),
      },
    });
    childPolicy(this.passwordSecret, {
      generate: { '/stringData/password': { length: PASSWORD_LENGTH } },
    });
  }
}
