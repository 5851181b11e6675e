// Generated from crds/*.ts by `npm run gen`. Do not edit.

export interface MemcachedSpec {
  /**
   * Number of memcached pods.
   */
  size: number;
  /**
   * Container image of memcached.
   */
  image?: string;
}

export interface MemcachedStatus {
  /**
   * The metadata.generation that the status describes.
   */
  observedGeneration?: number;
  /**
   * The latest observations of the resource, at least a Ready condition.
   */
  conditions?: {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    observedGeneration?: number;
    lastTransitionTime: string;
    reason: string;
    message: string;
  }[];
  /**
   * Names of the memcached pods, sorted.
   */
  nodes?: string[];
}

export interface NodePoolSpec {
  /**
   * Labels set on every member node; also the RuntimeClass node selector.
   */
  labels?: {
    [k: string]: string;
  };
  /**
   * Taints set on every member node; the RuntimeClass tolerates them, in order.
   *
   * @maxItems 32
   */
  taints?: {
    key: string;
    value?: string;
    effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  }[];
  /**
   * The CRI handler of the RuntimeClass.
   */
  handler?: string;
}

export interface NodePoolStatus {
  /**
   * The metadata.generation that the status describes.
   */
  observedGeneration?: number;
  /**
   * The latest observations of the resource, at least a Ready condition.
   */
  conditions?: {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    observedGeneration?: number;
    lastTransitionTime: string;
    reason: string;
    message: string;
  }[];
  /**
   * Number of member nodes.
   */
  nodeCount?: number;
  /**
   * Names of the member nodes, sorted.
   */
  nodes?: string[];
  /**
   * Allocatable resources summed over the member nodes.
   */
  allocatable?: {
    [k: string]: number | string;
  };
}

export interface DatabaseManagerSpec {
  /**
   * The database: mysql (mysql:5.7) or mariadb (mariadb:10.7.1).
   */
  dbtype?: 'mysql' | 'mariadb';
  /**
   * Name of the Deployment. Defaults to the resource's name.
   */
  deploymentName?: string;
  /**
   * Number of database pods.
   */
  replicas?: number;
  /**
   * Secret holding the root password. Without it the image generates a random root password and prints it in the container log.
   */
  rootPasswordSecret?: {
    name: string;
    key?: string;
  };
}

export interface DatabaseManagerStatus {
  /**
   * The metadata.generation that the status describes.
   */
  observedGeneration?: number;
  /**
   * The latest observations of the resource, at least a Ready condition.
   */
  conditions?: {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    observedGeneration?: number;
    lastTransitionTime: string;
    reason: string;
    message: string;
  }[];
  /**
   * Available replicas of the Deployment.
   */
  availableReplicas?: number;
}

export interface BalancerSpec {
  /**
   * Ports of the front-end Service; each is proxied to the same port of every backend.
   *
   * @minItems 1
   * @maxItems 32
   */
  ports: {
    name: string;
    protocol?: 'TCP' | 'UDP';
    port: number;
    /**
     * Port of the backend pods. Defaults to `port`.
     */
    targetPort?: number | string;
  }[];
  /**
   * Labels every backend pod carries.
   */
  selector?: {
    [k: string]: string;
  };
  /**
   * Weighted backends; each gets a Service <balancer>-<backend>-backend.
   *
   * @minItems 1
   * @maxItems 64
   */
  backends: {
    name: string;
    weight: number;
    /**
     * Labels of this backend's pods, overlaid on spec.selector.
     */
    selector?: {
      [k: string]: string;
    };
  }[];
  /**
   * Container image of the nginx proxy.
   */
  image?: string;
}

export interface BalancerStatus {
  /**
   * The metadata.generation that the status describes.
   */
  observedGeneration?: number;
  /**
   * The latest observations of the resource, at least a Ready condition.
   */
  conditions?: {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    observedGeneration?: number;
    lastTransitionTime: string;
    reason: string;
    message: string;
  }[];
  /**
   * Desired backend Services that exist.
   */
  activeBackendsNum?: number;
  /**
   * Backend Services of this balancer that are no longer desired.
   */
  obsoleteBackendsNum?: number;
}
