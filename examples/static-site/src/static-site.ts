import { createHash } from 'crypto';
import { ApiObject, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  SERVICE,
  SpecError,
  admitSpec,
  checkServiceName,
  childPolicy,
  fromChild,
  withoutAddressLabel,
  type InputValues,
  type ResourceProps,
} from 'cdk8s-reconstruct';
import { CONTAINER_PORT, staticSiteSchema } from './schema';
import type { StaticSiteSpec, StaticSiteSpecWithDefaults } from './types.generated';

/** The pod-template annotation that changes with the pages, so the pods roll when a page changes. */
export const CONTENT_HASH_ANNOTATION = 'sites.example.com/content-hash';

/** Where nginx serves the pages from. */
export const HTML_DIR = '/usr/share/nginx/html';

const MAX_CONTENT_BYTES = 1024 * 1024;

/**
 * What the cluster says that the site's children need: the address the API server gives its Service
 * (`spec.clusterIP`, assigned when the Service is created). Until then `<name>-endpoint` waits.
 */
export const staticSiteInputs = {
  address: fromChild<StaticSiteSpec>(SERVICE, (r) => r.metadata.name, 'spec.clusterIP'),
};

export interface StaticSiteProps extends ResourceProps<StaticSiteSpec> {
  /**
   * What the cluster says (staticSiteInputs): the controller and `reconstruct synth` always pass them (a
   * placeholder until known, and the child holding it waits). Without them, as in a cdk8s app that renders
   * the site itself, nothing reads the cluster and `<name>-endpoint` is not rendered.
   */
  readonly inputs?: InputValues<typeof staticSiteInputs>;
}

/**
 * The hash of a site's pages: the same for the same pages in any order, different when any name or
 * content changes.
 */
export function contentHash(pages: Record<string, string>): string {
  const sorted = Object.keys(pages)
    .sort()
    .map((name) => [name, pages[name]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
}

/**
 * A static web site: a ConfigMap `<name>-content` holding the pages, a Deployment `<name>` of nginx
 * serving them from /usr/share/nginx/html, a Service `<name>` in front of it, and a ConfigMap
 * `<name>-endpoint` saying where the Service answers by address (`address`, `url`), for clients that do
 * not use the cluster's DNS (a node agent, a pod on the host network): it is written once the API
 * server has given the Service its address (an input, `staticSiteInputs`; see StaticSiteProps.inputs).
 *
 * The pod template carries the hash of the pages (`sites.example.com/content-hash`), so changing a page
 * rolls the pods, and only then. Pods are labelled `app.kubernetes.io/name: static-site` and
 * `sites.example.com/site: <name>`.
 */
export class StaticSite extends Construct {
  /** The pages, one key per file. */
  readonly configMap: kplus.ConfigMap;
  /** nginx serving the pages. */
  readonly deployment: kplus.Deployment;
  /** `<name>`, port `spec.port` to the pods' port 80. */
  readonly service: kplus.Service;
  /** `<name>-endpoint`: the Service's address and url, with inputs (see StaticSiteProps.inputs). */
  readonly endpoint?: kplus.ConfigMap;
  /** With `spec.autoscaling`: `<name>`, scaling the Deployment, which leaves it `spec.replicas`. */
  readonly autoscaler?: ApiObject;
  /** The hash of the pages on the pod template. */
  readonly contentHash: string;

  constructor(scope: Construct, id: string, props: StaticSiteProps) {
    super(scope, id);
    const { name, inputs } = props;
    const spec = admitSpec<StaticSiteSpec, StaticSiteSpecWithDefaults>(
      this,
      staticSiteSchema.spec,
      props.spec,
    );
    // Only what the schema cannot say: the names it makes, and the size of a ConfigMap.
    checkServiceName(name, 'metadata.name', 'the Deployment and Service name');
    checkSize(spec.pages);
    const podLabels = { 'app.kubernetes.io/name': 'static-site', 'sites.example.com/site': name };
    this.contentHash = contentHash(spec.pages);

    this.configMap = new kplus.ConfigMap(this, 'content', {
      metadata: { name: `${name}-content` },
      data: spec.pages,
    });

    const content = kplus.Volume.fromConfigMap(this, 'content-volume', this.configMap, { name: 'content' });
    const cache = kplus.Volume.fromEmptyDir(this, 'cache-volume', 'cache');
    const run = kplus.Volume.fromEmptyDir(this, 'run-volume', 'run');
    this.deployment = withoutAddressLabel(
      new kplus.Deployment(this, 'deployment', {
        metadata: { name },
        replicas: spec.replicas,
        select: false,
        podMetadata: {
          labels: podLabels,
          annotations: { [CONTENT_HASH_ANNOTATION]: this.contentHash },
        },
        automountServiceAccountToken: false,
        // nginx's master process starts as root (to bind port 80 and switch its workers to the nginx
        // user); the root file system stays read-only, with empty folders for what nginx writes.
        securityContext: { ensureNonRoot: false },
        containers: [
          {
            name: 'nginx',
            image: spec.image,
            imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
            ports: [{ name: 'http', number: CONTAINER_PORT }],
            readiness: kplus.Probe.fromHttpGet(`/${probePage(spec.pages)}`, { port: CONTAINER_PORT }),
            volumeMounts: [
              { path: HTML_DIR, volume: content, readOnly: true },
              { path: '/var/cache/nginx', volume: cache },
              { path: '/var/run', volume: run },
            ],
            resources: {
              cpu: { request: kplus.Cpu.millis(10), limit: kplus.Cpu.millis(200) },
              memory: { request: Size.mebibytes(16), limit: Size.mebibytes(64) },
            },
            securityContext: { ensureNonRoot: false, user: 0, group: 0 },
          },
        ],
      }),
    );
    this.deployment.select(kplus.LabelSelector.of({ labels: podLabels }));

    if (spec.autoscaling) {
      // The autoscaler owns the replica count: the Deployment starts with spec.replicas, and the controller
      // never sets or resets it afterwards (a child policy).
      this.autoscaler = new ApiObject(this, 'autoscaler', {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
          minReplicas: spec.replicas,
          maxReplicas: spec.autoscaling.maxReplicas,
          metrics: [
            {
              type: 'Resource',
              resource: {
                name: 'cpu',
                target: { type: 'Utilization', averageUtilization: spec.autoscaling.targetCPUUtilization },
              },
            },
          ],
        },
      });
      childPolicy(this.deployment, { ignoreFields: ['/spec/replicas'] });
    }

    this.service = new kplus.Service(this, 'service', {
      metadata: { name },
      ports: [{ name: 'http', port: spec.port, targetPort: CONTAINER_PORT }],
    });
    for (const [key, value] of Object.entries(podLabels)) this.service.selectLabel(key, value);

    if (inputs) {
      this.endpoint = new kplus.ConfigMap(this, 'endpoint', {
        metadata: { name: `${name}-endpoint` },
        data: { address: inputs.address, url: `http://${inputs.address}:${spec.port}/` },
      });
    }
  }
}

/** The page the readiness probe asks for: index.html when there is one (`/` needs it), else the first. */
function probePage(pages: Record<string, string>): string {
  return 'index.html' in pages ? 'index.html' : Object.keys(pages).sort()[0];
}

/** A ConfigMap holds at most 1 MiB: the pages' names and contents together must fit. */
function checkSize(pages: Record<string, string>): void {
  let bytes = 0;
  for (const [page, content] of Object.entries(pages))
    bytes += Buffer.byteLength(page) + Buffer.byteLength(content);
  if (bytes > MAX_CONTENT_BYTES) {
    throw new SpecError('spec.pages', `${bytes} bytes: the pages must fit in a ConfigMap (1 MiB)`);
  }
}
