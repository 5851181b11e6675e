import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { version } from '../../package.json';

/** A smaller young generation: ~25 MB less RSS under bursts, for ~10% more CPU in them (docs/BENCHMARKS.md). */
export const CONTROLLER_NODE_OPTIONS = '--max-semi-space-size=4';

/** Where a webhook certificate Secret (cert-manager's) is mounted in the controller's pods. */
const WEBHOOK_CERT_DIR = '/var/run/reconstruct/webhook-certs';

export interface ControllerDeploymentProps {
  /** The name of the Deployment. */
  readonly name: string;
  /** Its namespace, where leader election takes its Lease. */
  readonly namespace: string;
  /** The ServiceAccount its pods run as (ControllerRbac's). */
  readonly serviceAccountName: string;
  /** Labels of the Deployment and of its pods, which it selects by them. */
  readonly labels: Record<string, string>;
  /**
   * The controller image: one that runs `reconstruct controller` (the package's Dockerfile builds one).
   * @default reconstruct:<this package's version>
   */
  readonly image?: string;
  /**
   * Pods; one leads, the others stand by.
   * @default 2
   */
  readonly replicas?: number;
  /**
   * Watch only these namespaces (`--namespaces`); the controller's grant must agree (ControllerRbac's
   * `namespaces`).
   * @default - all namespaces
   */
  readonly namespaces?: readonly string[];
  /**
   * Extra arguments of `reconstruct controller`, e.g. the `--kinds` the image runs.
   * @default - none
   */
  readonly controllerArgs?: readonly string[];
  /**
   * Serve the conversion webhook of kinds with several versions on the port named `webhook`, called
   * through the Service `<name>-webhook` (ConversionWebhookAccess).
   * @default false
   */
  readonly conversionWebhook?: boolean;
  /**
   * A Secret with the webhook's serving certificate (`tls.crt`, `tls.key`, cert-manager's), mounted and
   * passed as `--webhook-cert-dir`: the controller then serves it and makes none of its own.
   * @default - the controller's own certificates
   */
  readonly webhookCertSecret?: string;
}

/**
 * The controller's Deployment: replicas with leader election, health probes, requests and limits, JSON
 * logs, and a restricted security context (non-root, read-only root filesystem, no capabilities). The pods
 * serve `/healthz` and `/readyz` on the port named `health` and `/metrics` on the port named `metrics`.
 */
export class ControllerDeployment extends Construct {
  /** The port of `/healthz` and `/readyz`. */
  static readonly HEALTH_PORT = 8081;
  /** The port of `/metrics`. */
  static readonly METRICS_PORT = 8080;
  /** The port of the conversion webhook, for kinds with several versions. */
  static readonly WEBHOOK_PORT = 9443;

  readonly deployment: ApiObject;
  /** The labels of the Deployment and of its pods, which select them (a Service's, a NetworkPolicy's). */
  readonly labels: Record<string, string>;

  constructor(scope: Construct, id: string, props: ControllerDeploymentProps) {
    super(scope, id);
    const { name, namespace, labels } = props;
    const { HEALTH_PORT, METRICS_PORT, WEBHOOK_PORT } = ControllerDeployment;
    const webhook = props.conversionWebhook ?? false;
    const namespaces = [...new Set(props.namespaces ?? [])];
    const probe = (path: string) => ({
      httpGet: { path, port: 'health' },
      periodSeconds: 10,
      timeoutSeconds: 2,
    });
    this.labels = labels;
    this.deployment = new ApiObject(this, 'deployment', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels },
      spec: {
        replicas: props.replicas ?? 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: props.serviceAccountName,
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
                image: props.image ?? `reconstruct:${version}`,
                imagePullPolicy: 'IfNotPresent',
                args: [
                  'controller',
                  '--leader-elect',
                  `--lease-namespace=${namespace}`,
                  `--health-addr=0.0.0.0:${HEALTH_PORT}`,
                  `--metrics-addr=0.0.0.0:${METRICS_PORT}`,
                  '--log-format=json',
                  ...(namespaces.length > 0 ? [`--namespaces=${namespaces.join(',')}`] : []),
                  ...(webhook
                    ? [
                        `--webhook-addr=0.0.0.0:${WEBHOOK_PORT}`,
                        `--webhook-service=${namespace}/${name}-webhook`,
                      ]
                    : []),
                  ...(webhook && props.webhookCertSecret ? [`--webhook-cert-dir=${WEBHOOK_CERT_DIR}`] : []),
                  ...(props.controllerArgs ?? []),
                ],
                env: [{ name: 'NODE_OPTIONS', value: CONTROLLER_NODE_OPTIONS }],
                ports: [
                  { name: 'health', containerPort: HEALTH_PORT },
                  { name: 'metrics', containerPort: METRICS_PORT },
                  ...(webhook ? [{ name: 'webhook', containerPort: WEBHOOK_PORT }] : []),
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
                ...(webhook && props.webhookCertSecret
                  ? { volumeMounts: [{ name: 'webhook-certs', mountPath: WEBHOOK_CERT_DIR, readOnly: true }] }
                  : {}),
              },
            ],
            ...(webhook && props.webhookCertSecret
              ? { volumes: [{ name: 'webhook-certs', secret: { secretName: props.webhookCertSecret } }] }
              : {}),
          },
        },
      },
    });
  }
}
