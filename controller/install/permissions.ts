/**
 * The RBAC rules the controller needs, derived from what its code does with the kinds it runs (their
 * resources, children, extra watches and finalizers), plus what each kind declares its own work needs
 * (`permissions`: a sync's patches, `bind` on a ClusterRole it hands out). The install grants exactly
 * these, and no wildcards. docs/RBAC.md says which code path uses each verb; the cluster tests run every
 * controller under these rules and fail on any 403.
 */
import {
  CUSTOM_RESOURCE_DEFINITION,
  EVENT,
  groupOf,
  isWriteOnly,
  type ApiKind,
  type Kind,
} from '../../constructs/kit';
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

interface Grant {
  type: ApiKind;
  resource: string;
  verbs: Set<string>;
  /** Only these objects; all of the resource when empty. */
  names: readonly string[];
}

/** Every grant, keyed by group, resource and the names it is limited to. */
function grants(kinds: readonly Kind[]): Map<string, Grant> {
  const found = new Map<string, Grant>();
  const grant = (
    type: ApiKind,
    resource: string,
    verbs: readonly string[],
    names: readonly string[] = [],
  ) => {
    const sorted = [...new Set(names)].sort();
    const key = `${groupOf(type)}\u0000${resource}\u0000${sorted.join('\u0000')}`;
    const entry = found.get(key) ?? { type, resource, verbs: new Set<string>(), names: sorted };
    verbs.forEach((v) => entry.verbs.add(v));
    found.set(key, entry);
  };
  for (const kind of kinds) {
    // The informer lists and watches the resources; nothing reads one by name.
    grant(kind, kind.plural, ['list', 'watch']);
    // A merge patch of the resource adds and releases a finalizer: a kind with a sync's, and the one that
    // holds a resource whose children wait for each other until they are deleted in order (any kind's
    // construct may ask for waitFor).
    grant(kind, kind.plural, ['patch']);
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
    // Extra watches are caches: read only. What a sync writes, the kind declares.
    for (const watch of kind.watches) grant(watch.type, watch.type.plural, ['list', 'watch']);
    for (const p of kind.permissions) {
      const resource = p.subresource ? `${p.type.plural}/${p.subresource}` : p.type.plural;
      grant(p.type, resource, p.verbs, p.resourceNames);
    }
  }
  // Events are created, and a repeat within the aggregation window patches the count (controller/kube/events.ts).
  if (kinds.length > 0) grant(EVENT, EVENT.plural, ['create', 'patch']);
  // The CRDs' names (a metadata-only watch): a kind's CRD installed after the controller starts is picked
  // up at once (controller/runtime/manager.ts). Not in a namespaced install (see scopedRules).
  if (kinds.length > 0)
    grant(CUSTOM_RESOURCE_DEFINITION, CUSTOM_RESOURCE_DEFINITION.plural, ['list', 'watch']);
  return found;
}

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

/**
 * Whether the rules of `kind` let the controller `verb` the object `name` of `type`: a sync's patch is
 * checked before it is sent, so that a kind that forgot to declare it fails in its unit tests, naming
 * what to declare, rather than with a 403 in a cluster.
 */
export function kindMay(kind: Kind, type: ApiKind, verb: string, name: string): boolean {
  return [...grants([kind]).values()].some(
    (g) =>
      groupOf(g.type) === groupOf(type) &&
      g.resource === type.plural &&
      g.verbs.has(verb) &&
      (g.names.length === 0 || g.names.includes(name)),
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
