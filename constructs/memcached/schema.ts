import { CONTAINER_IMAGE, type KindSchema } from '../kit';

/** The CRD schema of Memcached: the source of its CRD YAML and its generated types. */
export const memcachedSchema: KindSchema = {
  description: 'A memcached Deployment of `size` pods and a Service in front of them.',
  spec: {
    type: 'object',
    required: ['size'],
    properties: {
      size: {
        type: 'integer',
        format: 'int32',
        minimum: 0,
        description: 'Number of memcached pods.',
      },
      image: {
        type: 'string',
        minLength: 1,
        pattern: CONTAINER_IMAGE,
        default: 'memcached:1.4.36-alpine',
        description: 'Container image of memcached.',
      },
    },
  },
  status: {
    nodes: {
      type: 'array',
      items: { type: 'string' },
      description: 'Names of the memcached pods, sorted.',
    },
  },
  columns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
};
