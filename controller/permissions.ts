/**
 * The RBAC rules the controller needs, derived from the kinds it runs: their resources, children, extra
 * watches and syncs. The install manifests grant exactly what the kinds use, and no wildcards.
 */
import { CUSTOM_RESOURCE_DEFINITION, EVENT, groupOf, isWriteOnly, type Kind } from '../constructs/kit';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete'];

/** Cluster-wide rules: the custom resources, their children, what kinds watch or patch, events. */
export function clusterRules(kinds: readonly Kind[]): PolicyRule[] {
  const grants = new Map<string, Set<string>>();
  const grant = (group: string, resource: string, verbs: string[]) => {
    const key = `${group}\u0000${resource}`;
    const set = grants.get(key) ?? new Set<string>();
    verbs.forEach((v) => set.add(v));
    grants.set(key, set);
  };
  for (const kind of kinds) {
    const group = groupOf(kind);
    // patch: finalizers; status: the status subresource; finalizers: blockOwnerDeletion on children.
    grant(group, kind.plural, [...READ, 'patch']);
    grant(group, `${kind.plural}/status`, ['get', 'patch']);
    grant(group, `${kind.plural}/finalizers`, ['update']);
    // A write-only kind: created, and deleted by uid when no longer wanted; never read.
    for (const child of kind.children) {
      grant(groupOf(child), child.plural, isWriteOnly(child) ? ['create', 'delete'] : [...READ, ...WRITE]);
    }
    for (const watch of kind.watches) grant(groupOf(watch.type), watch.type.plural, READ);
    // A sync patches what the kind watches (NodePool's nodes).
    if (kind.sync) {
      for (const watch of kind.watches) grant(groupOf(watch.type), watch.type.plural, ['patch']);
    }
  }
  grant(groupOf(EVENT), EVENT.plural, ['create', 'patch']);
  // The names of the CRDs (metadata only): a kind's CRD installed after the controller starts is picked up
  // at once (see Manager).
  grant(groupOf(CUSTOM_RESOURCE_DEFINITION), CUSTOM_RESOURCE_DEFINITION.plural, ['list', 'watch']);
  const order = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  return [...grants]
    .map(([key, verbs]) => {
      const [group, resource] = key.split('\u0000');
      return { apiGroups: [group], resources: [resource], verbs: order.filter((v) => verbs.has(v)) };
    })
    .sort((a, b) =>
      `${a.apiGroups[0]}/${a.resources[0]}`.localeCompare(`${b.apiGroups[0]}/${b.resources[0]}`),
    );
}

/** Rules in the lease namespace, for leader election. */
export function leaseRules(): PolicyRule[] {
  return [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }];
}
