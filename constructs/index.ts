export * from './balancer';
export * from './database-manager';
export * from './memcached';
export * from './node-pool';
export * from './registry';
export * from './resource';
export * from './synthesize';
