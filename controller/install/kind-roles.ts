/**
 * The roles of what a subject may do to the kinds and their children: one ClusterRole (cluster-wide), or a
 * Role in each namespace and a ClusterRole for cluster-scoped resources only (`namespaces`), each bound to
 * the subjects. The controller's grant (ControllerRbac) and the previewer's (PreviewerAccess) are both made
 * here, from the same rules (permissions.ts).
 */
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import type { Kind } from '../../constructs/kit';
import { clusterRules, eventRules, scopedRules, type PolicyRule } from './permissions';

export interface KindRolesProps {
  readonly kinds: readonly Kind[];
  /** The name of each role and binding. */
  readonly name: string;
  readonly subjects: readonly object[];
  /** Grant only in these namespaces (a Role in each); none: one ClusterRole. */
  readonly namespaces: readonly string[];
  readonly labels?: Record<string, string>;
  /** Which of the kinds' rules to leave out. */
  readonly omit?: (rule: PolicyRule) => boolean;
  /** Rules on cluster-scoped resources to add to the ClusterRole. */
  readonly extraClusterRules?: readonly PolicyRule[];
}

export interface KindRoles {
  readonly clusterRole?: ApiObject;
  readonly clusterRoleBinding?: ApiObject;
  readonly roles: readonly ApiObject[];
  readonly roleBindings: readonly ApiObject[];
}

export const rbacObject = (scope: Construct, id: string, kind: string, metadata: object, body: object) =>
  new ApiObject(scope, id, { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata, ...body });

export const roleRef = (kind: 'ClusterRole' | 'Role', name: string) => ({
  apiGroup: 'rbac.authorization.k8s.io',
  kind,
  name,
});

/** The roles and bindings, made in `scope` (ids `cluster-role`, `role-<namespace>`, ...). */
export function kindRoles(scope: Construct, props: KindRolesProps): KindRoles {
  const { name, labels, subjects } = props;
  const namespaces = [...new Set(props.namespaces)];
  const scoped = namespaces.length === 0 ? undefined : scopedRules(props.kinds);
  const keep = (r: PolicyRule) => !props.omit?.(r);
  const clusterWide = [
    ...(scoped ? scoped.cluster : clusterRules(props.kinds)).filter(keep),
    ...(props.extraClusterRules ?? []),
  ];
  let clusterRole: ApiObject | undefined;
  let clusterRoleBinding: ApiObject | undefined;
  if (clusterWide.length > 0) {
    clusterRole = rbacObject(scope, 'cluster-role', 'ClusterRole', { name, labels }, { rules: clusterWide });
    clusterRoleBinding = rbacObject(
      scope,
      'cluster-role-binding',
      'ClusterRoleBinding',
      { name, labels },
      { roleRef: roleRef('ClusterRole', name), subjects },
    );
  }
  const roles: ApiObject[] = [];
  const roleBindings: ApiObject[] = [];
  const role = (ns: string, rules: PolicyRule[]) => {
    const metadata = { name, namespace: ns, labels };
    roles.push(rbacObject(scope, `role-${ns}`, 'Role', metadata, { rules }));
    roleBindings.push(
      rbacObject(scope, `role-binding-${ns}`, 'RoleBinding', metadata, {
        roleRef: roleRef('Role', name),
        subjects,
      }),
    );
  };
  if (scoped) {
    for (const ns of namespaces) role(ns, scoped.namespaced.filter(keep));
    // Events about cluster-scoped resources go to one namespace of their own.
    if (scoped.eventNamespace && !namespaces.includes(scoped.eventNamespace)) {
      const events = eventRules().filter(keep);
      if (events.length > 0) role(scoped.eventNamespace, events);
    }
  }
  return { clusterRole, clusterRoleBinding, roles, roleBindings };
}
