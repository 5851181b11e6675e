import { ageColumn, commonStatus, defineCrd, readyColumn } from './schema';

export const memcachedCrd = defineCrd({
  group: 'cache.example.com',
  version: 'v1alpha1',
  kind: 'Memcached',
  plural: 'memcacheds',
  scope: 'Namespaced',
  shortNames: ['mc'],
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
        default: 'memcached:1.4.36-alpine',
        description: 'Container image of memcached.',
      },
    },
  },
  status: {
    ...commonStatus,
    nodes: {
      type: 'array',
      items: { type: 'string' },
      description: 'Names of the memcached pods, sorted.',
    },
  },
  columns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }, readyColumn, ageColumn],
});
