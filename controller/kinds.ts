/**
 * What differs between kinds once the children are applied: the status fields, what "Ready" means, and
 * the few extra things a kind watches or does (Memcached's pods, NodePool's nodes). Everything else in
 * controller/ is the same for every kind.
 */
import { BALANCER_LABEL } from '../constructs/balancer';
import { memberLabel, nodePoolMembership } from '../constructs/node-pool';
import { DEPLOYMENT, SERVICE } from '../constructs/registry';
import { applySetId, LABEL_PART_OF, type CustomResource, type Manifest } from '../constructs/resource';
import type { NodePoolSpec } from '../crds/types.generated';
import type { KubeObject, LabelMatch } from './informer';
import { NODE, POD, ResourceType } from './kube/paths';
import {
  POOL_FINALIZER,
  planNode,
  recordAnnotation,
  recordingPools,
  type Membership,
} from './node-pool-nodes';
import { sumQuantities } from './quantity';

/** Read access to the informers' caches. */
export interface ClusterView {
  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Cached objects of a namespace (all when undefined), optionally only those with one label value. */
  list(type: ResourceType, namespace?: string, match?: LabelMatch): KubeObject[];
  /**
   * Whether an object of this child kind and name exists, ours or anyone's: get() sees only ours, and a
   * metadata-only cache the others.
   */
  exists(type: ResourceType, namespace: string | undefined, name: string): boolean;
}

export interface Readiness {
  ready: boolean;
  reason: string;
  message: string;
}

export interface KindStatus {
  /** The kind's own status fields, beside observedGeneration and conditions. */
  fields: Record<string, unknown>;
  readiness: Readiness;
}

/** A watch a kind needs beyond its resources and children; events enqueue the resource it names. */
export interface ExtraWatch {
  type: ResourceType;
  labelSelector?: string;
  /** Labels the cache indexes, for `ClusterView.list` with a match on them. */
  indexLabels?: string[];
  /**
   * Only the objects' metadata is read (PartialObjectMetadata): cached objects have no spec or status, and
   * an update concerns the resources only when its metadata changed, not on every status change.
   */
  metadataOnly?: boolean;
  /** The names of the resources (namespace, name) an object's change concerns. */
  owners(obj: KubeObject): { namespace?: string; name: string }[];
}

/** Work on other objects than the children, with cleanup before the resource may go (a finalizer). */
export interface Extension {
  finalizer: string;
  /** The patches bringing the cluster to what the resource wants, or undoing it when `deleting`. */
  plan(
    resource: CustomResource,
    view: ClusterView,
    deleting: boolean,
  ): { type: ResourceType; obj: KubeObject; patch: object }[];
}

export interface KindBehaviour {
  status(resource: CustomResource, desired: Manifest[], view: ClusterView): KindStatus;
  watches?: ExtraWatch[];
  extension?: Extension;
}

type Status = {
  availableReplicas?: number;
  updatedReplicas?: number;
  replicas?: number;
  observedGeneration?: number;
};

/** Whether a Deployment has rolled out `replicas` available pods of its current template. */
export function deploymentReadiness(deployment: KubeObject | undefined, replicas: number): Readiness {
  if (!deployment)
    return { ready: false, reason: 'Progressing', message: 'the Deployment does not exist yet' };
  const status = (deployment.status ?? {}) as Status;
  const name = deployment.metadata.name;
  if ((status.observedGeneration ?? 0) < (deployment.metadata.generation ?? 0)) {
    return {
      ready: false,
      reason: 'Progressing',
      message: `Deployment ${name} has not observed its latest spec yet`,
    };
  }
  const available = status.availableReplicas ?? 0;
  const updated = status.updatedReplicas ?? 0;
  const message = `Deployment ${name}: ${available}/${replicas} pods available`;
  const ready = available >= replicas && updated >= replicas && (status.replicas ?? 0) <= replicas;
  return { ready, reason: ready ? 'Available' : 'Progressing', message };
}

function desiredOf(desired: Manifest[], kind: string): Manifest[] {
  return desired.filter((m) => m.kind === kind);
}

function desiredReplicas(deployment: Manifest): number {
  return (deployment.spec as { replicas?: number }).replicas ?? 1;
}

const memcached: KindBehaviour = {
  watches: [
    {
      type: POD,
      labelSelector: 'app=memcached,memcached_cr',
      indexLabels: ['memcached_cr'],
      metadataOnly: true, // status.nodes is names; pods' status changes are many and concern no one
      owners: (pod) => [{ namespace: pod.metadata.namespace, name: pod.metadata.labels?.memcached_cr ?? '' }],
    },
  ],
  status(resource, desired, view) {
    const { namespace, name } = resource.metadata;
    const nodes = view
      .list(POD, namespace, { label: 'memcached_cr', value: name })
      .filter((p) => p.metadata.labels?.app === 'memcached')
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name)
      .sort();
    const [deployment] = desiredOf(desired, 'Deployment');
    return {
      fields: { nodes },
      readiness: deploymentReadiness(
        view.get(DEPLOYMENT, namespace, deployment.metadata.name),
        desiredReplicas(deployment),
      ),
    };
  },
};

const databaseManager: KindBehaviour = {
  status(resource, desired, view) {
    const [deployment] = desiredOf(desired, 'Deployment');
    const live = view.get(DEPLOYMENT, resource.metadata.namespace, deployment.metadata.name);
    return {
      fields: { availableReplicas: ((live?.status ?? {}) as Status).availableReplicas ?? 0 },
      readiness: deploymentReadiness(live, desiredReplicas(deployment)),
    };
  },
};

const balancer: KindBehaviour = {
  status(resource, desired, view) {
    const { namespace, name } = resource.metadata;
    const wanted = new Set(
      desiredOf(desired, 'Service')
        .filter((s) => s.metadata.labels?.[BALANCER_LABEL] === name)
        .map((s) => s.metadata.name),
    );
    const labelled = view
      .list(SERVICE, namespace, { label: LABEL_PART_OF, value: applySetId(resource) })
      .filter((s) => s.metadata.labels?.[BALANCER_LABEL] === name);
    const active = labelled.filter((s) => wanted.has(s.metadata.name)).length;
    const obsolete = labelled.length - active;
    const [deployment] = desiredOf(desired, 'Deployment');
    const proxy = deploymentReadiness(view.get(DEPLOYMENT, namespace, deployment.metadata.name), 1);
    const readiness =
      active < wanted.size
        ? { ready: false, reason: 'Progressing', message: `${active}/${wanted.size} backend Services exist` }
        : proxy;
    return { fields: { activeBackendsNum: active, obsoleteBackendsNum: obsolete }, readiness };
  },
};

function members(view: ClusterView, pool: string): KubeObject[] {
  const label = memberLabel(pool);
  return view.list(NODE).filter((n) => n.metadata.labels?.[label] !== undefined);
}

const nodePool: KindBehaviour = {
  watches: [
    {
      type: NODE,
      owners: (node) => {
        const pools = new Set(recordingPools(node));
        for (const key of Object.keys(node.metadata.labels ?? {})) {
          if (key.startsWith('node-role.kubernetes.io/'))
            pools.add(key.slice('node-role.kubernetes.io/'.length));
        }
        return [...pools].map((name) => ({ name }));
      },
    },
  ],
  extension: {
    finalizer: POOL_FINALIZER,
    plan(resource, view, deleting) {
      const pool = resource.metadata.name;
      const membership: Membership = nodePoolMembership(resource.spec as NodePoolSpec);
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
  status(resource, _desired, view) {
    const pool = resource.metadata.name;
    const nodes = members(view, pool);
    const allocatable = sumQuantities(
      nodes.map((n) => ((n.status ?? {}) as { allocatable?: Record<string, string> }).allocatable ?? {}),
    );
    // Ready only once every member, as the cache shows it, carries what the pool wants.
    const membership = nodePoolMembership(resource.spec as NodePoolSpec);
    const pending = nodes
      .filter((n) => planNode(n, pool, membership) !== undefined)
      .map((n) => n.metadata.name);
    const readiness: Readiness =
      pending.length > 0
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
    return {
      fields: { nodeCount: nodes.length, nodes: nodes.map((n) => n.metadata.name).sort(), allocatable },
      readiness,
    };
  },
};

/** Behaviour by `apiVersion/kind`. */
export const behaviours: Record<string, KindBehaviour> = {
  'cache.example.com/v1alpha1/Memcached': memcached,
  'nodes.lailin.xyz/v1/NodePool': nodePool,
  'coolops.cn/v1alpha1/DatabaseManager': databaseManager,
  'exposer.hliangzhao.io/v1alpha1/Balancer': balancer,
};
