import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import type { Kind } from '../../constructs/kit';
import { WEBHOOK_CA_SECRET } from '../kube/certificates';
import { kindRoles, rbacObject, roleRef } from './kind-roles';
import { leaseRules } from './permissions';

export interface ControllerRbacProps {
  /** The kinds the controller runs: what it may do is derived from them (permissions.ts). */
  readonly kinds: readonly Kind[];
  /** The name of the ServiceAccount, of the roles and of their bindings. */
  readonly name: string;
  /** The controller's namespace: its ServiceAccount's, and the leader-election Lease's. */
  readonly namespace: string;
  /**
   * Grant only in these namespaces (the controller's `--namespaces`): a Role in each, and cluster-wide only
   * what is cluster-scoped. They must exist.
   * @default - all namespaces, with one ClusterRole
   */
  readonly namespaces?: readonly string[];
  /**
   * Labels of every object.
   * @default - none
   */
  readonly labels?: Record<string, string>;
  /**
   * The controller makes, shares and rotates the conversion webhook's CA and points the CRDs at it (the
   * CA Secret, the patch of those CRDs); false when cert-manager does (OperatorInstall's `certManager`).
   * @default true
   */
  readonly ownWebhookCertificates?: boolean;
  /** The replicas share the resources (`--sharding`): the ring's leader reads and cleans up their Leases. */
  readonly sharding?: boolean;
}

/**
 * The controller's ServiceAccount and exactly what it may do: a ClusterRole of the rules the kinds need (or,
 * for a namespaced install, a Role in each watched namespace and a ClusterRole for cluster-scoped resources
 * only, none if there are none), a Role for the leader-election Lease in its own namespace, and a binding of
 * each to the ServiceAccount. docs/RBAC.md explains each rule.
 */
export class ControllerRbac extends Construct {
  readonly serviceAccount: ApiObject;
  /** The rules on cluster-scoped resources, or on all of them when no namespaces are given. */
  readonly clusterRole?: ApiObject;
  readonly clusterRoleBinding?: ApiObject;
  /**
   * One per watched namespace, and one for the Events about cluster-scoped objects (in `default`) when a
   * kind is cluster-scoped; empty when no namespaces are given.
   */
  readonly roles: readonly ApiObject[];
  /** The bindings of `roles`, in their order. */
  readonly roleBindings: readonly ApiObject[];
  /** Get, create and renew the Lease of leader election: `<name>-leader-election`. */
  readonly leaseRole: ApiObject;
  readonly leaseRoleBinding: ApiObject;

  constructor(scope: Construct, id: string, props: ControllerRbacProps) {
    super(scope, id);
    const { name, namespace, labels } = props;
    this.serviceAccount = new ApiObject(this, 'service-account', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace, labels },
    });
    const subjects = [{ kind: 'ServiceAccount', name, namespace }];
    const own = props.ownWebhookCertificates ?? true;
    const granted = kindRoles(this, {
      kinds: props.kinds,
      name,
      subjects,
      namespaces: props.namespaces ?? [],
      labels,
      // Without its own certificates, the webhook patches no CRD: those named grants go.
      omit: (r) => !own && r.resources[0] === 'customresourcedefinitions' && !!r.resourceNames,
    });
    this.clusterRole = granted.clusterRole;
    this.clusterRoleBinding = granted.clusterRoleBinding;
    this.roles = granted.roles;
    this.roleBindings = granted.roleBindings;

    const leaseRoleName = `${name}-leader-election`;
    const leaseMetadata = { name: leaseRoleName, namespace, labels };
    const converts = props.kinds.some((k) => k.versions.length > 1);
    this.leaseRole = rbacObject(this, 'lease-role', 'Role', leaseMetadata, {
      rules: leaseRules(converts && own ? WEBHOOK_CA_SECRET : undefined, props.sharding ?? false),
    });
    this.leaseRoleBinding = rbacObject(this, 'lease-role-binding', 'RoleBinding', leaseMetadata, {
      roleRef: roleRef('Role', leaseRoleName),
      subjects,
    });
  }
}
