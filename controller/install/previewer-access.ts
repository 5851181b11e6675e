/**
 * Who may run `reconstruct preview` against the cluster, and only preview: a ServiceAccount with the rules
 * the controller has on the kinds and their children (a dry run is authorized as the write it tries, so the
 * previewer needs the controller's verbs), and a ValidatingAdmissionPolicy that refuses every write of that
 * ServiceAccount that is not a dry run. RBAC alone cannot grant "dry run only"; admission can, since the
 * API server admits a dry run as it would the write, with `request.dryRun` set.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import type { Kind } from '../../constructs/kit';
import { kindRoles } from './kind-roles';

export interface PreviewerAccessProps {
  /** The kinds previewed: the roles grant what the controller of them may do. */
  readonly kinds: readonly Kind[];
  /** The ServiceAccount's namespace (the operator's). */
  readonly namespace: string;
  /**
   * The name of the ServiceAccount, the roles, the bindings and (with `-dry-run-only`) the policy.
   * @default reconstruct-previewer
   */
  readonly name?: string;
  /**
   * Grant only in these namespaces, as the controller's install does.
   * @default - all namespaces, with one ClusterRole
   */
  readonly namespaces?: readonly string[];
  /**
   * Labels of every object.
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

export class PreviewerAccess extends Construct {
  readonly serviceAccount: ApiObject;
  readonly clusterRole?: ApiObject;
  readonly clusterRoleBinding?: ApiObject;
  /** One per namespace of `namespaces`. */
  readonly roles: readonly ApiObject[];
  readonly roleBindings: readonly ApiObject[];
  /** Refuses each write of the ServiceAccount that is not a dry run, whatever the roles grant it. */
  readonly dryRunOnly: ApiObject;
  readonly dryRunOnlyBinding: ApiObject;
  /** `system:serviceaccount:<namespace>:<name>`: the user the API server sees. */
  readonly username: string;

  constructor(scope: Construct, id: string, props: PreviewerAccessProps) {
    super(scope, id);
    const name = props.name ?? 'reconstruct-previewer';
    const { namespace, labels } = props;
    this.username = `system:serviceaccount:${namespace}:${name}`;
    this.serviceAccount = new ApiObject(this, 'service-account', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace, labels },
    });
    const granted = kindRoles(this, {
      kinds: props.kinds,
      name,
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
      namespaces: props.namespaces ?? [],
      labels,
      // A preview records no Event and points no CRD at a webhook.
      omit: (r) =>
        r.resources[0] === 'events' || (r.resources[0] === 'customresourcedefinitions' && !!r.resourceNames),
      // It reads each kind's CRD: the versions objects are still stored in.
      extraClusterRules: [
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          verbs: ['get'],
          resourceNames: props.kinds.map((k) => k.crd.metadata.name),
        },
      ],
    });
    this.clusterRole = granted.clusterRole;
    this.clusterRoleBinding = granted.clusterRoleBinding;
    this.roles = granted.roles;
    this.roleBindings = granted.roleBindings;

    const policy = `${name}-dry-run-only`;
    this.dryRunOnly = new ApiObject(this, 'dry-run-only', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy, labels },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['*'],
              apiVersions: ['*'],
              resources: ['*/*'],
              operations: ['CREATE', 'UPDATE', 'DELETE'],
            },
          ],
        },
        matchConditions: [
          { name: 'the-previewer', expression: `request.userInfo.username == '${this.username}'` },
        ],
        validations: [
          {
            expression: 'request.dryRun == true',
            message: `${this.username} only previews: it may write with dryRun=All, nothing else`,
            reason: 'Forbidden',
          },
        ],
      },
    });
    this.dryRunOnlyBinding = new ApiObject(this, 'dry-run-only-binding', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy, labels },
      spec: { policyName: policy, validationActions: ['Deny'] },
    });
  }
}
