/** MetricsAccess: who reaches the controller's metrics port. */
import { App, Chart } from 'cdk8s';
import type { Manifest } from '../../../constructs';
import { ControllerDeployment } from '../../../controller/install/controller-deployment';
import { METRICS_NAMESPACE_LABEL, MetricsAccess } from '../../../controller/install/metrics-access';
import { toYaml } from '../../constructs/manifests';

type Spec = Record<string, unknown>;

function synth(
  serviceMonitor?: boolean,
  auth?: boolean,
): {
  metrics: MetricsAccess;
  manifests: (Manifest & { spec: Spec })[];
} {
  const chart = new Chart(new App(), 'test');
  const controller = new ControllerDeployment(chart, 'controller', {
    name: 'op',
    namespace: 'op-system',
    serviceAccountName: 'op',
    labels: { app: 'op' },
  });
  const metrics = new MetricsAccess(chart, 'metrics', { controller, serviceMonitor, auth });
  const manifests = (chart.toJson() as (Manifest & { spec: Spec })[]).filter(
    (m) => m.kind !== 'Deployment' && !m.kind.startsWith('ClusterRole'),
  );
  return { metrics, manifests };
}

describe('MetricsAccess', () => {
  it('renders the Service, the NetworkPolicy and the ServiceMonitor (snapshot)', () => {
    expect(toYaml(synth(true).manifests)).toMatchSnapshot();
  });

  it('GIVEN no options THEN a Service and a NetworkPolicy beside the controller, and no ServiceMonitor', () => {
    const { metrics, manifests } = synth();
    expect(metrics.serviceMonitor).toBeUndefined();
    expect(manifests.map((m) => `${m.kind}/${m.metadata.namespace}/${m.metadata.name}`)).toEqual([
      'Service/op-system/op-metrics',
      'NetworkPolicy/op-system/op-metrics',
    ]);
  });

  it('selects the controller’s pods, on its metrics port', () => {
    const { manifests } = synth();
    const [service, policy] = manifests;
    expect(service.spec.selector).toEqual({ app: 'op' });
    expect(service.spec.ports).toEqual([
      { name: 'metrics', port: ControllerDeployment.METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' },
    ]);
    expect(policy.spec.podSelector).toEqual({ matchLabels: { app: 'op' } });
  });

  it('admits only namespaces labelled metrics=enabled, and only to the metrics port', () => {
    const [, policy] = synth().manifests;
    expect(policy.spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: METRICS_NAMESPACE_LABEL } }],
        ports: [{ port: 'metrics', protocol: 'TCP' }],
      },
    ]);
  });

  it('GIVEN serviceMonitor THEN it scrapes the Service’s metrics port over HTTPS with its own token', () => {
    const { metrics, manifests } = synth(true);
    expect(metrics.serviceMonitor?.name).toBe('op');
    expect(manifests.find((m) => m.kind === 'ServiceMonitor')?.spec).toEqual({
      selector: { matchLabels: { app: 'op' } },
      endpoints: [
        {
          port: 'metrics',
          path: '/metrics',
          interval: '30s',
          scheme: 'https',
          bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
          tlsConfig: { insecureSkipVerify: true },
        },
      ],
    });
    // Without auth (a namespaced install): plain HTTP.
    const plain = synth(true, false).manifests.find((m) => m.kind === 'ServiceMonitor')?.spec;
    expect(plain?.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
  });

  it('lets the controller check scrapes and gives a role to bind scrapers to; none without auth', () => {
    const roles = (auth?: boolean) => {
      const chart = new Chart(new App(), 'test');
      const controller = new ControllerDeployment(chart, 'controller', {
        name: 'op',
        namespace: 'op-system',
        serviceAccountName: 'op-sa',
        labels: { app: 'op' },
      });
      new MetricsAccess(chart, 'metrics', { controller, auth });
      return (chart.toJson() as (Manifest & Record<string, unknown>)[]).filter((m) =>
        m.kind.startsWith('ClusterRole'),
      );
    };
    const [reader, auth, binding] = roles();
    expect([reader, auth, binding].map((r) => `${r.kind}/${r.metadata.name}`)).toEqual([
      'ClusterRole/op-metrics-reader',
      'ClusterRole/op-metrics-auth',
      'ClusterRoleBinding/op-metrics-auth',
    ]);
    expect(reader.rules).toEqual([{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
    expect(auth.rules).toEqual([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'op-sa', namespace: 'op-system' }]);
    expect(roles(false)).toEqual([]);
  });
});
