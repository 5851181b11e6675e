/**
 * The OperatorInstall construct: what it renders (snapshots), its defaults, how its parts fit together,
 * and that installManifests is it, synthesized.
 */
import { App, Chart } from 'cdk8s';
import { builtinKinds, type Manifest } from '../../../constructs';
import { installManifests } from '../../../controller/install/install';
import { OperatorInstall, type InstallProps } from '../../../controller/install/operator-install';
import { version } from '../../../package.json';
import { toYaml } from '../../constructs/manifests';
import { greetingKind } from '../../fixtures/kinds/greeting';
import { tenantNamespaceKind } from '../../fixtures/kinds/tenant-namespace';

type Container = { image: string; args: string[] };
type Deployment = Manifest & {
  spec: {
    replicas: number;
    template: {
      metadata: { labels: Record<string, string> };
      spec: { serviceAccountName: string; containers: Container[] };
    };
  };
};

function synth(props: InstallProps): { install: OperatorInstall; manifests: Manifest[] } {
  const chart = new Chart(new App(), 'test');
  const install = new OperatorInstall(chart, 'install', props);
  return { install, manifests: chart.toJson() as Manifest[] };
}
const ids = (manifests: Manifest[]) =>
  manifests.map(
    (m) => `${m.kind}/${m.metadata.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata.name}`,
  );
const deploymentOf = (manifests: Manifest[]) => manifests.find((m) => m.kind === 'Deployment') as Deployment;

describe('OperatorInstall', () => {
  describe('snapshots', () => {
    it('renders the install of one kind with the defaults but the image (its tag is the package version)', () => {
      expect(toYaml(synth({ kinds: [greetingKind], image: 'reconstruct:test' }).manifests)).toMatchSnapshot();
    });

    it('renders a namespaced install of a cluster-scoped and a namespaced kind, with every option', () => {
      const { manifests } = synth({
        kinds: [tenantNamespaceKind, greetingKind],
        namespace: 'ops',
        namespaces: ['a', 'b'],
        image: 'registry.example.com/reconstruct:1.0.0',
        replicas: 3,
        controllerArgs: ['--kinds=dist/kinds.js'],
        serviceMonitor: true,
      });
      expect(toYaml(manifests.filter((m) => m.kind !== 'CustomResourceDefinition'))).toMatchSnapshot();
    });
  });

  describe('GIVEN only the kinds', () => {
    const { install, manifests } = synth({ kinds: [greetingKind] });

    it('THEN it installs into reconstruct-system', () => {
      expect(install.namespace.name).toBe('reconstruct-system');
      const namespaced = manifests.filter((m) => m.metadata.namespace !== undefined);
      expect(new Set(namespaced.map((m) => m.metadata.namespace))).toEqual(new Set(['reconstruct-system']));
    });

    it('THEN two replicas run the image of this package’s version, watching every namespace', () => {
      const deployment = deploymentOf(manifests);
      expect(deployment.spec.replicas).toBe(2);
      expect(deployment.spec.template.spec.containers[0].image).toBe(`reconstruct:${version}`);
      expect(deployment.spec.template.spec.containers[0].args.some((a) => a.startsWith('--namespaces'))).toBe(
        false,
      );
    });

    it('THEN one ClusterRole grants what the kinds need, with no Role but the Lease’s, no ServiceMonitor, and the metrics behind authentication', () => {
      expect(install.rbac.clusterRole).toBeDefined();
      expect(install.rbac.roles).toEqual([]);
      expect(install.metrics.serviceMonitor).toBeUndefined();
      expect(ids(manifests)).toEqual([
        'CustomResourceDefinition/greetings.greetings.example.com',
        'Namespace/reconstruct-system',
        'ServiceAccount/reconstruct-system/reconstruct-controller',
        'ClusterRole/reconstruct-controller',
        'ClusterRoleBinding/reconstruct-controller',
        'Role/reconstruct-system/reconstruct-controller-leader-election',
        'RoleBinding/reconstruct-system/reconstruct-controller-leader-election',
        'Deployment/reconstruct-system/reconstruct-controller',
        'ClusterRole/reconstruct-controller-metrics-reader',
        'ClusterRole/reconstruct-controller-metrics-auth',
        'ClusterRoleBinding/reconstruct-controller-metrics-auth',
        'Service/reconstruct-system/reconstruct-controller-metrics',
        'NetworkPolicy/reconstruct-system/reconstruct-controller-metrics',
        'PodDisruptionBudget/reconstruct-system/reconstruct-controller',
      ]);
      // Secured by the controller's default beyond loopback; a namespaced install turns it off (below).
      expect(deploymentOf(manifests).spec.template.spec.containers[0].args).not.toContain(
        '--metrics-secure=false',
      );
    });
  });

  it('exposes its children: a CRD per kind, in order, and the parts', () => {
    const { install } = synth({ kinds: builtinKinds, serviceMonitor: true });
    expect(install.crds.map((crd) => crd.name)).toEqual(builtinKinds.map((k) => k.crd.metadata.name));
    expect(install.controller.deployment.kind).toBe('Deployment');
    expect(install.metrics.serviceMonitor?.kind).toBe('ServiceMonitor');
  });

  it('runs the controller as the ServiceAccount its RBAC binds, and its metrics Service selects its pods', () => {
    const { install, manifests } = synth({ kinds: [greetingKind] });
    const deployment = deploymentOf(manifests);
    expect(deployment.spec.template.spec.serviceAccountName).toBe(install.rbac.serviceAccount.name);
    const service = manifests.find((m) => m.kind === 'Service') as Manifest & {
      spec: { selector: Record<string, string> };
    };
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
  });

  it('lets a drain evict one of two replicas at a time, its pods selected; one replica gets no budget', () => {
    const { install, manifests } = synth({ kinds: [greetingKind] });
    const budget = manifests.find((m) => m.kind === 'PodDisruptionBudget') as Manifest & {
      spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } };
    };
    expect(budget.spec.maxUnavailable).toBe(1);
    expect(deploymentOf(manifests).spec.template.metadata.labels).toMatchObject(
      budget.spec.selector.matchLabels,
    );
    expect(install.disruptionBudget?.kind).toBe('PodDisruptionBudget');
    // One replica: a budget of one unavailable would not hold a drain back, and none of zero would block it.
    expect(synth({ kinds: [greetingKind], replicas: 1 }).manifests.map((m) => m.kind)).not.toContain(
      'PodDisruptionBudget',
    );
  });

  it('runs the replicas as a ring with sharding, the lease Role granting what its leader does with Leases', () => {
    const leaseVerbs = (manifests: Manifest[]) =>
      (
        manifests.find(
          (m) => m.kind === 'Role' && m.metadata.name === 'reconstruct-controller-leader-election',
        ) as (Manifest & { rules: { resources: string[]; verbs: string[] }[] }) | undefined
      )?.rules.find((r) => r.resources.includes('leases'))?.verbs;
    const sharded = synth({ kinds: [greetingKind], sharding: true }).manifests;
    expect(deploymentOf(sharded).spec.template.spec.containers[0].args).toContain('--sharding');
    expect(leaseVerbs(sharded)).toEqual(['get', 'create', 'update', 'list', 'watch', 'patch', 'delete']);
    const plain = synth({ kinds: [greetingKind] }).manifests;
    expect(deploymentOf(plain).spec.template.spec.containers[0].args).not.toContain('--sharding');
    expect(leaseVerbs(plain)).toEqual(['get', 'create', 'update']);
  });

  it('watches and grants the same namespaces, each once', () => {
    const { install, manifests } = synth({ kinds: [greetingKind], namespaces: ['b', 'a', 'b'] });
    expect(install.rbac.roles.map((r) => r.metadata.namespace)).toEqual(['b', 'a']);
    expect(deploymentOf(manifests).spec.template.spec.containers[0].args).toContain('--namespaces=b,a');
  });

  it('is what installManifests renders, in a chart of its own', () => {
    const props: InstallProps = { kinds: builtinKinds, namespaces: ['a'], serviceMonitor: true };
    expect(synth(props).manifests).toEqual(installManifests({ ...props, version }));
  });
});
