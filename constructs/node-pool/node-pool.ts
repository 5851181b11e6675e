import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ResourceProps, admitSpec, withDefaults } from '../kit';
import type { Membership } from './nodes';
import { nodePoolSchema } from './schema';
import type { NodePoolSpec, NodePoolSpecWithDefaults } from './types.generated';

export type NodePoolProps = ResourceProps<NodePoolSpec>;

/** The label that makes a node a member of `pool`: `node-role.kubernetes.io/<pool>` (any value). */
export function memberLabel(pool: string): string {
  return `node-role.kubernetes.io/${pool}`;
}

/** The name of a pool's RuntimeClass. */
export function runtimeClassName(pool: string): string {
  return `node-pool-${pool}`;
}

/**
 * The labels and taints a pool puts on each member node, from an admitted spec (its schema keeps keys under
 * kubernetes.io and k8s.io out), defaulted. The controller applies exactly these, and removes exactly those
 * it applied before, so other tools' and pools' survive.
 */
export function nodePoolMembership(spec: NodePoolSpec): Membership {
  return membershipOf(withDefaults<NodePoolSpec, NodePoolSpecWithDefaults>(nodePoolSchema.spec, spec));
}

function membershipOf(spec: NodePoolSpecWithDefaults): Membership {
  const labels = { ...(spec.labels ?? {}) };
  const taints = (spec.taints ?? []).map((t) => ({ key: t.key, value: t.value, effect: t.effect }));
  return { labels, taints };
}

/**
 * A NodePool's RuntimeClass `node-pool-<name>`: pods that name it are scheduled onto the
 * pool's nodes (node selector = spec.labels) and tolerate the pool's taints, in order. cdk8s-plus-27 has
 * no RuntimeClass, so this is a plain API object.
 */
export class NodePool extends Construct {
  readonly runtimeClass: ApiObject;

  constructor(scope: Construct, id: string, props: NodePoolProps) {
    super(scope, id);
    const spec = admitSpec<NodePoolSpec, NodePoolSpecWithDefaults>(this, nodePoolSchema.spec, props.spec);
    const { labels, taints } = membershipOf(spec);
    const scheduling: Record<string, unknown> = {};
    if (Object.keys(labels).length > 0) scheduling.nodeSelector = labels;
    if (taints.length > 0) {
      scheduling.tolerations = taints.map((t) => ({
        key: t.key,
        operator: 'Equal',
        value: t.value,
        effect: t.effect,
      }));
    }
    this.runtimeClass = new ApiObject(this, 'runtime-class', {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: runtimeClassName(props.name) },
      handler: spec.handler,
      ...(Object.keys(scheduling).length > 0 ? { scheduling } : {}),
    });
  }
}
