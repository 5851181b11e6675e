import { ApiObject, type ApiObjectProps } from 'cdk8s';
import { Construct } from 'constructs';
import type { CustomResourceDefinition, Kind } from '../../constructs/kit';
import { argocdHealthConfigMap } from '../health/argocd';
import { ConversionWebhookAccess } from './conversion-webhook-access';
import { ControllerDeployment } from './controller-deployment';
import { ControllerRbac } from './controller-rbac';
import { MetricsAccess } from './metrics-access';
import { PreviewerAccess } from './previewer-access';

export interface InstallProps {
  /** The kinds the operator runs: their CRDs are installed and the ClusterRole grants what they need. */
  readonly kinds: readonly Kind[];
  /**
   * The operator's namespace, made by the install: its ServiceAccount, Deployment, leader-election Lease
   * and metrics Service are there.
   * @default reconstruct-system
   */
  readonly namespace?: string;
  /**
   * The controller image: one that runs `reconstruct controller` with the kinds (the package's Dockerfile
   * builds one).
   * @default reconstruct:<this package's version>
   */
  readonly image?: string;
  /**
   * Controller pods; one leads, the others stand by.
   * @default 2
   */
  readonly replicas?: number;
  /**
   * Watch and grant only these namespaces: a Role in each (they must exist), `--namespaces` for the
   * controller, and cluster-wide only what is cluster-scoped.
   * @default - all namespaces, with one ClusterRole
   */
  readonly namespaces?: readonly string[];
  /**
   * Extra arguments of `reconstruct controller`, e.g. the `--kinds` the image runs.
   * @default - none
   */
  readonly controllerArgs?: readonly string[];
  /**
   * Also a Prometheus Operator ServiceMonitor that scrapes the metrics Service (needs its CRD).
   * @default false
   */
  readonly serviceMonitor?: boolean;
  /**
   * /metrics over TLS, each scrape's token checked (TokenReview, SubjectAccessReview), with the
   * `<name>-metrics-reader` ClusterRole to bind to the scraper. It needs ClusterRoles, which a namespaced
   * install renders none of: there the metrics stay plain HTTP behind the NetworkPolicy.
   * @default - true for a cluster-wide install, false for a namespaced one
   */
  readonly metricsAuth?: boolean;
  /**
   * The conversion webhook's certificate from cert-manager (which must be installed): a self-signed
   * Issuer and a Certificate for the webhook's Service, mounted into the pods (`--webhook-cert-dir`), and
   * the CRDs' caBundle injected by cert-manager's cainjector. The controller then makes no CA, and needs
   * no Secret and no patch of CRDs. Only for kinds with several versions.
   * @default false - the controller makes, shares and rotates its own CA and certificates
   */
  readonly certManager?: boolean;
  /**
   * The replicas share the resources (`reconstruct controller --sharding`): each reconciles and caches the
   * namespaces the ring gives it, so memory and work per replica fall with more replicas. docs/SCALING.md.
   * @default false - one leader reconciles everything, the others wait with their caches warm
   */
  readonly sharding?: boolean;
  /**
   * Also who may run `reconstruct preview` against the cluster and write nothing: a
   * `reconstruct-previewer` ServiceAccount with the controller's rules on the kinds and a
   * ValidatingAdmissionPolicy that refuses its every write that is not a dry run (PreviewerAccess).
   * @default false
   */
  readonly previewer?: boolean;
  /**
   * Also Argo CD's health checks for the kinds: its `argocd-cm` ConfigMap, in this namespace, with one
   * Lua check per kind (`resource.customizations.health.<group>_<Kind>`) and no other key, so that Argo CD
   * shows a resource Progressing, Healthy, Degraded or Suspended as its status says (controller/health).
   * Apply it server-side, which adds the keys and keeps Argo CD's others.
   * @default - none
   */
  readonly argocdHealth?: { readonly namespace?: string };
}

/** The name of the ServiceAccount, roles, bindings and Deployment. */
const INSTALL_NAME = 'reconstruct-controller';
const LABELS = { 'app.kubernetes.io/name': 'reconstruct', 'app.kubernetes.io/component': 'controller' };

/**
 * Everything to run the operator in a cluster: the CRDs of its kinds, a Namespace, the controller's
 * ServiceAccount and RBAC with exactly what the kinds need (ControllerRbac), its Deployment with leader
 * election (ControllerDeployment), and who reaches its metrics (MetricsAccess). `reconstruct install`
 * prints it (installManifests); in a cdk8s app, put it in a chart without a namespace of its own, as it
 * names the namespace of each object. docs/RBAC.md explains each rule.
 */
/** A CRD whose conversion webhook is the install's Service, in the install's namespace. */
function withWebhookService(
  crd: CustomResourceDefinition,
  namespace: string,
  certManager: boolean,
): CustomResourceDefinition {
  const service = crd.spec.conversion?.webhook?.clientConfig?.service;
  if (!service) return { ...crd };
  const copy = structuredClone(crd);
  // cert-manager's cainjector writes the caBundle of the Certificate named here.
  if (certManager) {
    copy.metadata.annotations = {
      ...copy.metadata.annotations,
      'cert-manager.io/inject-ca-from': `${namespace}/${INSTALL_NAME}-webhook`,
    };
  }
  copy.spec.conversion!.webhook!.clientConfig!.service = {
    ...service,
    namespace,
    name: `${INSTALL_NAME}-webhook`,
  };
  return copy;
}

export class OperatorInstall extends Construct {
  /** One CustomResourceDefinition per kind, in the order of `kinds`. */
  readonly crds: readonly ApiObject[];
  /** The Namespace `namespace`. */
  readonly namespace: ApiObject;
  readonly rbac: ControllerRbac;
  readonly controller: ControllerDeployment;
  readonly metrics: MetricsAccess;
  /** Only when a kind has several versions. */
  readonly conversionWebhook?: ConversionWebhookAccess;
  /**
   * With two replicas or more (the default): a drain or an eviction takes one pod at a time, so one is
   * always left to serve conversions and to take the lease over (an unhealthy pod may still be evicted).
   */
  readonly disruptionBudget?: ApiObject;
  /** With `previewer`. */
  readonly previewer?: PreviewerAccess;
  /** With `argocdHealth`: Argo CD's `argocd-cm` with the kinds' health checks. */
  readonly argocdHealth?: ApiObject;

  constructor(scope: Construct, id: string, props: InstallProps) {
    super(scope, id);
    const namespace = props.namespace ?? 'reconstruct-system';
    // A kind with several versions converts through the controller, called through the install's Service.
    const converts = props.kinds.some((kind) => kind.versions.length > 1);
    const certManager = converts && props.certManager === true;
    this.crds = props.kinds.map(
      (kind, i) => new ApiObject(this, `crd-${i}`, withWebhookService(kind.crd, namespace, certManager)),
    );
    this.namespace = new ApiObject(this, 'namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels: LABELS },
    });
    this.rbac = new ControllerRbac(this, 'rbac', {
      kinds: props.kinds,
      name: INSTALL_NAME,
      namespace,
      namespaces: props.namespaces,
      labels: LABELS,
      // With cert-manager, the controller makes no CA and patches no CRD.
      ownWebhookCertificates: !certManager,
      sharding: props.sharding,
    });
    const metricsAuth = props.metricsAuth ?? !props.namespaces?.length;
    this.controller = new ControllerDeployment(this, 'controller', {
      name: INSTALL_NAME,
      namespace,
      serviceAccountName: this.rbac.serviceAccount.name,
      labels: LABELS,
      image: props.image,
      replicas: props.replicas,
      namespaces: props.namespaces,
      // The controller secures metrics it serves beyond loopback unless told not to.
      controllerArgs: [
        ...(props.sharding ? ['--sharding'] : []),
        ...(props.controllerArgs ?? []),
        ...(metricsAuth ? [] : ['--metrics-secure=false']),
      ],
      conversionWebhook: converts,
      ...(certManager ? { webhookCertSecret: `${INSTALL_NAME}-webhook-cert` } : {}),
    });
    this.metrics = new MetricsAccess(this, 'metrics', {
      controller: this.controller,
      serviceMonitor: props.serviceMonitor,
      auth: metricsAuth,
    });
    if ((props.replicas ?? 2) >= 2)
      this.disruptionBudget = new ApiObject(this, 'disruption-budget', {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: INSTALL_NAME, namespace, labels: LABELS },
        spec: {
          maxUnavailable: 1,
          selector: { matchLabels: this.controller.labels },
          unhealthyPodEvictionPolicy: 'AlwaysAllow',
        },
      });
    if (props.previewer)
      this.previewer = new PreviewerAccess(this, 'previewer', {
        kinds: props.kinds,
        namespace,
        namespaces: props.namespaces,
        labels: { ...LABELS, 'app.kubernetes.io/component': 'previewer' },
      });
    if (props.argocdHealth)
      this.argocdHealth = new ApiObject(
        this,
        'argocd-health',
        argocdHealthConfigMap(props.kinds, props.argocdHealth.namespace) as ApiObjectProps,
      );
    if (converts)
      this.conversionWebhook = new ConversionWebhookAccess(this, 'webhook', {
        controller: this.controller,
        ...(certManager ? { certManagerSecret: `${INSTALL_NAME}-webhook-cert` } : {}),
      });
  }
}
