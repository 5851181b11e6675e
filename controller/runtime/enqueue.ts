/**
 * What the events of a watch enqueue (the `enqueue` of its row in watches.ts): the resource itself, the
 * resource a child belongs to, the resources an object in the way blocks, or what a kind's extra watch
 * names. Only the resource's own events go in at once; the rest are gathered for GATHER_MS. A child's
 * event that brings back the controller's own write enqueues nothing (controller/reconcile/echoes.ts).
 */
import {
  LABEL_INSTANCE,
  LABEL_PART_OF,
  applySetId,
  type ApiKind,
  type Kind,
  type KindRegistry,
  type KubeObject,
} from '../../constructs/kit';
import { objectKey } from '../kube/object-key';
import type { Echoes } from '../reconcile/echoes';
import type { Metrics } from './metrics';
import type { WorkQueue } from './queue';
import type { InformerHandlers } from './store';
import type { Watch } from './watches';

/**
 * How long the events of a resource's children and watched objects are gathered before they enqueue it
 * (WorkQueue.addBatched): the children it created a moment ago arrive within milliseconds of each other,
 * a pod and the Deployment status it brings within a few tens. A change to the resource itself is not
 * delayed; its Ready condition may be, by this much.
 */
export const GATHER_MS = 100;

export interface Routing {
  readonly queue: WorkQueue;
  readonly kinds: KindRegistry;
  readonly metrics: Metrics;
  /** The resources an object in the way blocks (see Reconciler.blockedBy). */
  blockedBy(
    type: ApiKind,
    namespace: string | undefined,
    name: string,
  ): Iterable<{ definition: Kind; namespace?: string; name: string }>;
  /** The versions the controller wrote: a child's event that brings one back wakes no one. */
  readonly echoes?: Echoes;
}

/** What a watch's events do: enqueue what its row says, for the updates its predicate passes. */
export function watchHandlers(watch: Watch, routing: Routing): InformerHandlers<KubeObject> {
  const { enqueue, kind } = watch;
  const { queue, metrics } = routing;
  /** Whether it enqueued anything (an object in the way that blocks nothing does not). */
  const onEvent = (obj: KubeObject): boolean => {
    if (enqueue.to === 'resource') queue.add(objectKey(kind, obj.metadata.namespace, obj.metadata.name));
    else if (enqueue.to === 'owner') enqueueOwner(obj, routing);
    else if (enqueue.to === 'blocked') {
      const { namespace, name } = obj.metadata;
      let any = false;
      for (const blocked of routing.blockedBy(watch.type, namespace, name)) {
        queue.add(objectKey(blocked.definition, blocked.namespace, blocked.name));
        any = true;
      }
      return any;
    } else {
      for (const owner of enqueue.owners(obj)) {
        if (owner.name) queue.addBatched(objectKey(kind, owner.namespace, owner.name), GATHER_MS);
      }
    }
    return true;
  };
  const counted = (event: 'add' | 'update' | 'delete', obj: KubeObject, worthIt = true) => {
    const judged = () => metrics.watchEvent(kind.kind, watch.type.plural, event, worthIt && onEvent(obj));
    const { namespace, name, resourceVersion } = obj.metadata;
    const child = objectKey(watch.type, namespace, name ?? '');
    const echo = enqueue.to === 'owner' && routing.echoes?.event(child, resourceVersion, event);
    if (echo === true) metrics.watchEvent(kind.kind, watch.type.plural, event, 'echo');
    else if (echo instanceof Promise) {
      // A write of the child is in flight: its answer says whether this is its echo.
      void echo.then((own) =>
        own ? metrics.watchEvent(kind.kind, watch.type.plural, event, 'echo') : judged(),
      );
    } else judged();
  };
  return {
    ...(watch.onAdd ? { onAdd: (obj: KubeObject) => counted('add', obj) } : {}),
    onUpdate: (before, obj) => counted('update', obj, watch.worthIt(before, obj)),
    onDelete: (obj) => counted('delete', obj),
  };
}

/**
 * Enqueues the resource a child belongs to: its controller ownerReference, or, for a child without one (a
 * retained child, or one marked for adoption), the resource its instance and ApplySet labels name.
 */
function enqueueOwner(obj: KubeObject, { queue, kinds }: Routing): void {
  const enqueue = (definition: Kind, name: string) =>
    queue.addBatched(
      objectKey(definition, definition.namespaced ? obj.metadata.namespace : undefined, name),
      GATHER_MS,
    );
  let owned = false;
  for (const ref of obj.metadata.ownerReferences ?? []) {
    if (!ref.controller) continue;
    owned = true;
    const definition = kinds.get(ref.apiVersion, ref.kind);
    if (definition) enqueue(definition, ref.name);
  }
  const name = obj.metadata.labels?.[LABEL_INSTANCE];
  const partOf = obj.metadata.labels?.[LABEL_PART_OF];
  if (owned || !name || !partOf) return;
  for (const definition of kinds.kinds) {
    const namespace = definition.namespaced ? obj.metadata.namespace : undefined;
    const parent = {
      apiVersion: definition.apiVersion,
      kind: definition.kind,
      metadata: { name, namespace },
    };
    if (applySetId(parent) === partOf) enqueue(definition, name);
  }
}
