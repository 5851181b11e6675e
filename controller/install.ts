/**
 * Everything to run the operator in a cluster, as a cdk8s chart: the CRDs, a Namespace, a ServiceAccount,
 * a ClusterRole with exactly what the registered kinds need, a Role for the leader-election Lease, the
 * bindings, a Deployment of two replicas with leader election, probes, resources and a restricted
 * security context, and a Service in front of its metrics (a ServiceMonitor too, if asked). `reconstruct
 * install` prints it; `kubectl apply -f` installs it.
 */
import { ApiObject, App, Chart } from 'cdk8s';
import type { Kind } from '../constructs/kit';
import { clusterRules, leaseRules } from './permissions';

export interface InstallOptions {
  /** The kinds the operator runs: their CRDs are installed and the ClusterRole grants what they need. */
  readonly kinds: readonly Kind[];
  /** @default reconstruct-system */
  readonly namespace?: string;
  /** @default reconstruct:<package version> */
  readonly image?: string;
  /** @default 2 */
  readonly replicas?: number;
  /** Extra arguments of `reconstruct controller`, e.g. the `--kinds` the image runs. */
  readonly controllerArgs?: readonly string[];
  /**
   * Also a Prometheus Operator ServiceMonitor that scrapes the metrics Service (needs its CRD).
   * @default false
   */
  readonly serviceMonitor?: boolean;
}

export const INSTALL_NAME = 'reconstruct-controller';
/** A smaller young generation: ~25 MB less RSS under bursts, for ~10% more CPU in them (docs/BENCHMARKS.md). */
export const CONTROLLER_NODE_OPTIONS = '--max-semi-space-size=4';
const HEALTH_PORT = 8081;
const METRICS_PORT = 8080;

export function installManifests(options: InstallOptions & { version: string }): unknown[] {
  const namespace = options.namespace ?? 'reconstruct-system';
  const labels = { 'app.kubernetes.io/name': 'reconstruct', 'app.kubernetes.io/component': 'controller' };
  const chart = new Chart(new App(), 'install', { disableResourceNameHashes: true });
  const object = (
    id: string,
    props: Record<string, unknown> & { apiVersion: string; kind: string; metadata: object },
  ) => new ApiObject(chart, id, props);

  options.kinds.forEach((kind, i) => object(`crd-${i}`, { ...kind.crd }));
  object('namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } });
  object('service-account', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: INSTALL_NAME, namespace, labels },
  });
  object('cluster-role', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: INSTALL_NAME, labels },
    rules: clusterRules(options.kinds),
  });
  object('cluster-role-binding', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: INSTALL_NAME, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: INSTALL_NAME },
    subjects: [{ kind: 'ServiceAccount', name: INSTALL_NAME, namespace }],
  });
  object('lease-role', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: `${INSTALL_NAME}-leader-election`, namespace, labels },
    rules: leaseRules(),
  });
  object('lease-role-binding', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${INSTALL_NAME}-leader-election`, namespace, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${INSTALL_NAME}-leader-election` },
    subjects: [{ kind: 'ServiceAccount', name: INSTALL_NAME, namespace }],
  });
  const probe = (path: string) => ({
    httpGet: { path, port: 'health' },
    periodSeconds: 10,
    timeoutSeconds: 2,
  });
  object('deployment', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: INSTALL_NAME, namespace, labels },
    spec: {
      replicas: options.replicas ?? 2,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: INSTALL_NAME,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'controller',
              image: options.image ?? `reconstruct:${options.version}`,
              imagePullPolicy: 'IfNotPresent',
              args: [
                'controller',
                '--leader-elect',
                `--lease-namespace=${namespace}`,
                `--health-addr=0.0.0.0:${HEALTH_PORT}`,
                `--metrics-addr=0.0.0.0:${METRICS_PORT}`,
                '--log-format=json',
                ...(options.controllerArgs ?? []),
              ],
              env: [{ name: 'NODE_OPTIONS', value: CONTROLLER_NODE_OPTIONS }],
              ports: [
                { name: 'health', containerPort: HEALTH_PORT },
                { name: 'metrics', containerPort: METRICS_PORT },
              ],
              livenessProbe: { ...probe('/healthz'), initialDelaySeconds: 5 },
              readinessProbe: probe('/readyz'),
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  });
  // The metrics of every replica (each counts its own work; only the leader reconciles).
  object('metrics-service', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `${INSTALL_NAME}-metrics`, namespace, labels },
    spec: {
      selector: labels,
      ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }],
    },
  });
  if (options.serviceMonitor) {
    object('service-monitor', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: INSTALL_NAME, namespace, labels },
      spec: {
        selector: { matchLabels: labels },
        endpoints: [{ port: 'metrics', path: '/metrics', interval: '30s' }],
      },
    });
  }
  return chart.toJson();
}
