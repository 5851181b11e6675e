/**
 * The baselines of bench:synth: each kind's children written by hand with cdk8s-plus-27 and cdk8s
 * `ApiObject` in a fresh App and Chart, as a cdk8s user would write a controller without this project's
 * kit. For the same resource a baseline builds the same objects, with the same fields and values, as its
 * kind's `synthesize()` (test/bench/synth-baselines.test.ts holds it to that), and does none of the kit's
 * work: the schema's defaults are written out instead of read from the schema, and nothing is checked (no
 * spec checks, no child-name checks, no child policies). What a hand-written controller sets too stays: the
 * resource's namespace, the labels that mark its children as its own, and a controller ownerReference.
 *
 * Taken from the constructs are values, not work: the child labels (`childLabels`, one hash), the removal
 * of cdk8s-plus's pod address label (`withoutAddressLabel`, one JSON patch), and each kind's own child
 * names, label keys, ports, images and nginx.conf with its hash, which a hand-written controller computes the
 * same way.
 *
 * A baseline covers the spec fields the benchmark's resources set (bench/synth/resources.ts): a MySQL
 * Cluster's SSL, config and claim-template fields, which none of them set, would add conditionals of a
 * few nanoseconds to a hand-written controller, so they are left out here.
 */
import { ApiObject, Chart, Size, type ApiObjectMetadata, type OwnerReference } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import type { Construct } from 'constructs';
import {
  childLabels,
  withoutAddressLabel,
  type BalancerSpec,
  type CustomResource,
  type DatabaseManagerSpec,
  type MemcachedSpec,
  type MysqlClusterSpec,
  type NodePoolSpec,
} from '../../constructs';
import {
  BALANCER_LABEL,
  CONFIG_HASH_ANNOTATION,
  balancerNames,
  configHash,
  nginxConf,
} from '../../constructs/balancer/balancer';
import { DATABASE_IMAGES, DATABASE_PORT } from '../../constructs/database-manager/database-manager';
import { MEMCACHED_PORT } from '../../constructs/memcached/memcached';
import { MYSQL_CLUSTER_LABEL, rootPasswordSecretName } from '../../constructs/mysql-cluster/mysql-cluster';
import { runtimeClassName } from '../../constructs/node-pool/node-pool';

/** The resource's identity in the cluster. */
export interface Owner {
  readonly uid: string;
}

/** Adds the children of `resource` to a new Chart in `scope` and returns the Chart (not yet synthesized). */
export type Baseline<Spec> = (scope: Construct, resource: CustomResource<Spec>, owner: Owner) => Chart;

/** The Chart of one resource's children: its namespace, the labels that mark them, stable names. */
function chartOf(scope: Construct, resource: CustomResource): Chart {
  return new Chart(scope, 'baseline', {
    namespace: resource.metadata.namespace,
    labels: childLabels(resource),
    disableResourceNameHashes: true,
  });
}

/** A child's metadata: its name, its own labels if any, and the controller ownerReference to `resource`. */
function metadataOf(
  resource: CustomResource,
  owner: Owner,
  name: string,
  labels?: Record<string, string>,
): ApiObjectMetadata {
  const reference: OwnerReference = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.metadata.name,
    uid: owner.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  return { name, ...(labels ? { labels } : {}), ownerReferences: [reference] };
}

/** A memcached Deployment of `spec.size` pods and a Service in front of them. */
export function memcachedBaseline(
  scope: Construct,
  resource: CustomResource<MemcachedSpec>,
  owner: Owner,
): Chart {
  const chart = chartOf(scope, resource);
  const { name } = resource.metadata;
  const podLabels = { app: 'memcached', memcached_cr: name };
  const deployment = new kplus.Deployment(chart, 'deployment', {
    metadata: metadataOf(resource, owner, name),
    replicas: resource.spec.size,
    select: false,
    podMetadata: { labels: podLabels },
    automountServiceAccountToken: false,
    containers: [
      {
        name: 'memcached',
        image: resource.spec.image ?? 'memcached:1.4.36-alpine',
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        command: ['memcached', '-m=64', '-o', 'modern', '-v'],
        ports: [{ name: 'memcached', number: MEMCACHED_PORT }],
        readiness: kplus.Probe.fromTcpSocket({ port: MEMCACHED_PORT }),
        resources: {
          cpu: { request: kplus.Cpu.millis(100) },
          memory: { request: Size.mebibytes(96), limit: Size.mebibytes(128) },
        },
        securityContext: { user: 11211, group: 11211 },
      },
    ],
  });
  withoutAddressLabel(deployment).select(kplus.LabelSelector.of({ labels: podLabels }));
  const service = new kplus.Service(chart, 'service', {
    metadata: metadataOf(resource, owner, name),
    ports: [{ name: 'memcached', port: MEMCACHED_PORT, targetPort: MEMCACHED_PORT }],
  });
  for (const [key, value] of Object.entries(podLabels)) service.selectLabel(key, value);
  return chart;
}

/** A RuntimeClass whose pods go to the pool's nodes and tolerate its taints (cluster-scoped: no namespace). */
export function nodePoolBaseline(
  scope: Construct,
  resource: CustomResource<NodePoolSpec>,
  owner: Owner,
): Chart {
  const chart = chartOf(scope, resource);
  const { labels = {}, taints = [], handler = 'runc' } = resource.spec;
  const scheduling: Record<string, unknown> = {};
  if (Object.keys(labels).length > 0) scheduling.nodeSelector = labels;
  if (taints.length > 0) {
    scheduling.tolerations = taints.map((t) => ({
      key: t.key,
      operator: 'Equal',
      value: t.value ?? '',
      effect: t.effect,
    }));
  }
  new ApiObject(chart, 'runtime-class', {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: metadataOf(resource, owner, runtimeClassName(resource.metadata.name)),
    handler,
    ...(Object.keys(scheduling).length > 0 ? { scheduling } : {}),
  });
  return chart;
}

/** A MySQL or MariaDB Deployment, its root password from the user's Secret or drawn by the image. */
export function databaseManagerBaseline(
  scope: Construct,
  resource: CustomResource<DatabaseManagerSpec>,
  owner: Owner,
): Chart {
  const chart = chartOf(scope, resource);
  const { name } = resource.metadata;
  const { dbtype = 'mysql', replicas = 1, deploymentName = name, rootPasswordSecret } = resource.spec;
  const prefix = dbtype === 'mysql' ? 'MYSQL' : 'MARIADB';
  const selector = { 'coolops.cn/databasemanager': name, 'coolops.cn/deployment': deploymentName };
  const rootPassword: Record<string, kplus.EnvValue> = rootPasswordSecret
    ? {
        [`${prefix}_ROOT_PASSWORD`]: kplus.EnvValue.fromSecretValue({
          secret: kplus.Secret.fromSecretName(chart, 'root-password', rootPasswordSecret.name),
          key: rootPasswordSecret.key ?? 'password',
        }),
      }
    : { [`${prefix}_RANDOM_ROOT_PASSWORD`]: kplus.EnvValue.fromValue('yes') };
  const deployment = new kplus.Deployment(chart, 'deployment', {
    metadata: metadataOf(resource, owner, deploymentName),
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
        securityContext: { ensureNonRoot: false, readOnlyRootFilesystem: false },
      },
    ],
  });
  withoutAddressLabel(deployment).select(kplus.LabelSelector.of({ labels: selector }));
  return chart;
}

/**
 * An nginx proxy with weighted backends: the front-end Service, the ConfigMap with nginx.conf, the proxy
 * Deployment and one Service per backend.
 */
export function balancerBaseline(
  scope: Construct,
  resource: CustomResource<BalancerSpec>,
  owner: Owner,
): Chart {
  const chart = chartOf(scope, resource);
  const { name } = resource.metadata;
  const { ports, backends, selector = {}, image = 'nginx:1.15.9' } = resource.spec;
  const podLabels = { [BALANCER_LABEL]: name };
  const protocol = (port: BalancerSpec['ports'][number]) => port.protocol ?? 'TCP';
  const kplusProtocol = (port: BalancerSpec['ports'][number]) =>
    protocol(port) === 'UDP' ? kplus.Protocol.UDP : kplus.Protocol.TCP;
  const conf = nginxConf(name, resource.spec);

  const frontend = new kplus.Service(chart, 'frontend', {
    metadata: metadataOf(resource, owner, balancerNames.frontend(name)),
    type: kplus.ServiceType.CLUSTER_IP,
    ports: ports.map((p) => ({ name: p.name, protocol: kplusProtocol(p), port: p.port, targetPort: p.port })),
  });
  frontend.selectLabel(BALANCER_LABEL, name);

  const configMap = new kplus.ConfigMap(chart, 'config', {
    metadata: metadataOf(resource, owner, balancerNames.configMap(name)),
    data: { 'nginx.conf': conf },
  });
  const volume = kplus.Volume.fromConfigMap(chart, 'config-volume', configMap, { name: 'nginx-config' });
  const deployment = new kplus.Deployment(chart, 'proxy', {
    metadata: metadataOf(resource, owner, balancerNames.deployment(name)),
    replicas: 1,
    select: false,
    podMetadata: { labels: podLabels, annotations: { [CONFIG_HASH_ANNOTATION]: configHash(conf) } },
    automountServiceAccountToken: false,
    securityContext: { ensureNonRoot: false },
    containers: [
      {
        name: 'nginx',
        image,
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        ports: ports.map((p) => ({ name: p.name, number: p.port, protocol: kplusProtocol(p) })),
        volumeMounts: [{ path: '/etc/nginx', volume, readOnly: true }],
        resources: {
          cpu: { request: kplus.Cpu.millis(100) },
          memory: { request: Size.mebibytes(64), limit: Size.mebibytes(256) },
        },
        securityContext: { ensureNonRoot: false, readOnlyRootFilesystem: false },
      },
    ],
  });
  withoutAddressLabel(deployment).select(kplus.LabelSelector.of({ labels: podLabels }));

  for (const backend of backends) {
    new ApiObject(chart, `backend-${backend.name}`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: metadataOf(resource, owner, balancerNames.backend(name, backend.name), podLabels),
      spec: {
        type: 'ClusterIP',
        selector: { ...selector, ...backend.selector },
        ports: ports.map((p) => ({
          name: p.name,
          protocol: protocol(p),
          port: p.port,
          targetPort: p.targetPort ?? p.port,
        })),
      },
    });
  }
  return chart;
}

const MYSQL_PORT = 3306;

/** Whether MySQL `version` (major.minor.patch) is 8.0.12 or later, which has the exit state action. */
function hasExitStateAction(version: string): boolean {
  const [major, minor, patch] = version.split('.').map(Number);
  if (major !== 8) return major > 8;
  return minor !== 0 ? minor > 0 : patch >= 12;
}

/**
 * A MySQL InnoDB cluster: the root password Secret (unless the spec names the user's), the headless
 * Service and the StatefulSet of MySQL servers in group replication, each beside a mysql-agent. The
 * Secret has no password: the kind generates it in-cluster, by a child policy a baseline does not have.
 */
export function mysqlClusterBaseline(
  scope: Construct,
  resource: CustomResource<MysqlClusterSpec>,
  owner: Owner,
): Chart {
  const chart = chartOf(scope, resource);
  const { name } = resource.metadata;
  const { version = '8.0.12', members = 3, multiMaster = false, rootPasswordSecret } = resource.spec;
  const labels = { [MYSQL_CLUSTER_LABEL]: name };
  const secretName = rootPasswordSecret?.name ?? rootPasswordSecretName(name);
  if (!rootPasswordSecret) {
    new ApiObject(chart, 'root-password', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: metadataOf(resource, owner, secretName, labels),
      type: 'Opaque',
    });
  }

  new ApiObject(chart, 'service', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadataOf(resource, owner, name, labels),
    spec: {
      clusterIP: 'None',
      ports: [{ name: 'mysql', port: MYSQL_PORT, targetPort: MYSQL_PORT, protocol: 'TCP' }],
      selector: labels,
      publishNotReadyAddresses: true,
    },
  });

  const rootPassword = {
    name: 'MYSQL_ROOT_PASSWORD',
    valueFrom: { secretKeyRef: { name: secretName, key: 'password' } },
  };
  const mounts = [
    { name: 'mysqlvolume', mountPath: '/var/lib/mysql', subPath: 'mysql' },
    { name: 'mysqlbackupvolume', mountPath: '/var/lib/mysql-agent', subPath: 'mysql' },
  ];
  const seeds = Array.from({ length: members }, (_, j) => `${name}-${j}.${name}:13306`).join(',');
  const script = [
    `base=${resource.spec.baseServerId ?? 1000}`,
    "index=$(cat /etc/hostname | grep -o '[^-]*$')",
    '/entrypoint.sh --server_id=$(expr $base + $index) --datadir=/var/lib/mysql --gtid_mode=ON --log-bin ' +
      '--binlog_checksum=NONE --enforce_gtid_consistency=ON --log-slave-updates=ON --binlog-format=ROW ' +
      '--master-info-repository=TABLE --relay-log-info-repository=TABLE ' +
      `--transaction-write-set-extraction=XXHASH64 --relay-log=${name}-\${index}-relay-bin ` +
      `--report-host=${name}-\${index}.${name} --log-error-verbosity=3` +
      (hasExitStateAction(version) ? ' --loose-group-replication-exit-state-action=READ_ONLY' : ''),
  ].join('\n');
  new ApiObject(chart, 'statefulset', {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: metadataOf(resource, owner, name, labels),
    spec: {
      replicas: members,
      serviceName: name,
      selector: { matchLabels: labels },
      updateStrategy: { type: 'RollingUpdate' },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      template: {
        metadata: {
          labels: { ...labels, ...(multiMaster ? { 'v1alpha1.mysql.oracle.com/role': 'primary' } : {}) },
          annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080' },
        },
        spec: {
          containers: [
            {
              name: 'mysql',
              image: `${resource.spec.repository ?? 'mysql/mysql-server'}:${version}`,
              command: ['/bin/bash', '-ecx', script],
              ports: [{ name: 'mysql', containerPort: MYSQL_PORT }],
              env: [
                rootPassword,
                { name: 'MYSQL_ROOT_HOST', value: '%' },
                { name: 'MYSQL_LOG_CONSOLE', value: 'true' },
              ],
              volumeMounts: mounts,
            },
            {
              name: 'mysql-agent',
              image: resource.spec.agentImage ?? 'iad.ocir.io/oracle/mysql-agent:0.3.0',
              args: ['--v=4'],
              env: [
                { name: 'MYSQL_CLUSTER_NAME', value: name },
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'MY_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'REPLICATION_GROUP_SEEDS', value: seeds },
                { name: 'MYSQL_CLUSTER_MULTI_MASTER', value: String(multiMaster) },
                rootPassword,
              ],
              volumeMounts: mounts,
              livenessProbe: { httpGet: { path: '/live', port: 10512 } },
              readinessProbe: { httpGet: { path: '/ready', port: 10512 } },
            },
          ],
          volumes: [
            { name: 'mysqlvolume', emptyDir: {} },
            { name: 'mysqlbackupvolume', emptyDir: {} },
          ],
        },
      },
    },
  });
  return chart;
}
