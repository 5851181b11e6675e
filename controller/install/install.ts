/**
 * Everything to run the operator in a cluster, as a cdk8s chart: the CRDs, a Namespace, a ServiceAccount,
 * RBAC with exactly what the registered kinds need (a ClusterRole; or, for a namespaced install, a Role
 * in each watched namespace and a ClusterRole for cluster-scoped resources only), a Role for the
 * leader-election Lease, the bindings, a Deployment of two replicas with leader election, probes,
 * resources and a restricted security context, a Service in front of its metrics (a ServiceMonitor too,
 * if asked) and a NetworkPolicy that admits to the metrics port only namespaces labelled `metrics:
 * enabled`. `reconstruct install` prints it; `kubectl apply -f` installs it. docs/RBAC.md explains each rule.
 */
import { ApiObject, App, Chart } from 'cdk8s';
import type { Kind } from '../../constructs/kit';
import { clusterRules, eventRules, leaseRules, scopedRules, type PolicyRule } from './permissions';

export interface InstallOptions {
  /** The kinds the operator runs: their CRDs are installed and the ClusterRole grants what they need. */
  readonly kinds: readonly Kind[];
  /** @default reconstruct-system */
  readonly namespace?: string;
  /** @default reconstruct:<package version> */
  readonly image?: string;
  /** @default 2 */
  readonly replicas?: number;
  /**
   * Watch and grant only these namespaces: a Role in each (they must exist), `--namespaces` for the
   * controller, and cluster-wide only what is cluster-scoped.
   * @default - all namespaces, with one ClusterRole
   */
  readonly namespaces?: readonly string[];
  /** Extra arguments of `reconstruct controller`, e.g. the `--kinds` the image runs. */
  readonly controllerArgs?: readonly string[];
  /**
   * Also a Prometheus Operator ServiceMonitor that scrapes the metrics Service (needs its CRD).
   * @default false
   */
  readonly serviceMonitor?: boolean;
}

const INSTALL_NAME = 'reconstruct-controller';
/** The label of namespaces whose pods may scrape the metrics (kubebuilder's convention). */
const METRICS_NAMESPACE_LABEL = { metrics: 'enabled' };
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
  const subjects = [{ kind: 'ServiceAccount', name: INSTALL_NAME, namespace }];
  const roleRef = (kind: 'ClusterRole' | 'Role') => ({
    apiGroup: 'rbac.authorization.k8s.io',
    kind,
    name: INSTALL_NAME,
  });
  const clusterRole = (rules: PolicyRule[]) => {
    if (rules.length === 0) return;
    object('cluster-role', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: INSTALL_NAME, labels },
      rules,
    });
    object('cluster-role-binding', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: INSTALL_NAME, labels },
      roleRef: roleRef('ClusterRole'),
      subjects,
    });
  };
  const role = (ns: string, rules: PolicyRule[]) => {
    object(`role-${ns}`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: INSTALL_NAME, namespace: ns, labels },
      rules,
    });
    object(`role-binding-${ns}`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: INSTALL_NAME, namespace: ns, labels },
      roleRef: roleRef('Role'),
      subjects,
    });
  };
  const namespaces = [...new Set(options.namespaces ?? [])];
  if (namespaces.length === 0) {
    clusterRole(clusterRules(options.kinds));
  } else {
    const scoped = scopedRules(options.kinds);
    clusterRole(scoped.cluster);
    for (const ns of namespaces) role(ns, scoped.namespaced);
    // Events about cluster-scoped resources go to one namespace of their own.
    if (scoped.eventNamespace && !namespaces.includes(scoped.eventNamespace)) {
      role(scoped.eventNamespace, eventRules());
    }
  }
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
    subjects,
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
                ...(namespaces.length > 0 ? [`--namespaces=${namespaces.join(',')}`] : []),
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
  // The metrics say what the operator manages and how its requests fare: only scrapers read them. Pods in
  // namespaces labelled metrics=enabled reach the metrics port; nothing else reaches the pods (a kubelet's
  // probes always do). Enforced by the cluster's network plugin, where it enforces NetworkPolicy.
  object('metrics-network-policy', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `${INSTALL_NAME}-metrics`, namespace, labels },
    spec: {
      podSelector: { matchLabels: labels },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ namespaceSelector: { matchLabels: METRICS_NAMESPACE_LABEL } }],
          ports: [{ port: 'metrics', protocol: 'TCP' }],
        },
      ],
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
