import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ControllerDeployment } from './controller-deployment';

export interface ConversionWebhookAccessProps {
  /** The controller whose conversion webhook to expose (made with `conversionWebhook`). */
  readonly controller: ControllerDeployment;
  /**
   * The Secret cert-manager writes the serving certificate to: a self-signed Issuer and a Certificate for
   * the Service's names (the CRDs' `cert-manager.io/inject-ca-from` names the Certificate).
   * @default - none: the controller makes its own
   */
  readonly certManagerSecret?: string;
}

/**
 * How the API server reaches the controller's conversion webhook, for kinds with several versions: a
 * Service `<name>-webhook` on port 443 in front of every replica (all of them convert, not only the
 * leader), and a NetworkPolicy that lets anything reach the webhook port, since the API server's address
 * is not a pod's (it may be outside the pod network altogether). The controller itself writes the CRDs'
 * caBundle (controller/runtime/conversion-webhook.ts); `OperatorInstall` points the CRDs at this Service.
 */
export class ConversionWebhookAccess extends Construct {
  readonly service: ApiObject;
  readonly networkPolicy: ApiObject;
  /** With `certManagerSecret`: cert-manager's self-signed Issuer and the webhook's Certificate. */
  readonly issuer?: ApiObject;
  readonly certificate?: ApiObject;

  constructor(scope: Construct, id: string, props: ConversionWebhookAccessProps) {
    super(scope, id);
    const { deployment, labels } = props.controller;
    const { name, namespace } = deployment.metadata;
    const metadata = { name: `${name}-webhook`, namespace, labels };
    this.service = new ApiObject(this, 'service', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: {
        selector: labels,
        ports: [{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }],
      },
    });
    this.networkPolicy = new ApiObject(this, 'network-policy', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata,
      spec: {
        podSelector: { matchLabels: labels },
        policyTypes: ['Ingress'],
        ingress: [{ ports: [{ port: 'webhook', protocol: 'TCP' }] }],
      },
    });
    if (props.certManagerSecret) {
      // As kubebuilder's scaffold: a self-signed Issuer, and a Certificate for the Service's DNS names.
      this.issuer = new ApiObject(this, 'issuer', {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: `${name}-webhook-selfsigned`, namespace, labels },
        spec: { selfSigned: {} },
      });
      this.certificate = new ApiObject(this, 'certificate', {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata,
        spec: {
          secretName: props.certManagerSecret,
          dnsNames: [`${name}-webhook.${namespace}.svc`, `${name}-webhook.${namespace}.svc.cluster.local`],
          issuerRef: { kind: 'Issuer', name: `${name}-webhook-selfsigned` },
        },
      });
    }
  }
}
