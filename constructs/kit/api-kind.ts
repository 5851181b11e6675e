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

/** Whether a value has the shape of an ApiKind (for checks of a kind's definition). */
export function isApiKind(value: unknown): value is ApiKind {
  const k = value as Partial<ApiKind> | undefined;
  return (
    typeof k?.apiVersion === 'string' &&
    k.apiVersion !== '' &&
    typeof k.kind === 'string' &&
    k.kind !== '' &&
    typeof k.plural === 'string' &&
    k.plural !== '' &&
    typeof k.namespaced === 'boolean'
  );
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

/**
 * An API kind the constants below do not name, e.g. `apiKind('cert-manager.io/v1', 'Certificate',
 * 'certificates')` or, cluster-scoped, `apiKind('scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses',
 * false)`. The plural is the resource in the API path (`kubectl api-resources` lists it, with whether it is
 * namespaced). An object literal of the same four fields is the same thing.
 */
export function apiKind(apiVersion: string, kindName: string, plural: string, namespaced = true): ApiKind {
  return { apiVersion, kind: kindName, plural, namespaced };
}
const kind = apiKind;

export const CONFIG_MAP = kind('v1', 'ConfigMap', 'configmaps');
export const SECRET = kind('v1', 'Secret', 'secrets');
export const SERVICE = kind('v1', 'Service', 'services');
export const SERVICE_ACCOUNT = kind('v1', 'ServiceAccount', 'serviceaccounts');
export const PERSISTENT_VOLUME_CLAIM = kind('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims');
export const POD = kind('v1', 'Pod', 'pods');
export const PERSISTENT_VOLUME = kind('v1', 'PersistentVolume', 'persistentvolumes', false);
export const RESOURCE_QUOTA = kind('v1', 'ResourceQuota', 'resourcequotas');
export const LIMIT_RANGE = kind('v1', 'LimitRange', 'limitranges');
export const ENDPOINTS = kind('v1', 'Endpoints', 'endpoints');
export const NODE = kind('v1', 'Node', 'nodes', false);
export const NAMESPACE = kind('v1', 'Namespace', 'namespaces', false);
export const EVENT = kind('v1', 'Event', 'events');
export const DEPLOYMENT = kind('apps/v1', 'Deployment', 'deployments');
export const STATEFUL_SET = kind('apps/v1', 'StatefulSet', 'statefulsets');
export const DAEMON_SET = kind('apps/v1', 'DaemonSet', 'daemonsets');
export const REPLICA_SET = kind('apps/v1', 'ReplicaSet', 'replicasets');
export const JOB = kind('batch/v1', 'Job', 'jobs');
export const CRON_JOB = kind('batch/v1', 'CronJob', 'cronjobs');
export const INGRESS = kind('networking.k8s.io/v1', 'Ingress', 'ingresses');
export const NETWORK_POLICY = kind('networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies');
export const INGRESS_CLASS = kind('networking.k8s.io/v1', 'IngressClass', 'ingressclasses', false);
export const ENDPOINT_SLICE = kind('discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices');
export const POD_DISRUPTION_BUDGET = kind('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets');
export const HORIZONTAL_POD_AUTOSCALER = kind(
  'autoscaling/v2',
  'HorizontalPodAutoscaler',
  'horizontalpodautoscalers',
);
export const ROLE = kind('rbac.authorization.k8s.io/v1', 'Role', 'roles');
export const ROLE_BINDING = kind('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings');
export const CLUSTER_ROLE = kind('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false);
export const CLUSTER_ROLE_BINDING = kind(
  'rbac.authorization.k8s.io/v1',
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
);
export const PRIORITY_CLASS = kind('scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses', false);
export const STORAGE_CLASS = kind('storage.k8s.io/v1', 'StorageClass', 'storageclasses', false);
export const VALIDATING_WEBHOOK_CONFIGURATION = kind(
  'admissionregistration.k8s.io/v1',
  'ValidatingWebhookConfiguration',
  'validatingwebhookconfigurations',
  false,
);
export const MUTATING_WEBHOOK_CONFIGURATION = kind(
  'admissionregistration.k8s.io/v1',
  'MutatingWebhookConfiguration',
  'mutatingwebhookconfigurations',
  false,
);
export const RUNTIME_CLASS = kind('node.k8s.io/v1', 'RuntimeClass', 'runtimeclasses', false);
export const LEASE = kind('coordination.k8s.io/v1', 'Lease', 'leases');
export const CUSTOM_RESOURCE_DEFINITION = kind(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  false,
);
