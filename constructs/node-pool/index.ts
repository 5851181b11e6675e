/**
 * NodePool (`nodes.lailin.xyz/v1`, cluster-scoped): a RuntimeClass `node-pool-<name>`, and the
 * pool's labels and taints on every member node (a node labelled `node-role.kubernetes.io/<name>`),
 * removed again from nodes that leave the pool and, through a finalizer, when the pool is deleted.
 */
import {
  NODE,
  RUNTIME_CLASS,
  customResourceClass,
  defineKind,
  sumQuantities,
  type ClusterView,
  type KubeObject,
  type Readiness,
} from '../kit';
import { NodePool, memberLabel, nodePoolMembership } from './node-pool';
import { POOL_FINALIZER, planNode, recordAnnotation, recordingPools } from './nodes';
import { nodePoolSchema } from './schema';
import type { NodePoolSpec, NodePoolStatus } from './types.generated';

export { NodePool, type NodePoolProps } from './node-pool';
export { nodePoolSchema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<NodePoolStatus, 'nodeCount' | 'nodes' | 'allocatable'>;

const MEMBER_PREFIX = 'node-role.kubernetes.io/';

function members(view: ClusterView, pool: string): KubeObject[] {
  const label = memberLabel(pool);
  return view.list(NODE).filter((n) => n.metadata.labels?.[label] !== undefined);
}

export const nodePoolKind = defineKind<NodePoolSpec, OwnStatus>({
  apiVersion: 'nodes.lailin.xyz/v1',
  kind: 'NodePool',
  plural: 'nodepools',
  scope: 'Cluster',
  shortNames: ['np'],
  schema: nodePoolSchema,
  construct: NodePool,
  children: [RUNTIME_CLASS],
  watches: [
    {
      type: NODE,
      // A node concerns the pools it is a member of and those that recorded something on it.
      owners: (node) => {
        const pools = new Set(recordingPools(node));
        for (const key of Object.keys(node.metadata.labels ?? {})) {
          if (key.startsWith(MEMBER_PREFIX)) pools.add(key.slice(MEMBER_PREFIX.length));
        }
        return [...pools].map((name) => ({ name }));
      },
    },
  ],
  // The sync labels and taints member nodes (a merge patch each).
  permissions: [{ type: NODE, verbs: ['patch'] }],
  sync: {
    finalizer: POOL_FINALIZER,
    plan(resource, view, deleting) {
      const pool = resource.metadata.name;
      const membership = nodePoolMembership(resource.spec);
      const label = memberLabel(pool);
      const record = recordAnnotation(pool);
      return view
        .list(NODE)
        .filter(
          (n) => n.metadata.labels?.[label] !== undefined || n.metadata.annotations?.[record] !== undefined,
        )
        .flatMap((node) => {
          const member = !deleting && node.metadata.labels?.[label] !== undefined;
          const patch = planNode(node, pool, member ? membership : undefined);
          return patch ? [{ type: NODE, obj: node, patch }] : [];
        });
    },
  },
  status({ resource, view }) {
    const nodes = members(view, resource.metadata.name);
    const allocatable = sumQuantities(
      nodes.map((n) => ((n.status ?? {}) as { allocatable?: Record<string, string> }).allocatable ?? {}),
    );
    return { nodeCount: nodes.length, nodes: nodes.map((n) => n.metadata.name).sort(), allocatable };
  },
  // Ready only once every member, as the cache shows it, carries what the pool wants.
  ready({ resource, view }): Readiness {
    const pool = resource.metadata.name;
    const nodes = members(view, pool);
    const membership = nodePoolMembership(resource.spec);
    const pending = nodes
      .filter((n) => planNode(n, pool, membership) !== undefined)
      .map((n) => n.metadata.name);
    return pending.length > 0
      ? {
          ready: false,
          reason: 'Progressing',
          message: `node(s) ${pending.sort().join(', ')} not updated yet`,
        }
      : {
          ready: true,
          reason: 'Reconciled',
          message: `${nodes.length} member node(s) carry the pool's labels and taints`,
        };
  },
});

/** A NodePool custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class NodePoolResource extends customResourceClass(nodePoolKind) {}
