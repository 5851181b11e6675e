/**
 * MySQL Cluster (`mysql.oracle.com/v1alpha1`, kind `Cluster`): a StatefulSet of MySQL servers in
 * group replication with a mysql-agent each, a headless Service, and a root password Secret the controller
 * generates once. The status counts the members, says which version they all run, and why the cluster is
 * not Ready: `Creating`, `Scaling`, `Upgrading`, or the child that blocks.
 */
import {
  SECRET,
  SERVICE,
  STATEFUL_SET,
  childrenReadiness,
  customResourceClass,
  defineKind,
  writeOnly,
  type KubeObject,
  type Readiness,
  type StatusContext,
} from '../kit';
import { MysqlCluster } from './mysql-cluster';
import { MAX_CLUSTER_NAME_LENGTH, mysqlClusterSchema } from './schema';
import type { MysqlClusterSpec, MysqlClusterSpecWithDefaults, MysqlClusterStatus } from './types.generated';

export { MysqlCluster, type MysqlClusterProps } from './mysql-cluster';
export { mysqlClusterSchema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<MysqlClusterStatus, 'members' | 'readyMembers' | 'version'>;
type Context = StatusContext<MysqlClusterSpecWithDefaults>;

interface Members {
  /** The StatefulSet as the cache holds it. */
  readonly live?: KubeObject;
  readonly want: number;
  readonly exist: number;
  readonly ready: number;
  /** Members running the image the spec asks for. */
  readonly updated: number;
  /** Every member runs the spec's image and is ready, and the StatefulSet's rollout is over. */
  readonly rolledOut: boolean;
}

interface StatefulSetStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
}

type PodTemplateOwner = {
  spec?: { template?: { spec?: { containers?: { name: string; image?: string }[] } } };
};

/** The image of the server container of a StatefulSet, desired or live. */
const serverImage = (sts: object | undefined): string | undefined =>
  (sts as PodTemplateOwner | undefined)?.spec?.template?.spec?.containers?.find((c) => c.name === 'mysql')
    ?.image;

function members({ resource, children, view }: Context): Members {
  const want = resource.spec.members;
  const desired = children.find((c) => c.kind === 'StatefulSet');
  const live = desired && view.get(STATEFUL_SET, resource.metadata.namespace, desired.metadata.name);
  const status = (live?.status ?? {}) as StatefulSetStatus;
  const current = !!live && serverImage(live) === serverImage(desired);
  const updated = current ? (status.updatedReplicas ?? 0) : 0;
  const ready = status.readyReplicas ?? 0;
  const rolledOut =
    current &&
    !live.metadata.deletionTimestamp &&
    status.observedGeneration === live.metadata.generation &&
    status.currentRevision === status.updateRevision &&
    status.replicas === want &&
    updated === want &&
    ready === want;
  return { live, want, exist: status.replicas ?? 0, ready, updated, rolledOut };
}

/** The version every member ran when a roll last finished. */
const recordedVersion = (context: Context) =>
  (context.resource.status as MysqlClusterStatus | undefined)?.version;

function ready(context: Context, children: Readiness): Readiness {
  const m = members(context);
  const { version } = context.resource.spec;
  const count = `${m.ready} of ${m.want} members ready`;
  if (m.rolledOut) return { ready: true, reason: 'Ready', message: `${count}, running MySQL ${version}` };
  // The members' count says how the StatefulSet does; another child that blocks is named after it.
  const others = childrenReadiness(
    context.children.filter((c) => c.kind !== 'StatefulSet'),
    context.view,
    mysqlClusterKind.children,
    context.resource.metadata.namespace,
  );
  const blocking = others.ready ? '' : `; ${others.message}`;
  const before = recordedVersion(context);
  if (before === undefined) return { ready: false, reason: 'Creating', message: `${count}${blocking}` };
  if (before !== version) {
    return {
      ready: false,
      reason: 'Upgrading',
      message: `${m.updated} of ${m.want} members run MySQL ${version} (from ${before})${blocking}`,
    };
  }
  if (m.exist !== m.want || m.ready !== m.want) {
    return { ready: false, reason: 'Scaling', message: `${count}${blocking}` };
  }
  return children.ready
    ? { ready: false, reason: 'Progressing', message: `${count}, rolling out` }
    : children;
}

export const mysqlClusterKind = defineKind<MysqlClusterSpec, OwnStatus, MysqlClusterSpecWithDefaults>({
  apiVersion: 'mysql.oracle.com/v1alpha1',
  kind: 'Cluster',
  plural: 'mysqlclusters',
  singular: 'mysqlcluster',
  typeName: 'MysqlCluster',
  categories: ['mysql'],
  // The members' host names, <name>-<ordinal>.<name>, must fit group replication (MySQL bug 90601).
  maxNameLength: MAX_CLUSTER_NAME_LENGTH,
  schema: mysqlClusterSchema,
  construct: MysqlCluster,
  // The generated password Secret is created, never read: the operator needs no access to Secrets.
  children: [writeOnly(SECRET), SERVICE, STATEFUL_SET],
  status(context) {
    const m = members(context);
    const version = m.rolledOut ? context.resource.spec.version : recordedVersion(context);
    return { members: m.exist, readyMembers: m.ready, ...(version !== undefined ? { version } : {}) };
  },
  ready,
});

/** A MySQL Cluster custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class MysqlClusterResource extends customResourceClass(mysqlClusterKind) {}
