/**
 * The RBAC rules the controller needs, derived from what its code does with the kinds it runs: their
 * resources, children, extra watches and syncs. The install grants exactly these, and no wildcards.
 * docs/RBAC.md says which code path uses each verb; the cluster tests run every controller under these
 * rules and fail on any 403.
 */
import {
  CUSTOM_RESOURCE_DEFINITION,
  EVENT,
  groupOf,
  isWriteOnly,
  type ApiKind,
  type Kind,
} from '../constructs/kit';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
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

/** The namespace of Events about cluster-scoped objects (controller/events.ts writes them there). */
const CLUSTER_EVENT_NAMESPACE = 'default';

const ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** Every grant, keyed by group, resource and whether it is namespaced. */
function grants(
  kinds: readonly Kind[],
): Map<string, { type: ApiKind; resource: string; verbs: Set<string> }> {
  const found = new Map<string, { type: ApiKind; resource: string; verbs: Set<string> }>();
  const grant = (type: ApiKind, resource: string, verbs: string[]) => {
    const key = `${groupOf(type)}\u0000${resource}`;
    const entry = found.get(key) ?? { type, resource, verbs: new Set<string>() };
    verbs.forEach((v) => entry.verbs.add(v));
    found.set(key, entry);
  };
  for (const kind of kinds) {
    // The informer lists and watches the resources; nothing reads one by name.
    grant(kind, kind.plural, ['list', 'watch']);
    // A kind with a sync adds and releases its finalizer with a merge patch of the resource.
    if (kind.sync) grant(kind, kind.plural, ['patch']);
    // Status is server-side applied to the status subresource.
    grant(kind, `${kind.plural}/status`, ['patch']);
    // Children's ownerReferences set blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement
    // admission plugin allows only to who may update the owner's finalizers.
    if (kind.children.length > 0) grant(kind, `${kind.plural}/finalizers`, ['update']);
    for (const child of kind.children) {
      // Write-only: created (POST), deleted by uid when no longer wanted; never read, never cached.
      if (isWriteOnly(child)) grant(child, child.plural, ['create', 'delete']);
      // list, watch: the caches (ours by label, everyone else's by metadata only: the same verbs).
      // get: one read of a name taken by an object not ours, or before re-creating a child with ignored
      // fields. create: create-only children (POST). patch: server-side apply, adoption, release of a
      // retained child. delete: pruning, with a uid precondition. Nothing is ever updated (PUT).
      else grant(child, child.plural, ['get', 'list', 'watch', 'create', 'patch', 'delete']);
    }
    // Extra watches are caches too; a sync merge-patches objects of the kinds it watches (it sees no others).
    for (const watch of kind.watches) {
      grant(watch.type, watch.type.plural, kind.sync ? ['list', 'watch', 'patch'] : ['list', 'watch']);
    }
  }
  // Events are created, and a repeat within the aggregation window patches the count (controller/events.ts).
  if (kinds.length > 0) grant(EVENT, EVENT.plural, ['create', 'patch']);
  // The CRDs' names (a metadata-only watch): a kind's CRD installed after the controller starts is picked
  // up at once (controller/manager.ts). Not in a namespaced install (see scopedRules).
  if (kinds.length > 0)
    grant(CUSTOM_RESOURCE_DEFINITION, CUSTOM_RESOURCE_DEFINITION.plural, ['list', 'watch']);
  return found;
}

function toRules(entries: Iterable<{ type: ApiKind; resource: string; verbs: Set<string> }>): PolicyRule[] {
  return [...entries]
    .map(({ type, resource, verbs }) => ({
      apiGroups: [groupOf(type)],
      resources: [resource],
      verbs: ORDER.filter((v) => verbs.has(v)),
    }))
    .sort((a, b) =>
      `${a.apiGroups[0]}/${a.resources[0]}`.localeCompare(`${b.apiGroups[0]}/${b.resources[0]}`),
    );
}

/** Every rule, for a controller that watches all namespaces: one ClusterRole. */
export function clusterRules(kinds: readonly Kind[]): PolicyRule[] {
  return toRules(grants(kinds).values());
}

/** The rules split by scope, for a controller that watches some namespaces only (`--namespaces`). */
export function scopedRules(kinds: readonly Kind[]): ScopedRules {
  // A controller confined to namespaces does not watch CRDs (a CRD installed later is picked up at its
  // caches' next retry, within 30 s), so that namespaced kinds need no cluster-wide grant at all.
  const all = [...grants(kinds).values()].filter((g) => g.type !== CUSTOM_RESOURCE_DEFINITION);
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

/** Rules in the lease namespace, for leader election: read, create and renew (PUT) the Lease. */
export function leaseRules(): PolicyRule[] {
  return [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }];
}
