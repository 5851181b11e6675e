/**
 * The previewer of `reconstruct install --previewer` (PreviewerAccess), offline: its rules and the policy
 * that admits its dry runs only (test/cli/preview.cluster.test.ts previews as it against the local API
 * server).
 */
import { builtinKinds } from '../../../constructs';
import { installManifests, type InstallOptions } from '../../../controller/install/install';
import { clusterRules, type PolicyRule } from '../../../controller/install/permissions';

type Doc = {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  rules?: PolicyRule[];
  subjects?: object[];
};

const render = (options: Partial<InstallOptions> = {}) =>
  installManifests({ kinds: builtinKinds, version: '0.0.0', ...options }) as Doc[];

describe('the previewer (install --previewer)', () => {
  const previewer = (docs: Doc[]) => docs.filter((d) => d.metadata.name.startsWith('reconstruct-previewer'));

  it('is not rendered unless asked', () => {
    expect(previewer(render())).toEqual([]);
  });

  it("has the controller's rules on the kinds but Events and the CRDs' patch, and reads the kinds' CRDs", () => {
    const docs = render({ previewer: true });
    const role = docs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'reconstruct-previewer');
    const controller = clusterRules(builtinKinds).filter(
      (r) =>
        r.resources[0] !== 'events' && !(r.resources[0] === 'customresourcedefinitions' && r.resourceNames),
    );
    expect(role?.rules).toEqual([
      ...controller,
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        verbs: ['get'],
        resourceNames: builtinKinds.map((k) => k.crd.metadata.name),
      },
    ]);
    const binding = docs.find(
      (d) => d.kind === 'ClusterRoleBinding' && d.metadata.name === 'reconstruct-previewer',
    );
    expect(binding?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'reconstruct-previewer', namespace: 'reconstruct-system' },
    ]);
  });

  it('refuses every write of its ServiceAccount that is not a dry run', () => {
    const docs = render({ previewer: true, namespace: 'ops' });
    const policy = docs.find((d) => d.kind === 'ValidatingAdmissionPolicy');
    expect(policy?.metadata.name).toBe('reconstruct-previewer-dry-run-only');
    expect(policy?.spec).toMatchObject({
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
        { expression: "request.userInfo.username == 'system:serviceaccount:ops:reconstruct-previewer'" },
      ],
      validations: [{ expression: 'request.dryRun == true' }],
    });
    const binding = docs.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding');
    expect(binding?.spec).toEqual({
      policyName: 'reconstruct-previewer-dry-run-only',
      validationActions: ['Deny'],
    });
  });

  it('grants per namespace as a namespaced install does', () => {
    const docs = previewer(render({ previewer: true, namespaces: ['a', 'b'] }));
    expect(docs.filter((d) => d.kind === 'Role').map((d) => d.metadata.namespace)).toEqual(['a', 'b']);
    expect(docs.filter((d) => d.kind === 'RoleBinding')).toHaveLength(2);
  });
});
