/**
 * The custom resources bench:synth synthesizes: the `i`-th of each kind. Every resource differs from the
 * one before (name, namespace, spec shape), as in a controller that reconciles many objects, and each
 * mix cycles through the optional fields, so a few hundred consecutive indexes cover every combination.
 */
import type {
  BalancerSpec,
  CustomResource,
  DatabaseManagerSpec,
  MemcachedSpec,
  MysqlClusterSpec,
  NodePoolSpec,
} from '../../constructs';

/** The owner every resource gets, as in-cluster: each child has an ownerReference to its resource. */
export const OWNER = { uid: '0b6c8a39-5c8e-4f0e-9a57-2d7e4c1f9b21' };

const namespace = (i: number) => `team-${i % 17}`;

/** Sizes 0 to 5, a custom image on every third: 2 children. */
export function memcached(i: number): CustomResource<MemcachedSpec> {
  return {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name: `cache-${i}`, namespace: namespace(i) },
    spec: { size: i % 6, ...(i % 3 === 0 ? { image: `memcached:1.6.${i % 30}-alpine` } : {}) },
  };
}

/** 1 to 4 labels, 0 to 3 taints, every other one with its own handler: 1 child, cluster-scoped. */
export function nodePool(i: number): CustomResource<NodePoolSpec> {
  const effects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
  return {
    apiVersion: 'nodes.lailin.xyz/v1',
    kind: 'NodePool',
    metadata: { name: `pool-${i}` },
    spec: {
      labels: Object.fromEntries(
        Array.from({ length: 1 + (i % 4) }, (_, j) => [`pool.example.com/l${j}`, `v${i}`]),
      ),
      taints: Array.from({ length: i % 4 }, (_, j) => ({
        key: `pool.example.com/t${j}`,
        value: `pool-${i}`,
        effect: effects[j % 3],
      })),
      ...(i % 2 === 0 ? { handler: 'kata' } : {}),
    },
  };
}

/** Both database types, 1 to 10 replicas, some with a Deployment name or a Secret of their own: 1 child. */
export function databaseManager(i: number): CustomResource<DatabaseManagerSpec> {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: `db-${i}`, namespace: namespace(i) },
    spec: {
      dbtype: i % 2 === 0 ? 'mysql' : 'mariadb',
      replicas: 1 + (i % 10),
      ...(i % 3 === 0 ? { deploymentName: `db-${i}-server` } : {}),
      ...(i % 4 === 0 ? { rootPasswordSecret: { name: `db-${i}-root` } } : {}),
    },
  };
}

/** 1 to 9 members, some upgraded, half with the user's own password Secret: 2 or 3 children. */
export function mysqlCluster(i: number): CustomResource<MysqlClusterSpec> {
  return {
    apiVersion: 'mysql.oracle.com/v1alpha1',
    kind: 'Cluster',
    metadata: { name: `mysql-${i}`, namespace: namespace(i) },
    spec: {
      members: 1 + (i % 9),
      version: `8.0.${11 + (i % 5)}`,
      ...(i % 2 === 0 ? { rootPasswordSecret: { name: `mysql-${i}-root` } } : {}),
    },
  };
}

/** 1 to 3 ports and 1 to 4 backends: 3 to 7 children, 5.5 on average. */
export function balancer(i: number): CustomResource<BalancerSpec> {
  const ports = [
    { name: 'http', protocol: 'TCP' as const, port: 80, targetPort: 8080 },
    { name: 'dns', protocol: 'UDP' as const, port: 53 },
    { name: 'https', protocol: 'TCP' as const, port: 443, targetPort: 8443 },
  ];
  return {
    apiVersion: 'exposer.hliangzhao.io/v1beta1',
    kind: 'Balancer',
    metadata: { name: `lb-${i}`, namespace: namespace(i) },
    spec: {
      ports: ports.slice(0, 1 + (i % 3)),
      selector: { app: `app-${i % 50}` },
      backends: Array.from({ length: 1 + (i % 4) }, (_, j) => ({
        name: `v${j + 1}`,
        weight: 10 * (j + 1) + (i % 7),
        selector: { version: `v${j + 1}` },
      })),
    },
  };
}
