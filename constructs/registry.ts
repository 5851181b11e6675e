/**
 * Every kind the operator knows, keyed by apiVersion and kind. Adding a kind is one construct file, one
 * entry here and one test file; the renderer, the controller and the install manifests read this list.
 */
import type { Construct } from 'constructs';
import { balancerCrd, databaseManagerCrd, memcachedCrd, nodePoolCrd } from '../crds';
import type { CustomResourceDefinition } from '../crds/schema';
import type { BalancerSpec, DatabaseManagerSpec, MemcachedSpec, NodePoolSpec } from '../crds/types.generated';
import { Balancer } from './balancer';
import { DatabaseManager } from './database-manager';
import { Memcached } from './memcached';
import { NodePool } from './node-pool';
import type { CustomResource } from './resource';

/** A kind of object a construct may produce. */
export interface ChildKind {
  readonly apiVersion: string;
  readonly kind: string;
  /** The resource name in the API path, e.g. `deployments`. */
  readonly plural: string;
  readonly namespaced: boolean;
}

export const DEPLOYMENT: ChildKind = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
};
export const SERVICE: ChildKind = { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true };
export const CONFIG_MAP: ChildKind = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
export const RUNTIME_CLASS: ChildKind = {
  apiVersion: 'node.k8s.io/v1',
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  namespaced: false,
};

export interface KindDefinition<Spec = unknown> {
  readonly crd: CustomResourceDefinition;
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Every kind of child `build` may produce: what pruning lists, the controller watches and RBAC grants. */
  readonly children: readonly ChildKind[];
  /** Adds the children of one resource to `scope`. Throws SpecError for a spec it cannot synthesize. */
  build(scope: Construct, resource: CustomResource<Spec>): void;
}

function defineKind<Spec>(
  crd: CustomResourceDefinition,
  children: ChildKind[],
  build: (scope: Construct, resource: CustomResource<Spec>) => void,
): KindDefinition<Spec> {
  const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
  return {
    crd,
    apiVersion: `${crd.spec.group}/${version.name}`,
    kind: crd.spec.names.kind,
    plural: crd.spec.names.plural,
    namespaced: crd.spec.scope === 'Namespaced',
    children,
    build,
  };
}

const props = <Spec>(r: CustomResource<Spec>) => ({ name: r.metadata.name, spec: r.spec ?? ({} as Spec) });

export const kinds: readonly KindDefinition[] = [
  defineKind<MemcachedSpec>(
    memcachedCrd,
    [DEPLOYMENT, SERVICE],
    (s, r) => new Memcached(s, 'memcached', props(r)),
  ),
  defineKind<NodePoolSpec>(nodePoolCrd, [RUNTIME_CLASS], (s, r) => new NodePool(s, 'node-pool', props(r))),
  defineKind<DatabaseManagerSpec>(
    databaseManagerCrd,
    [DEPLOYMENT],
    (s, r) => new DatabaseManager(s, 'database-manager', props(r)),
  ),
  defineKind<BalancerSpec>(
    balancerCrd,
    [SERVICE, CONFIG_MAP, DEPLOYMENT],
    (s, r) => new Balancer(s, 'balancer', props(r)),
  ),
] as KindDefinition[];

const byKey = new Map(kinds.map((k) => [`${k.apiVersion}/${k.kind}`, k]));

/** The kind registered for an apiVersion and kind, if any. */
export function lookupKind(apiVersion: string, kind: string): KindDefinition | undefined {
  return byKey.get(`${apiVersion}/${kind}`);
}
