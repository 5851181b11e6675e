/**
 * The RBAC rules the controller needs, derived from the registry and each kind's behaviour: one list in
 * the code, so the install manifests grant exactly what the registered kinds use, and no wildcards.
 */
import { kinds } from '../constructs/registry';
import { behaviours } from './kinds';
import { EVENT, type ResourceType } from './kube/paths';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const groupOf = (type: ResourceType) => (type.apiVersion.includes('/') ? type.apiVersion.split('/')[0] : '');
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete'];

/** Cluster-wide rules: the custom resources, their children, what kinds watch or patch, events. */
export function clusterRules(): PolicyRule[] {
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
    for (const child of kind.children) grant(groupOf(child), child.plural, [...READ, ...WRITE]);
    const behaviour = behaviours[`${kind.apiVersion}/${kind.kind}`];
    for (const watch of behaviour.watches ?? []) grant(groupOf(watch.type), watch.type.plural, READ);
    if (behaviour.extension) {
      for (const watch of behaviour.watches ?? []) grant(groupOf(watch.type), watch.type.plural, ['patch']);
    }
  }
  grant(groupOf(EVENT), EVENT.plural, ['create', 'patch']);
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
