/**
 * StaticSite's second version, as docs/GUIDE.md (4c) builds it: the GUIDE's code blocks there are excerpts
 * of this file (test/docs/snippets.test.ts), and guide-versions.test.ts checks what the GUIDE says of it.
 *
 * v1beta1 (the hub, stored) moves v1alpha1's `spec.port` into `spec.service`, beside the Service's `type`,
 * which v1alpha1 cannot say. v1alpha1's schema is examples/static-site/src/schema.ts's, copied (that module
 * imports `cdk8s-reconstruct`, which this repository's tsconfig does not resolve), with shorter
 * descriptions; the construct is the example's, cut to what the versions concern. The spec types are
 * written by hand, named as `reconstruct gen` names them (guide-versions.test.ts checks them against gen's).
 */
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  CONFIG_MAP,
  DEPLOYMENT,
  HORIZONTAL_POD_AUTOSCALER,
  SERVICE,
  admitSpec,
  childPolicy,
  defineKind,
  type KindSchema,
  type KindVersion,
  type ResourceProps,
} from '../../index';

/** The port nginx listens on in the pod; the Service's port forwards to it. */
const CONTAINER_PORT = 80;

/** v1beta1's spec (gen: `StaticSiteSpec`, and `StaticSiteV1beta1Spec` beside it). */
export interface StaticSiteSpec {
  pages: { [k: string]: string };
  /** @default 1 */
  replicas?: number;
  /** @default "nginx:1.27-alpine" */
  image?: string;
  autoscaling?: {
    maxReplicas: number;
    /** @default 80 */
    targetCPUUtilization?: number;
  };
  /** @default {} */
  service?: {
    /** @default 80 */
    port?: number;
    /** @default "ClusterIP" */
    type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  };
}

/** StaticSiteSpec with every field the schema defaults present (gen: `StaticSiteSpecWithDefaults`). */
export interface StaticSiteSpecWithDefaults {
  pages: { [k: string]: string };
  replicas: number;
  image: string;
  autoscaling?: { maxReplicas: number; targetCPUUtilization: number };
  service: { port: number; type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' };
}

/** v1alpha1's spec (gen: `StaticSiteV1alpha1Spec`): the example's `StaticSiteSpec`. */
export interface StaticSiteV1alpha1Spec {
  pages: { [k: string]: string };
  /** @default 1 */
  replicas?: number;
  /** @default "nginx:1.27-alpine" */
  image?: string;
  autoscaling?: {
    maxReplicas: number;
    /** @default 80 */
    targetCPUUtilization?: number;
  };
  /** @default 80 */
  port?: number;
}

/** The kind's own status fields, the same in both versions. */
export interface OwnStatus {
  url?: string;
  availableReplicas?: number;
}

/** v1alpha1's schema: examples/static-site/src/schema.ts's, as step 2 wrote it. */
export const staticSiteV1alpha1Schema: KindSchema = {
  description: 'A static web site: nginx serving the given pages, behind a Service.',
  spec: {
    type: 'object',
    required: ['pages'],
    'x-kubernetes-validations': [
      {
        rule: '!has(self.autoscaling) || self.autoscaling.maxReplicas >= self.replicas',
        message: 'autoscaling.maxReplicas must be at least replicas',
        fieldPath: '.autoscaling.maxReplicas',
      },
    ],
    properties: {
      pages: {
        type: 'object',
        description: 'The files of the site, by file name (e.g. index.html).',
        maxProperties: 64,
        additionalProperties: { type: 'string' },
        'x-kubernetes-validations': [
          { rule: 'self.size() >= 1', message: 'must have at least one page, e.g. index.html' },
          {
            rule: "self.all(k, k.size() <= 253 && k != '.' && k != '..' && k.matches('^[-._a-zA-Z0-9]+$'))",
            message: 'page names must be file names: letters, digits, "-", "_" and "." (a ConfigMap key)',
          },
        ],
      },
      replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 10, default: 1 },
      image: { type: 'string', minLength: 1, default: 'nginx:1.27-alpine' },
      autoscaling: {
        type: 'object',
        required: ['maxReplicas'],
        properties: {
          maxReplicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 10 },
          targetCPUUtilization: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 80 },
        },
      },
      port: {
        type: 'integer',
        format: 'int32',
        minimum: 1,
        maximum: 65535,
        default: 80,
        description: 'Port of the Service; it forwards to port 80 of the pods.',
      },
    },
  },
  status: { url: { type: 'string' }, availableReplicas: { type: 'integer', format: 'int32' } },
  columns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
    { name: 'URL', type: 'string', jsonPath: '.status.url', priority: 1 },
  ],
};

// v1beta1's schema: v1alpha1's, with spec.port moved into spec.service, beside the Service's new type.
const { port, ...unchanged } = staticSiteV1alpha1Schema.spec.properties!;
export const staticSiteSchema: KindSchema = {
  ...staticSiteV1alpha1Schema,
  spec: {
    ...staticSiteV1alpha1Schema.spec,
    properties: {
      ...unchanged,
      service: {
        type: 'object',
        default: {},
        description: 'The Service in front of the pods.',
        properties: {
          port,
          type: {
            type: 'string',
            enum: ['ClusterIP', 'NodePort', 'LoadBalancer'],
            default: 'ClusterIP',
            description: 'ClusterIP: reached inside the cluster; NodePort, LoadBalancer: from outside too.',
          },
        },
      },
    },
  },
};

// v1alpha1, the first version: still served, deprecated. Its spec.port is v1beta1's spec.service.port.
export const staticSiteV1alpha1: KindVersion<StaticSiteSpec, OwnStatus, StaticSiteV1alpha1Spec, OwnStatus> = {
  name: 'v1alpha1',
  schema: staticSiteV1alpha1Schema,
  deprecated: 'sites.example.com/v1alpha1 StaticSite is deprecated; use sites.example.com/v1beta1',
  onlyInHub: ['spec.service.type'], // a v1alpha1 StaticSite's Service is a ClusterIP one
  toHub: ({ spec: { port, ...rest }, status }) => ({ spec: { ...rest, service: { port } }, status }),
  fromHub: ({ spec: { service, ...rest }, status }) => ({ spec: { ...rest, port: service?.port }, status }),
};

const SERVICE_TYPES = {
  ClusterIP: kplus.ServiceType.CLUSTER_IP,
  NodePort: kplus.ServiceType.NODE_PORT,
  LoadBalancer: kplus.ServiceType.LOAD_BALANCER,
};

/** `<name>-content` holds the pages; Deployment `<name>` serves them; Service `<name>` is in front. */
export class StaticSite extends Construct {
  readonly deployment: kplus.Deployment;
  readonly service: kplus.Service;

  // Written against v1beta1 only: a v1alpha1 resource reaches it converted.
  constructor(scope: Construct, id: string, props: ResourceProps<StaticSiteSpec>) {
    super(scope, id);
    const { name } = props;
    const spec = admitSpec<StaticSiteSpec, StaticSiteSpecWithDefaults>(
      this,
      staticSiteSchema.spec,
      props.spec,
    );
    const content = new kplus.ConfigMap(this, 'content', {
      metadata: { name: `${name}-content` },
      data: spec.pages,
    });
    this.deployment = new kplus.Deployment(this, 'deployment', {
      metadata: { name },
      replicas: spec.replicas,
      containers: [
        {
          image: spec.image,
          portNumber: CONTAINER_PORT,
          securityContext: { ensureNonRoot: false },
          volumeMounts: [
            { path: '/usr/share/nginx/html', volume: kplus.Volume.fromConfigMap(this, 'pages', content) },
          ],
        },
      ],
    });
    if (spec.autoscaling) {
      new kplus.HorizontalPodAutoscaler(this, 'autoscaler', {
        metadata: { name },
        target: this.deployment,
        minReplicas: spec.replicas,
        maxReplicas: spec.autoscaling.maxReplicas,
        metrics: [
          kplus.Metric.resourceCpu(
            kplus.MetricTarget.averageUtilization(spec.autoscaling.targetCPUUtilization),
          ),
        ],
      });
      childPolicy(this.deployment, { ignoreFields: ['/spec/replicas'] });
    }
    this.service = new kplus.Service(this, 'service', {
      metadata: { name },
      type: SERVICE_TYPES[spec.service.type],
      selector: this.deployment,
      ports: [{ port: spec.service.port, targetPort: CONTAINER_PORT }],
    });
  }
}

export const staticSiteKind = defineKind<StaticSiteSpec, OwnStatus, StaticSiteSpecWithDefaults>({
  apiVersion: 'sites.example.com/v1beta1',
  kind: 'StaticSite',
  plural: 'staticsites',
  shortNames: ['site'],
  schema: staticSiteSchema,
  construct: StaticSite,
  children: [CONFIG_MAP, DEPLOYMENT, SERVICE, HORIZONTAL_POD_AUTOSCALER],
  versions: [staticSiteV1alpha1],
  // status, ready and sync see v1beta1 too: the port is spec.service.port.
  status({ resource, view }) {
    const { name, namespace } = resource.metadata;
    const deployment = view.get(DEPLOYMENT, namespace, name);
    const available = (deployment?.status as { availableReplicas?: number } | undefined)?.availableReplicas;
    return {
      url: `http://${name}.${namespace ?? 'default'}.svc:${resource.spec.service.port}`,
      availableReplicas: available ?? 0,
    };
  },
});

export const kinds = [staticSiteKind];
