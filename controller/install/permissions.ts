/**
 * The RBAC rules of the install: the grants the controller needs for the kinds it runs
 * (constructs/kit/grants.ts) as PolicyRules, whole for a cluster-wide install or split by scope for a
 * namespaced one, and the fixed rules of Events and the leader-election Lease. The install grants exactly
 * these, and no wildcards. docs/RBAC.md says which code path uses each verb; the cluster tests run every
 * controller under these rules and fail on any 403.
 */
import { CUSTOM_RESOURCE_DEFINITION, EVENT, groupOf, type Kind } from '../../constructs/kit';
import { kindGrants, type Grant } from '../../constructs/kit/grants';
import { KUBERNETES_VERBS } from '../../constructs/kit/permission';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** The rules, split by where a namespaced install grants them. */
interface ScopedRules {
  /** On cluster-scoped resources: always in a ClusterRole. */
  readonly cluster: PolicyRule[];
  /** On namespaced resources: a ClusterRole for a cluster-wide install, a Role per watched namespace otherwise. */
  readonly namespaced: PolicyRule[];
  /**
   * Where Events about cluster-scoped resources go (the controller records them in `default`, as `kubectl
   * describe` expects), when a kind is cluster-scoped; a namespaced install grants them there.
   */
  readonly eventNamespace?: string;
}

/** The namespace of Events about cluster-scoped objects (controller/kube/events.ts writes them there). */
const CLUSTER_EVENT_NAMESPACE = 'default';

/** The verbs in a rule in this order, the others (bind, escalate, ...) after them. */
const ORDER = KUBERNETES_VERBS;

function toRules(entries: Iterable<Grant>): PolicyRule[] {
  const sortKey = (r: PolicyRule) =>
    `${r.apiGroups[0]}/${r.resources[0]} ${(r.resourceNames ?? []).join(',')}`;
  return [...entries]
    .map(({ type, resource, verbs, names }) => ({
      apiGroups: [groupOf(type)],
      resources: [resource],
      verbs: ORDER.filter((v) => verbs.has(v)),
      ...(names.length > 0 ? { resourceNames: [...names] } : {}),
    }))
    .sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
}

/** Every rule, for a controller that watches all namespaces: one ClusterRole. */
export function clusterRules(kinds: readonly Kind[]): PolicyRule[] {
  return toRules(kindGrants(kinds));
}

/** The rules split by scope, for a controller that watches some namespaces only (`--namespaces`). */
export function scopedRules(kinds: readonly Kind[]): ScopedRules {
  // A controller confined to namespaces does not watch CRDs (a CRD installed later is picked up at its
  // caches' next retry, within 30 s), so that namespaced kinds need no cluster-wide grant at all; but
  // the conversion webhook still points the CRDs of kinds with several versions at itself (by name).
  const all = kindGrants(kinds).filter((g) => g.type !== CUSTOM_RESOURCE_DEFINITION || g.names.length > 0);
  return {
    cluster: toRules(all.filter((g) => !g.type.namespaced)),
    namespaced: toRules(all.filter((g) => g.type.namespaced)),
    eventNamespace: kinds.some((k) => !k.namespaced) ? CLUSTER_EVENT_NAMESPACE : undefined,
  };
}

/** The rules of Events only (for the namespace of cluster-scoped resources' Events). */
export function eventRules(): PolicyRule[] {
  return [{ apiGroups: [groupOf(EVENT)], resources: [EVENT.plural], verbs: ['create', 'patch'] }];
}

/**
 * Rules in the lease namespace, for leader election: read, create and renew (PUT) the Lease. Sharded, the
 * ring's leader also watches the members' Leases, labels them with their state, and removes dead ones.
 */
export function leaseRules(webhookCaSecret?: string, sharding = false): PolicyRule[] {
  return [
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'create', 'update', ...(sharding ? ['list', 'watch', 'patch', 'delete'] : [])],
    },
    // The conversion webhook's CA, shared by the replicas (controller/runtime/conversion-webhook.ts):
    // read and rotated by name; made by whichever replica starts first (a create cannot name its object).
    ...(webhookCaSecret
      ? [
          {
            apiGroups: [''],
            resources: ['secrets'],
            verbs: ['get', 'update'],
            resourceNames: [webhookCaSecret],
          },
          { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
        ]
      : []),
  ];
}
