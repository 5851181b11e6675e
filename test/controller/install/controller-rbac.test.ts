/**
 * ControllerRbac: the ServiceAccount, the roles and their bindings, cluster-wide or per namespace.
 * What each rule holds is test/controller/install/install.test.ts's.
 */
import { App, Chart } from 'cdk8s';
import { builtinKinds, type Manifest } from '../../../constructs';
import { ControllerRbac, type ControllerRbacProps } from '../../../controller/install/controller-rbac';
import { clusterRules } from '../../../controller/install/permissions';
import { toYaml } from '../../constructs/manifests';
import { greetingKind } from '../../fixtures/kinds/greeting';
import { tenantNamespaceKind } from '../../fixtures/kinds/tenant-namespace';

type Binding = Manifest & { roleRef: { kind: string; name: string }; subjects: object[] };

function synth(props: Partial<ControllerRbacProps> = {}): { rbac: ControllerRbac; manifests: Manifest[] } {
  const chart = new Chart(new App(), 'test');
  const rbac = new ControllerRbac(chart, 'rbac', {
    kinds: [greetingKind],
    name: 'op',
    namespace: 'op-system',
    ...props,
  });
  return { rbac, manifests: chart.toJson() as Manifest[] };
}
const ids = (manifests: Manifest[]) =>
  manifests.map(
    (m) => `${m.kind}/${m.metadata.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata.name}`,
  );

describe('ControllerRbac', () => {
  describe('snapshots', () => {
    it('renders a cluster-wide grant', () => {
      expect(toYaml(synth({ labels: { app: 'op' } }).manifests)).toMatchSnapshot();
    });

    it('renders a grant in two namespaces for a cluster-scoped and a namespaced kind', () => {
      const { manifests } = synth({ kinds: [tenantNamespaceKind, greetingKind], namespaces: ['a', 'b'] });
      expect(toYaml(manifests)).toMatchSnapshot();
    });
  });

  it('GIVEN no namespaces THEN one ClusterRole holds every rule, and only the Lease has a Role', () => {
    const { rbac, manifests } = synth({ kinds: builtinKinds });
    expect(rbac.roles).toEqual([]);
    expect(rbac.roleBindings).toEqual([]);
    const clusterRole = manifests.find((m) => m.kind === 'ClusterRole') as Manifest & { rules: object[] };
    expect(clusterRole.rules).toEqual(clusterRules(builtinKinds));
    expect(ids(manifests)).toEqual([
      'ServiceAccount/op-system/op',
      'ClusterRole/op',
      'ClusterRoleBinding/op',
      'Role/op-system/op-leader-election',
      'RoleBinding/op-system/op-leader-election',
    ]);
  });

  it('binds every role to the ServiceAccount, each binding to the role of its name', () => {
    const { manifests } = synth({ kinds: [tenantNamespaceKind], namespaces: ['a'] });
    const bindings = manifests.filter((m) => m.kind.endsWith('Binding')) as Binding[];
    expect(bindings.map((b) => `${b.kind} -> ${b.roleRef.kind}/${b.roleRef.name}`)).toEqual([
      'ClusterRoleBinding -> ClusterRole/op',
      'RoleBinding -> Role/op',
      'RoleBinding -> Role/op',
      'RoleBinding -> Role/op-leader-election',
    ]);
    for (const binding of bindings) {
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'op', namespace: 'op-system' }]);
    }
  });

  it('GIVEN namespaces and only namespaced kinds THEN there is no ClusterRole', () => {
    const { rbac, manifests } = synth({ namespaces: ['a', 'a'] });
    expect(rbac.clusterRole).toBeUndefined();
    expect(rbac.clusterRoleBinding).toBeUndefined();
    expect(ids(manifests).filter((id) => id.startsWith('Role/'))).toEqual([
      'Role/a/op',
      'Role/op-system/op-leader-election',
    ]);
  });

  it('GIVEN a cluster-scoped kind THEN Events are granted in default, once, even when it is watched', () => {
    const roles = (namespaces: string[]) =>
      synth({ kinds: [tenantNamespaceKind], namespaces }).rbac.roles.map((r) => r.metadata.namespace);
    expect(roles(['a'])).toEqual(['a', 'default']);
    expect(roles(['default', 'a'])).toEqual(['default', 'a']);
  });
});
