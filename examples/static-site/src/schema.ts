import type { KindSchema } from 'cdk8s-reconstruct';

/** The port nginx listens on in the pod; `spec.port` is the Service's port in front of it. */
export const CONTAINER_PORT = 80;

/** A ConfigMap key: what a page's file name must be (and not `.` or `..`). */
const PAGE_NAME = '^[-._a-zA-Z0-9]+$';

/**
 * The CRD schema of StaticSite: the source of its CRD YAML (crds/) and its types (types.generated.ts).
 * Defaults and checks live here, once: the construct reads its spec with `admitSpec`.
 */
export const staticSiteSchema: KindSchema = {
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
        description:
          'The files of the site, by file name (e.g. index.html): their content is served as it is, ' +
          'from /usr/share/nginx/html.',
        maxProperties: 64,
        additionalProperties: { type: 'string' },
        'x-kubernetes-validations': [
          { rule: 'self.size() >= 1', message: 'must have at least one page, e.g. index.html' },
          {
            rule: `self.all(k, k.size() <= 253 && k != '.' && k != '..' && k.matches('${PAGE_NAME}'))`,
            message: 'page names must be file names: letters, digits, "-", "_" and "." (a ConfigMap key)',
          },
        ],
      },
      replicas: {
        type: 'integer',
        format: 'int32',
        minimum: 1,
        maximum: 10,
        default: 1,
        description: 'Number of nginx pods.',
      },
      image: {
        type: 'string',
        minLength: 1,
        default: 'nginx:1.27-alpine',
        description: 'Container image of nginx.',
      },
      autoscaling: {
        type: 'object',
        description:
          'Scale the pods with their CPU use: a HorizontalPodAutoscaler between `replicas` and ' +
          "`maxReplicas` then owns the Deployment's replica count.",
        required: ['maxReplicas'],
        properties: {
          maxReplicas: {
            type: 'integer',
            format: 'int32',
            minimum: 1,
            maximum: 10,
            description: 'The most pods the autoscaler may run.',
          },
          targetCPUUtilization: {
            type: 'integer',
            format: 'int32',
            minimum: 1,
            maximum: 100,
            default: 80,
            description: 'The average CPU use, in percent of the request, the autoscaler aims at.',
          },
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
  status: {
    url: {
      type: 'string',
      description: 'Where the site answers inside the cluster: http://<name>.<namespace>.svc:<port>.',
    },
    availableReplicas: {
      type: 'integer',
      format: 'int32',
      description: 'Pods of the current pages that are ready to serve.',
    },
  },
  columns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
    { name: 'URL', type: 'string', jsonPath: '.status.url', priority: 1 },
  ],
};
