import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ControllerDeployment } from './controller-deployment';

/** The label of namespaces whose pods may scrape the metrics (kubebuilder's convention). */
export const METRICS_NAMESPACE_LABEL: Readonly<Record<string, string>> = { metrics: 'enabled' };

export interface MetricsAccessProps {
  /** The controller whose metrics port to expose. */
  readonly controller: ControllerDeployment;
  /**
   * Also a Prometheus Operator ServiceMonitor that scrapes the metrics Service (needs its CRD).
   * @default false
   */
  readonly serviceMonitor?: boolean;
  /**
   * The controller checks each scrape's token (`--metrics-secure`, its default beyond loopback): the
   * metrics-reader and metrics-auth ClusterRoles, and a ServiceMonitor over HTTPS with its token.
   * @default true
   */
  readonly auth?: boolean;
}

/**
 * Who reaches the controller's metrics: a Service `<name>-metrics` in front of every replica's (each counts
 * its own work; only the leader reconciles), a NetworkPolicy that admits to the metrics port only pods of
 * namespaces labelled `metrics: enabled`, and, if asked, a ServiceMonitor. docs/RBAC.md says why.
 */
export class MetricsAccess extends Construct {
  readonly service: ApiObject;
  readonly networkPolicy: ApiObject;
  /** Only with `serviceMonitor`. */
  readonly serviceMonitor?: ApiObject;
  /** With `auth`: `get` on the non-resource URL /metrics, to bind to the scraper's ServiceAccount. */
  readonly readerRole?: ApiObject;
  /** With `auth`: what the controller needs to check a scrape (TokenReviews, SubjectAccessReviews). */
  readonly authRole?: ApiObject;
  readonly authBinding?: ApiObject;

  constructor(scope: Construct, id: string, props: MetricsAccessProps) {
    super(scope, id);
    const { deployment, labels } = props.controller;
    const { name, namespace } = deployment.metadata;
    const auth = props.auth ?? true;
    if (auth) {
      const serviceAccountName = (
        deployment.toJson() as { spec: { template: { spec: { serviceAccountName: string } } } }
      ).spec.template.spec.serviceAccountName;
      // Each scrape's bearer token is checked (controller/runtime/metrics-auth.ts), as kubebuilder's
      // metrics-auth-role and metrics-reader do since controller-runtime 0.16.
      this.readerRole = new ApiObject(this, 'reader-role', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: `${name}-metrics-reader`, labels },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      });
      this.authRole = new ApiObject(this, 'auth-role', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: `${name}-metrics-auth`, labels },
        rules: [
          { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
          { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
        ],
      });
      this.authBinding = new ApiObject(this, 'auth-binding', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${name}-metrics-auth`, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${name}-metrics-auth` },
        subjects: [{ kind: 'ServiceAccount', name: serviceAccountName, namespace }],
      });
    }
    const metadata = { name: `${name}-metrics`, namespace, labels };
    this.service = new ApiObject(this, 'service', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: {
        selector: labels,
        ports: [
          {
            name: 'metrics',
            port: ControllerDeployment.METRICS_PORT,
            targetPort: 'metrics',
            protocol: 'TCP',
          },
        ],
      },
    });
    // The metrics say what the operator manages and how its requests fare: only scrapers read them. Pods in
    // namespaces labelled metrics=enabled reach the metrics port; nothing else reaches the pods (a kubelet's
    // probes always do). Enforced by the cluster's network plugin, where it enforces NetworkPolicy.
    this.networkPolicy = new ApiObject(this, 'network-policy', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata,
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
    if (props.serviceMonitor) {
      this.serviceMonitor = new ApiObject(this, 'service-monitor', {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'ServiceMonitor',
        metadata: { name, namespace, labels },
        spec: {
          // Selects the metrics Service by its labels.
          selector: { matchLabels: labels },
          // HTTPS with Prometheus's own token, which needs the metrics-reader ClusterRole; the certificate
          // is the controller's self-signed one unless the install mounts one (--metrics-cert-dir).
          endpoints: [
            {
              port: 'metrics',
              path: '/metrics',
              interval: '30s',
              ...(auth
                ? {
                    scheme: 'https',
                    bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
                    tlsConfig: { insecureSkipVerify: true },
                  }
                : {}),
            },
          ],
        },
      });
    }
  }
}
