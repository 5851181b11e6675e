import { DNS_LABEL, LABEL_KEY, LABEL_VALUE, MAX_LABEL_LENGTH, labelMap, type KindSchema } from '../kit';

/** Keys under kubernetes.io or k8s.io belong to Kubernetes itself; a pool must never manage them. */
const RESERVED_KEY = `'^([^/]*\\\\.)?(kubernetes|k8s)\\\\.io/'`;

/** The CRD schema of NodePool: the source of its CRD YAML and its generated types. */
export const nodePoolSchema: KindSchema = {
  description:
    'A pool of nodes: the nodes labelled node-role.kubernetes.io/<pool name> get the labels and taints, ' +
    'and pods reach them through the RuntimeClass node-pool-<pool name>.',
  spec: {
    type: 'object',
    properties: {
      labels: labelMap('Labels set on every member node; also the RuntimeClass node selector.', [
        {
          rule: `self.all(k, !k.matches(${RESERVED_KEY}))`,
          message: 'label keys under kubernetes.io or k8s.io are reserved for Kubernetes',
          messageExpression: `'label keys under kubernetes.io or k8s.io are reserved for Kubernetes: ' + self.filter(k, k.matches(${RESERVED_KEY}))[0]`,
        },
      ]),
      taints: {
        type: 'array',
        description: 'Taints set on every member node; the RuntimeClass tolerates them, in order.',
        maxItems: 32,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['key', 'effect'],
        items: {
          type: 'object',
          required: ['key', 'effect'],
          properties: {
            key: {
              type: 'string',
              minLength: 1,
              maxLength: 316,
              pattern: LABEL_KEY,
              'x-kubernetes-validations': [
                {
                  rule: `!self.matches(${RESERVED_KEY})`,
                  message: 'taint keys under kubernetes.io or k8s.io are reserved for Kubernetes',
                },
              ],
            },
            value: { type: 'string', maxLength: MAX_LABEL_LENGTH, pattern: LABEL_VALUE, default: '' },
            effect: { type: 'string', enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
          },
        },
      },
      handler: {
        type: 'string',
        default: 'runc',
        minLength: 1,
        maxLength: MAX_LABEL_LENGTH,
        pattern: DNS_LABEL,
        description: 'The CRI handler of the RuntimeClass.',
      },
    },
  },
  status: {
    nodeCount: { type: 'integer', format: 'int32', description: 'Number of member nodes.' },
    nodes: { type: 'array', items: { type: 'string' }, description: 'Names of the member nodes, sorted.' },
    allocatable: {
      type: 'object',
      description: 'Allocatable resources summed over the member nodes.',
      additionalProperties: { 'x-kubernetes-int-or-string': true },
    },
  },
  rules: [
    {
      rule: 'self.metadata.name.size() <= 53',
      fieldPath: '.metadata.name',
      message: 'must be at most 53 characters: it names node-pool-<name> and a node-role label',
    },
  ],
  columns: [
    { name: 'Nodes', type: 'integer', jsonPath: '.status.nodeCount' },
    { name: 'Handler', type: 'string', jsonPath: '.spec.handler' },
  ],
};
