/** The kinds the product ships: each defined in its own folder with the same kit users get. */
import { balancerKind } from './balancer';
import { databaseManagerKind } from './database-manager';
import type { Kind } from './kit';
import { memcachedKind } from './memcached';
import { mysqlClusterKind } from './mysql-cluster';
import { mysqlDatabaseKind } from './mysql-database';
import { mysqlUserKind } from './mysql-user';
import { nodePoolKind } from './node-pool';

export const builtinKinds: readonly Kind[] = [
  memcachedKind,
  nodePoolKind,
  databaseManagerKind,
  balancerKind,
  mysqlClusterKind,
  mysqlDatabaseKind,
  mysqlUserKind,
];
