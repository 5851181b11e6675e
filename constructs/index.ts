/** The constructs: the kit to define kinds with, and the built-in kinds defined with it. */
export * from './kit';
export * from './balancer';
export * from './builtin';
export * from './database-manager';
export * from './memcached';
export * from './mysql-cluster';
export * from './mysql-database';
export * from './mysql-user';
export * from './node-pool';
