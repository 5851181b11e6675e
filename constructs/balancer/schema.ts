import { CONTAINER_IMAGE, DNS_LABEL, intOrString, labelMap, type KindSchema } from '../kit';

/**
 * The CRD schema of Balancer v1alpha1, the first version (served, deprecated): the source of its CRD YAML
 * and of its generated types (`BalancerV1alpha1Spec`).
 */
export const balancerV1alpha1Schema: KindSchema = {
  description:
    'An nginx proxy that spreads the traffic of a front-end Service over weighted backend Services.',
  spec: {
    type: 'object',
    required: ['ports', 'backends'],
    properties: {
      ports: {
        type: 'array',
        minItems: 1,
        maxItems: 32,
        description: 'Ports of the front-end Service; each is proxied to the same port of every backend.',
        items: {
          type: 'object',
          required: ['name', 'port'],
          properties: {
            name: {
              type: 'string',
              minLength: 1,
              maxLength: 15,
              pattern: DNS_LABEL,
              description: 'An IANA service name, as a container port name must be: it names the proxy port.',
              'x-kubernetes-validations': [
                {
                  rule: "self.matches('[a-z]') && !self.contains('--')",
                  message: 'must contain at least one letter (a-z) and no "--" (an IANA service name)',
                },
              ],
            },
            protocol: { type: 'string', enum: ['TCP', 'UDP'], default: 'TCP' },
            port: { type: 'integer', format: 'int32', minimum: 1, maximum: 65535 },
            targetPort: intOrString('Port of the backend pods. Defaults to `port`.'),
          },
        },
        // Keyed by name: a duplicate is refused naming it, and server-side apply merges entries by name.
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
      selector: labelMap('Labels every backend pod carries.'),
      backends: {
        type: 'array',
        minItems: 1,
        maxItems: 64,
        description: 'Weighted backends; each gets a Service <balancer>-<backend>-backend.',
        items: {
          type: 'object',
          required: ['name', 'weight'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 40, pattern: DNS_LABEL },
            weight: { type: 'integer', format: 'int32', minimum: 1, maximum: 1000 },
            selector: labelMap("Labels of this backend's pods, overlaid on spec.selector."),
          },
        },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
      image: {
        type: 'string',
        minLength: 1,
        pattern: CONTAINER_IMAGE,
        default: 'nginx:1.15.9',
        description: 'Container image of the nginx proxy.',
      },
    },
  },
  status: {
    activeBackendsNum: {
      type: 'integer',
      format: 'int32',
      description: 'Desired backend Services that exist.',
    },
    obsoleteBackendsNum: {
      type: 'integer',
      format: 'int32',
      description: 'Backend Services of this balancer that are no longer desired.',
    },
  },
  rules: [
    {
      rule: 'self.spec.backends.all(b, size(self.metadata.name) + size(b.name) <= 54)',
      message:
        'metadata.name and a backend name together must be at most 54 characters: <name>-<backend>-backend is a Service name',
      fieldPath: '.spec.backends',
    },
  ],
  columns: [
    { name: 'Active', type: 'integer', jsonPath: '.status.activeBackendsNum' },
    { name: 'Obsolete', type: 'integer', jsonPath: '.status.obsoleteBackendsNum' },
  ],
};

/**
 * The CRD schema of Balancer v1beta1, the stored version the construct is written against: v1alpha1's
 * and `spec.replicas`, the proxy's pods, behind a scale subresource that works (`kubectl scale`, a
 * HorizontalPodAutoscaler), with `status.replicas` and `status.selector` as it wants them.
 */
export const balancerSchema: KindSchema = {
  ...balancerV1alpha1Schema,
  spec: {
    ...balancerV1alpha1Schema.spec,
    properties: {
      ...balancerV1alpha1Schema.spec.properties,
      replicas: {
        type: 'integer',
        format: 'int32',
        minimum: 0,
        maximum: 100,
        default: 1,
        description: 'Pods of the nginx proxy; `kubectl scale balancer NAME --replicas N` sets it.',
      },
    },
  },
  status: {
    ...balancerV1alpha1Schema.status,
    replicas: {
      type: 'integer',
      format: 'int32',
      description: 'Pods of the nginx proxy there are (the scale subresource reads it).',
    },
    selector: {
      type: 'string',
      description:
        "The label selector of the proxy's pods, for the scale subresource (a HorizontalPodAutoscaler).",
    },
  },
  columns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    ...(balancerV1alpha1Schema.columns ?? []),
  ],
  scale: {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  },
};
