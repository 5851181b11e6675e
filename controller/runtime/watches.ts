/**
 * What each kind watches, as data: its resources, its children (through our managed-by label), the
 * existence of objects in its children's way, and its extra watches; for each, the selector, what the
 * cache keeps, which updates matter (a named predicate) and what an event enqueues. The manager opens one
 * set of informers per row (caches.ts) and wires the enqueue; controller-runtime's builder chain
 * (`For(...).Owns(...).Watches(...)`) reads the same way.
 */
import {
  LABEL_MANAGED_BY,
  LABEL_PART_OF,
  MANAGER,
  RECONCILE_ANNOTATION,
  SUSPENDED_BY_ANNOTATION,
  SUSPEND_REASON_ANNOTATION,
  isWriteOnly,
  type ApiKind,
  type ExtraWatch,
  type Kind,
  type KubeObject,
} from '../../constructs/kit';
import { kindKey } from '../../constructs/kit/api-kind';
import type { LabelSelector } from './label-selector';
import { anyUpdate, childUpdate, metadataOrSpecChanged, type UpdatePredicate } from './predicates';

/** What an event of a watch enqueues. */
export type Enqueue =
  /** The resource itself, at normal priority: the only events that say its spec changed. */
  | { readonly to: 'resource' }
  /** The resource that owns the object (its controller ownerReference, or its instance and ApplySet labels). */
  | { readonly to: 'owner' }
  /** The resources the object blocks (ErrResourceExists), once it goes or changes. */
  | { readonly to: 'blocked' }
  /** The resources the kind's extra watch names. */
  | { readonly to: 'named'; readonly owners: ExtraWatch['owners'] };

export interface Watch {
  /** The kind that needs the watch: it is reconciled once the watch's caches have synced. */
  readonly kind: Kind;
  readonly type: ApiKind;
  /** Which cache the watch shares with others of the same type: the filtered one, or the existence one. */
  readonly cache: 'objects' | 'existence';
  readonly labelSelector?: string;
  readonly indexLabels?: readonly string[];
  readonly metadataOnly?: boolean;
  /** What the cache keeps of an object. */
  readonly transform?: (obj: KubeObject) => KubeObject;
  /** Whether an object's creation is news (an object that blocks nothing yet is not). */
  readonly onAdd: boolean;
  /** Which updates are worth a reconcile. */
  readonly worthIt: UpdatePredicate;
  readonly enqueue: Enqueue;
  /**
   * On the ranges read path of a sharded controller (controller/sharding/ring-record), how the cache holds
   * only the member's share: `uid`, the API server's sharded list and watch of the hash ranges of the
   * objects' uids (the resources); `bucket`, a label selector of the buckets those ranges touch (the
   * children, which carry their resource's bucket). None: every object.
   */
  readonly shardBy?: 'uid' | 'bucket';
}

/** What the existence cache keeps of an object: enough to name it. */
export const nameOnly = (obj: KubeObject): KubeObject => ({
  metadata: {
    name: obj.metadata.name,
    namespace: obj.metadata.namespace,
    resourceVersion: obj.metadata.resourceVersion,
  },
});

/**
 * What the cache of CustomResourceDefinitions keeps: a CRD's name, to wake the informers of a kind
 * installed late, and the annotations that suspend a whole kind (reconstruct.dev/reconcile and who, why).
 */
export const nameAndSuspension = (obj: KubeObject): KubeObject => {
  const annotations = Object.fromEntries(
    Object.entries(obj.metadata.annotations ?? {}).filter(([k]) => SUSPENSION_ANNOTATIONS.includes(k)),
  );
  return {
    metadata: {
      ...nameOnly(obj).metadata,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
  };
};
const SUSPENSION_ANNOTATIONS = [RECONCILE_ANNOTATION, SUSPENDED_BY_ANNOTATION, SUSPEND_REASON_ANNOTATION];

/**
 * The resources of the kind: a change to their metadata or spec (not their status, which we write). With
 * a selector (`--watch-label-selector`), those it selects: this controller's shard.
 */
export const resources = (kind: Kind, selector?: LabelSelector, sharded = false): Watch => ({
  kind,
  type: kind,
  cache: 'objects',
  ...(selector ? { labelSelector: selector.text } : {}),
  ...(sharded ? { shardBy: 'uid' as const } : {}),
  onAdd: true,
  worthIt: metadataOrSpecChanged,
  enqueue: { to: 'resource' },
});

/** Whether the code of a child's owner's kind reads objects of the child's type (KindReads). */
export type KindReadsOf = (owner: Pick<ApiKind, 'apiVersion' | 'kind'>, type: ApiKind) => boolean;

/**
 * The children of a kind's type: only what carries our managed-by label, so memory grows with what we
 * manage, not with the cluster; indexed by ApplySet, so that pruning looks at one resource's children.
 * With a selector, also that: children carry their resource's labels of the keys it names. An update
 * wakes the owner when something its reconcile reads changed (`childUpdate`; `reads` says what its kind's
 * own code reads; without it, every update does).
 */
export const children = (
  kind: Kind,
  type: ApiKind,
  selector?: LabelSelector,
  sharded = false,
  reads: KindReadsOf = () => true,
): Watch => ({
  kind,
  type,
  cache: 'objects',
  labelSelector: `${LABEL_MANAGED_BY}=${MANAGER}${selector ? `,${selector.text}` : ''}`,
  ...(sharded ? { shardBy: 'bucket' as const } : {}),
  indexLabels: [LABEL_PART_OF],
  onAdd: true,
  worthIt: childUpdate(type, reads),
  enqueue: { to: 'owner' },
});

/**
 * What the filtered cache cannot tell: whether a name is taken by an object that is not ours. The
 * complement of the children's selector (`!=` matches objects without the label too), so our own children,
 * and every status change of theirs, reach the controller once, not twice; names only.
 */
export const blockers = (kind: Kind, type: ApiKind): Watch => ({
  kind,
  type,
  cache: 'existence',
  labelSelector: `${LABEL_MANAGED_BY}!=${MANAGER}`,
  metadataOnly: true,
  transform: nameOnly,
  onAdd: false,
  worthIt: anyUpdate,
  enqueue: { to: 'blocked' },
});

/** A kind's own extra watch (NodePool's nodes): the resources it names, at low priority. */
export const extra = (kind: Kind, watch: ExtraWatch): Watch => ({
  kind,
  type: watch.type,
  cache: 'objects',
  labelSelector: watch.labelSelector,
  indexLabels: watch.indexLabels,
  metadataOnly: watch.metadataOnly,
  onAdd: true,
  worthIt: watch.metadataOnly ? metadataOrSpecChanged : anyUpdate,
  enqueue: { to: 'named', owners: (obj) => watch.owners(obj) },
});

/**
 * The watches of the kinds, in the order their caches are opened: the first watch of a type and cache
 * makes the informers the later ones share (their selector and enqueue are the first one's). Resources
 * first, then children (write-only kinds are never read: no cache, no permission to list them), then the
 * kinds' extra watches. A selector narrows the resources and their children to one shard; the objects in
 * their way, and the extra watches, are the cluster's.
 *
 * `sharded` (the ranges read path): each resource cache holds the member's share of the hash ranges of
 * uids, each child type's cache the children of the buckets those ranges touch; but a type an extra watch
 * reads too, whose cache holds every object of the type.
 */
export function watchTable(
  kinds: readonly Kind[],
  selector?: LabelSelector,
  sharded = false,
  reads?: KindReadsOf,
): Watch[] {
  const read = (kind: Kind) => kind.children.filter((t) => !isWriteOnly(t));
  const watched = new Set(kinds.flatMap((k) => k.watches.map((w) => kindKey(w.type))));
  const shardChildren = (type: ApiKind) => sharded && !watched.has(kindKey(type));
  return [
    ...kinds.map((kind) => resources(kind, selector, sharded)),
    ...kinds.flatMap((kind) =>
      read(kind).flatMap((type) => [
        children(kind, type, selector, shardChildren(type), reads),
        blockers(kind, type),
      ]),
    ),
    ...kinds.flatMap((kind) => kind.watches.map((watch) => extra(kind, watch))),
  ];
}
