import { Size } from 'cdk8s';
import { Construct } from 'constructs';
import * as kplus from 'cdk8s-plus-27';
import { ResourceProps, admitSpec, checkDnsLabel, withoutAddressLabel } from '../kit';
import { databaseManagerSchema } from './schema';
import type { DatabaseManagerSpec, DatabaseManagerSpecWithDefaults } from './types.generated';

export type DatabaseManagerProps = ResourceProps<DatabaseManagerSpec>;
export type DatabaseType = NonNullable<DatabaseManagerSpec['dbtype']>;

/** The image of each database type. */
export const DATABASE_IMAGES: Record<DatabaseType, string> = {
  mysql: 'mysql:5.7',
  mariadb: 'mariadb:10.7.1',
};
export const DATABASE_PORT = 3306;

/** The environment variable prefix each image reads its settings from. */
const ENV_PREFIX: Record<DatabaseType, string> = { mysql: 'MYSQL', mariadb: 'MARIADB' };

/** The Deployment's name: `spec.deploymentName`, else the resource's name. */
export function databaseDeploymentName(props: DatabaseManagerProps): string {
  return props.spec.deploymentName ?? props.name;
}

/**
 * A MySQL or MariaDB Deployment named `spec.deploymentName`. The selector names the resource
 * and the Deployment, never the database type, because a selector is immutable: switching mysql to
 * mariadb rolls the pods of the same Deployment.
 */
export class DatabaseManager extends Construct {
  readonly deployment: kplus.Deployment;

  constructor(scope: Construct, id: string, props: DatabaseManagerProps) {
    super(scope, id);
    const { name } = props;
    const spec = admitSpec<DatabaseManagerSpec, DatabaseManagerSpecWithDefaults>(
      this,
      databaseManagerSchema.spec,
      props.spec,
    );
    const { dbtype, replicas } = spec;
    const deploymentName = databaseDeploymentName(props);
    checkDnsLabel(
      deploymentName,
      spec.deploymentName ? 'spec.deploymentName' : 'metadata.name',
      'the Deployment name',
    );

    const selector = { 'coolops.cn/databasemanager': name, 'coolops.cn/deployment': deploymentName };
    const prefix = ENV_PREFIX[dbtype];
    const secret = spec.rootPasswordSecret;
    const rootPassword: Record<string, kplus.EnvValue> = secret
      ? {
          [`${prefix}_ROOT_PASSWORD`]: kplus.EnvValue.fromSecretValue({
            secret: kplus.Secret.fromSecretName(this, 'root-password', secret.name),
            key: secret.key,
          }),
        }
      : // The image draws the password itself and prints it to the log: synthesis stays deterministic.
        { [`${prefix}_RANDOM_ROOT_PASSWORD`]: kplus.EnvValue.fromValue('yes') };

    this.deployment = withoutAddressLabel(
      new kplus.Deployment(this, 'deployment', {
        metadata: { name: deploymentName },
        replicas,
        select: false,
        podMetadata: { labels: { ...selector, 'coolops.cn/dbtype': dbtype } },
        automountServiceAccountToken: false,
        securityContext: { ensureNonRoot: false },
        containers: [
          {
            name: dbtype,
            image: DATABASE_IMAGES[dbtype],
            imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
            ports: [{ name: 'db', number: DATABASE_PORT }],
            envVariables: rootPassword,
            readiness: kplus.Probe.fromTcpSocket({ port: DATABASE_PORT }),
            resources: {
              cpu: { request: kplus.Cpu.millis(250) },
              memory: { request: Size.mebibytes(512), limit: Size.gibibytes(1) },
            },
            // Both images start as root to prepare their data directory, then drop to the mysql user.
            securityContext: { ensureNonRoot: false, readOnlyRootFilesystem: false },
          },
        ],
      }),
    );
    this.deployment.select(kplus.LabelSelector.of({ labels: selector }));
  }
}
