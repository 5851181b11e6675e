/**
 * A kind of Kubernetes object as the API names it: enough to build its REST paths, list and watch it,
 * grant access to it, and tell it apart from another. The kit's one type for "an API kind"; the
 * constants below are the built-in kinds a construct typically produces or a kind watches.
 */
export interface ApiKind {
  /** `v1` for the core group, else `<group>/<version>` (e.g. `apps/v1`). */
  readonly apiVersion: string;
  /** The kind, e.g. `Deployment`. */
  readonly kind: string;
  /** The lower-case plural resource name in the API path, e.g. `deployments`. */
  readonly plural: string;
  /** False for cluster-scoped kinds (nodes, namespaces, RuntimeClasses, CRDs). */
  readonly namespaced: boolean;
}

/** The API group of a kind or an apiVersion: `apps` for `apps/v1`, '' for the core group (`v1`). */
export function groupOf(kind: Pick<ApiKind, 'apiVersion'> | string): string {
  const apiVersion = typeof kind === 'string' ? kind : kind.apiVersion;
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * A child kind the controller creates, and deletes by uid, but never reads, lists or watches: the install
 * grants `create` and `delete` on it and nothing else, so the operator cannot read what it did not make
 * (a generated Secret: `writeOnly(SECRET)`). Its children must be create-only; the controller knows its
 * own by the uid the creation returned, kept in the resource's `status.createdChildren`.
 */
export interface WriteOnlyKind extends ApiKind {
  readonly writeOnly: true;
}

/** `kind` as a write-only child kind (see WriteOnlyKind). */
export function writeOnly(kind: ApiKind): WriteOnlyKind {
  return { ...kind, writeOnly: true };
}

/** Whether a child kind is write-only: no cache, no reads, create and delete only. */
export function isWriteOnly(kind: ApiKind): kind is WriteOnlyKind {
  return (kind as Partial<WriteOnlyKind>).writeOnly === true;
}

/** `apiVersion/Kind`, the key under which kinds are looked up. */
export function kindKey(kind: Pick<ApiKind, 'apiVersion' | 'kind'>): string {
  return `${kind.apiVersion}/${kind.kind}`;
}

const kind = (apiVersion: string, kindName: string, plural: string, namespaced = true): ApiKind => ({
  apiVersion,
  kind: kindName,
  plural,
  namespaced,
});

export const CONFIG_MAP = kind('v1', 'ConfigMap', 'configmaps');
export const SECRET = kind('v1', 'Secret', 'secrets');
export const SERVICE = kind('v1', 'Service', 'services');
export const SERVICE_ACCOUNT = kind('v1', 'ServiceAccount', 'serviceaccounts');
export const PERSISTENT_VOLUME_CLAIM = kind('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims');
export const POD = kind('v1', 'Pod', 'pods');
export const NODE = kind('v1', 'Node', 'nodes', false);
export const NAMESPACE = kind('v1', 'Namespace', 'namespaces', false);
export const EVENT = kind('v1', 'Event', 'events');
export const DEPLOYMENT = kind('apps/v1', 'Deployment', 'deployments');
export const STATEFUL_SET = kind('apps/v1', 'StatefulSet', 'statefulsets');
export const DAEMON_SET = kind('apps/v1', 'DaemonSet', 'daemonsets');
export const JOB = kind('batch/v1', 'Job', 'jobs');
export const CRON_JOB = kind('batch/v1', 'CronJob', 'cronjobs');
export const INGRESS = kind('networking.k8s.io/v1', 'Ingress', 'ingresses');
export const NETWORK_POLICY = kind('networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies');
export const POD_DISRUPTION_BUDGET = kind('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets');
export const HORIZONTAL_POD_AUTOSCALER = kind(
  'autoscaling/v2',
  'HorizontalPodAutoscaler',
  'horizontalpodautoscalers',
);
export const ROLE = kind('rbac.authorization.k8s.io/v1', 'Role', 'roles');
export const ROLE_BINDING = kind('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings');
export const RUNTIME_CLASS = kind('node.k8s.io/v1', 'RuntimeClass', 'runtimeclasses', false);
export const LEASE = kind('coordination.k8s.io/v1', 'Lease', 'leases');
export const CUSTOM_RESOURCE_DEFINITION = kind(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  false,
);
