import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ResourceProps, SpecError, admitSpec, checkServiceName, childPolicy } from '../kit';
import { MAX_CLUSTER_NAME_LENGTH, mysqlClusterSchema } from './schema';
import type { MysqlClusterSpec, MysqlClusterSpecWithDefaults } from './types.generated';

export type MysqlClusterProps = ResourceProps<MysqlClusterSpec>;

/** Every child and member pod carries it, with the Cluster's name. */
export const MYSQL_CLUSTER_LABEL = 'v1alpha1.mysql.oracle.com/cluster';
/** On member pods of a multi-master cluster: `primary`. */
const ROLE_LABEL = 'v1alpha1.mysql.oracle.com/role';
const MYSQL_PORT = 3306;
/** The group replication port each member's agent reaches the others on. */
const GROUP_REPLICATION_PORT = 13306;
/** The agent's health endpoints (`/live`, `/ready`). */
const AGENT_HEALTH_PORT = 10512;
/** The key of the root password in its Secret, generated or the user's. */
const ROOT_PASSWORD_KEY = 'password';
const PASSWORD_LENGTH = 16;

const DATA_VOLUME = 'mysqlvolume';
const BACKUP_VOLUME = 'mysqlbackupvolume';
const SSL_VOLUME = 'mysqlsslvolume';
const AGENT_DATA_PATH = '/var/lib/mysql-agent';

/** The version as three integers; the schema's pattern guarantees the shape. */
function parseVersion(version: string): [number, number, number] {
  const parts = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!parts) {
    throw new SpecError('spec.version', `Invalid value: "${version}": must be <major>.<minor>.<patch>`);
  }
  return [Number(parts[1]), Number(parts[2]), Number(parts[3])];
}

/** Whether version `a` is `b` or later. */
export function versionAtLeast(a: string, b: string): boolean {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return true;
}

/** The name of the generated root password Secret. */
export function rootPasswordSecretName(cluster: string): string {
  return `${cluster}-root-password`;
}

/** `<name>-0.<name>:13306,...`: every member's group replication address, which the agents start from. */
export function replicationGroupSeeds(name: string, members: number): string {
  return Array.from({ length: members }, (_, i) => `${name}-${i}.${name}:${GROUP_REPLICATION_PORT}`).join(
    ',',
  );
}

/** The mysqld flags of every member, whatever its name and spec: server_id from the ordinal, GTIDs, binary log. */
export const GROUP_REPLICATION_FLAGS: readonly string[] = [
  '--server_id=$(expr $base + $index)',
  '--datadir=/var/lib/mysql',
  '--gtid_mode=ON',
  '--log-bin',
  '--binlog_checksum=NONE',
  '--enforce_gtid_consistency=ON',
  '--log-slave-updates=ON',
  '--binlog-format=ROW',
  '--master-info-repository=TABLE',
  '--relay-log-info-repository=TABLE',
  '--transaction-write-set-extraction=XXHASH64',
];

/**
 * The server container's script: the member's ordinal from its host name (`<name>-<ordinal>`) gives its
 * server_id, then the image's entrypoint starts mysqld with the group replication settings.
 */
function serverScript(name: string, spec: MysqlClusterSpecWithDefaults): string {
  const flags = [
    ...GROUP_REPLICATION_FLAGS,
    `--relay-log=${name}-\${index}-relay-bin`,
    `--report-host=${name}-\${index}.${name}`,
    '--log-error-verbosity=3',
    ...(spec.sslSecret
      ? [
          '--ssl-ca=/etc/ssl/mysql/ca.crt',
          '--ssl-cert=/etc/ssl/mysql/tls.crt',
          '--ssl-key=/etc/ssl/mysql/tls.key',
        ]
      : []),
    // The exit state action exists from 8.0.12: a member expelled from the group stays read-only.
    ...(versionAtLeast(spec.version, '8.0.12')
      ? ['--loose-group-replication-exit-state-action=READ_ONLY']
      : []),
  ];
  return [
    `base=${spec.baseServerId}`,
    // The ordinal is what follows the last '-' of the pod's host name.
    "index=$(cat /etc/hostname | grep -o '[^-]*$')",
    `/entrypoint.sh ${flags.join(' ')}`,
  ].join('\n');
}

type Json = Record<string, unknown>;

/**
 * A MySQL InnoDB cluster, as Oracle's mysql-operator builds it: the root password Secret
 * `<name>-root-password` (unless `spec.rootPasswordSecret` names the user's), created once with a
 * generated password and never rewritten; the headless Service `<name>`; and the StatefulSet `<name>` of
 * `members` pods, each a MySQL server in group replication beside a mysql-agent. Data volumes come from
 * the claim templates (kept when the Cluster goes or scales down) or are emptyDirs.
 */
export class MysqlCluster extends Construct {
  /** The generated root password Secret; undefined when the spec names the user's. */
  readonly rootPasswordSecret?: ApiObject;
  readonly service: ApiObject;
  readonly statefulSet: ApiObject;

  constructor(scope: Construct, id: string, props: MysqlClusterProps) {
    super(scope, id);
    const { name } = props;
    const spec = admitSpec<MysqlClusterSpec, MysqlClusterSpecWithDefaults>(
      this,
      mysqlClusterSchema.spec,
      props.spec,
    );
    // The kind's maxNameLength, for a cdk8s app that builds the construct without a resource.
    if (name.length > MAX_CLUSTER_NAME_LENGTH) {
      throw new SpecError(
        'metadata.name',
        `"${name}" is longer than ${MAX_CLUSTER_NAME_LENGTH} characters (MySQL bug 90601)`,
      );
    }
    checkServiceName(name, 'metadata.name', 'the Service and StatefulSet name');
    const labels = { [MYSQL_CLUSTER_LABEL]: name };

    const secretName = spec.rootPasswordSecret?.name ?? rootPasswordSecretName(name);
    if (!spec.rootPasswordSecret) {
      this.rootPasswordSecret = new ApiObject(this, 'root-password', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secretName, labels },
        type: 'Opaque',
      });
      childPolicy(this.rootPasswordSecret, {
        createOnly: true,
        generate: { [`/stringData/${ROOT_PASSWORD_KEY}`]: { length: PASSWORD_LENGTH } },
        offlineHint: 'name a Secret of your own (key "password") in spec.rootPasswordSecret',
      });
    }

    this.service = new ApiObject(this, 'service', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, labels },
      spec: {
        clusterIP: 'None',
        ports: [{ name: 'mysql', port: MYSQL_PORT, targetPort: MYSQL_PORT, protocol: 'TCP' }],
        selector: labels,
        publishNotReadyAddresses: true,
      },
    });

    this.statefulSet = new ApiObject(this, 'statefulset', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name, labels },
      spec: statefulSetSpec(name, spec, secretName),
    });
  }
}

function statefulSetSpec(name: string, spec: MysqlClusterSpecWithDefaults, secretName: string): Json {
  const labels = { [MYSQL_CLUSTER_LABEL]: name };
  const rootPassword = {
    name: 'MYSQL_ROOT_PASSWORD',
    valueFrom: { secretKeyRef: { name: secretName, key: ROOT_PASSWORD_KEY } },
  };
  const seeds = { name: 'REPLICATION_GROUP_SEEDS', value: replicationGroupSeeds(name, spec.members) };
  const multiMaster = { name: 'MYSQL_CLUSTER_MULTI_MASTER', value: String(spec.multiMaster) };
  const dataVolume = spec.volumeClaimTemplate?.metadata.name ?? DATA_VOLUME;
  const backupVolume = spec.backupVolumeClaimTemplate?.metadata.name ?? BACKUP_VOLUME;
  const mounts: Json[] = [
    { name: dataVolume, mountPath: '/var/lib/mysql', subPath: 'mysql' },
    { name: backupVolume, mountPath: AGENT_DATA_PATH, subPath: 'mysql' },
    ...(spec.config ? [{ name: 'mysqlconfig', mountPath: '/etc/my.cnf', subPath: 'my.cnf' }] : []),
    ...(spec.sslSecret ? [{ name: SSL_VOLUME, mountPath: '/etc/ssl/mysql' }] : []),
  ];
  const volumes: Json[] = [
    ...(spec.volumeClaimTemplate ? [] : [{ name: DATA_VOLUME, emptyDir: {} }]),
    ...(spec.backupVolumeClaimTemplate ? [] : [{ name: BACKUP_VOLUME, emptyDir: {} }]),
    ...(spec.config ? [{ name: 'mysqlconfig', configMap: { name: spec.config.name } }] : []),
    ...(spec.sslSecret
      ? [
          {
            name: SSL_VOLUME,
            secret: {
              secretName: spec.sslSecret.name,
              items: ['ca.crt', 'tls.crt', 'tls.key'].map((key) => ({ key, path: key })),
            },
          },
        ]
      : []),
  ];
  const claims = [spec.volumeClaimTemplate, spec.backupVolumeClaimTemplate].filter((c) => c !== undefined);
  // Both spellings, the user's order, each Secret once.
  const pullSecrets = [...(spec.imagePullSecrets ?? []), ...(spec.imagePullSecret ?? [])]
    .map((s) => s.name)
    .filter((s, i, all) => all.indexOf(s) === i)
    .map((s) => ({ name: s }));

  const server: Json = {
    name: 'mysql',
    image: `${spec.repository}:${spec.version}`,
    command: ['/bin/bash', '-ecx', serverScript(name, spec)],
    ports: [{ name: 'mysql', containerPort: MYSQL_PORT }],
    env: [
      rootPassword,
      { name: 'MYSQL_ROOT_HOST', value: '%' },
      { name: 'MYSQL_LOG_CONSOLE', value: 'true' },
    ],
    volumeMounts: mounts,
    ...(spec.resources?.server ? { resources: spec.resources.server } : {}),
  };
  const agent: Json = {
    name: 'mysql-agent',
    image: spec.agentImage,
    args: ['--v=4'],
    env: [
      { name: 'MYSQL_CLUSTER_NAME', value: name },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'MY_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      seeds,
      multiMaster,
      rootPassword,
    ],
    volumeMounts: mounts,
    livenessProbe: { httpGet: { path: '/live', port: AGENT_HEALTH_PORT } },
    readinessProbe: { httpGet: { path: '/ready', port: AGENT_HEALTH_PORT } },
    ...(spec.resources?.agent ? { resources: spec.resources.agent } : {}),
  };

  return {
    replicas: spec.members,
    serviceName: name,
    selector: { matchLabels: labels },
    updateStrategy: { type: 'RollingUpdate' },
    // Data outlives the Cluster and its scale-downs, as in the original operator: claims are never owned.
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    template: {
      metadata: {
        labels: { ...labels, ...(spec.multiMaster ? { [ROLE_LABEL]: 'primary' } : {}) },
        annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080' },
      },
      spec: {
        ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
        ...(spec.affinity ? { affinity: spec.affinity } : {}),
        ...(spec.tolerations ? { tolerations: spec.tolerations } : {}),
        ...(spec.securityContext ? { securityContext: spec.securityContext } : {}),
        ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
        containers: [server, agent],
        ...(volumes.length > 0 ? { volumes } : {}),
      },
    },
    ...(claims.length > 0 ? { volumeClaimTemplates: claims } : {}),
  };
}
