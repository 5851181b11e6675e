/**
 * Memcached doing the Go peer's work, for `bench:peer --same-work`: the built-in construct without its
 * Service, no pods watched and no `status.nodes`, so a Deployment and a Ready condition per resource, as
 * the peer makes a Deployment and an Available condition. The same CRD as the built-in kind. Loaded by the
 * controller under test through `--no-builtin-kinds --kinds <this module>`.
 */
import type { Construct } from 'constructs';
import {
  DEPLOYMENT,
  Memcached,
  type MemcachedProps,
  defineKind,
  memcachedKind,
  memcachedSchema,
} from '../../constructs';

class DeploymentOnly extends Memcached {
  constructor(scope: Construct, id: string, props: MemcachedProps) {
    super(scope, id, props);
    this.node.tryRemoveChild('service');
  }
}

export const peerWorkMemcachedKind = defineKind({
  // The built-in kind's names, so that its CRD is the one the cluster has.
  apiVersion: memcachedKind.apiVersion,
  kind: memcachedKind.kind,
  plural: memcachedKind.crd.spec.names.plural,
  shortNames: memcachedKind.crd.spec.names.shortNames,
  schema: memcachedSchema,
  construct: DeploymentOnly,
  children: [DEPLOYMENT],
});

export const kinds = [peerWorkMemcachedKind];
