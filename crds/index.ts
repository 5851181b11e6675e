import { balancerCrd } from './balancer';
import { databaseManagerCrd } from './database-manager';
import { memcachedCrd } from './memcached';
import { nodePoolCrd } from './node-pool';

export { balancerCrd, databaseManagerCrd, memcachedCrd, nodePoolCrd };
export type { CustomResourceDefinition, JSONSchemaProps } from './schema';

/** Every CRD this project defines: the source of truth for crds/*.yaml and crds/types.generated.ts. */
export const crds = [memcachedCrd, nodePoolCrd, databaseManagerCrd, balancerCrd];
