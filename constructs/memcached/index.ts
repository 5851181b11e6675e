/**
 * Memcached (`cache.example.com/v1alpha1`): a memcached Deployment of `spec.size` pods and a
 * Service in front of them; `status.nodes` lists the pods' names.
 */
import { DEPLOYMENT, POD, SERVICE, customResourceClass, defineKind } from '../kit';
import { Memcached } from './memcached';
import { memcachedSchema } from './schema';
import type { MemcachedSpec, MemcachedStatus } from './types.generated';

export { Memcached, type MemcachedProps } from './memcached';
export { memcachedSchema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<MemcachedStatus, 'nodes'>;

export const memcachedKind = defineKind<MemcachedSpec, OwnStatus>({
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  plural: 'memcacheds',
  shortNames: ['mc'],
  schema: memcachedSchema,
  construct: Memcached,
  children: [DEPLOYMENT, SERVICE],
  watches: [
    {
      type: POD,
      labelSelector: 'app=memcached,memcached_cr',
      indexLabels: ['memcached_cr'],
      metadataOnly: true, // status.nodes is names; pods' status changes are many and concern no one
      owners: (pod) => [{ namespace: pod.metadata.namespace, name: pod.metadata.labels?.memcached_cr ?? '' }],
    },
  ],
  status({ resource, view }) {
    const { namespace, name } = resource.metadata;
    const nodes = view
      .list(POD, namespace, { label: 'memcached_cr', value: name })
      .filter((p) => p.metadata.labels?.app === 'memcached' && !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name)
      .sort();
    return { nodes };
  },
});

/** A Memcached custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class MemcachedResource extends customResourceClass(memcachedKind) {}
