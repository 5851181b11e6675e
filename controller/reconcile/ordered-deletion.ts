/**
 * Deletion in reverse order. Children that wait for siblings (the `waitFor` child policy) were made after
 * them; when the resource goes they go first, and a child others waited for goes only once they are gone
 * (a database migration Job outlives the app that needed it; kro deletes a graph the same way). The
 * garbage collector would delete every child at once, so a resource whose children wait for each other
 * carries a finalizer of ours while it lives; when it is deleted the controller deletes, on each
 * reconcile, the children of that order that no remaining child waits for, and releases the finalizer
 * once it has deleted the last of them (nothing else waits for them to go). The rest (children outside
 * any wait) goes with the garbage collector, as always.
 *
 * Not ordered: a deletion with `--cascade=foreground` (the garbage collector deletes the children at once,
 * before our finalizer is asked), and a namespace's deletion (the namespace controller deletes every object
 * in it). A resource holds its deletion only while the controller runs: with the controller down it waits,
 * as with any finalizer (remove `reconstruct.dev/ordered-deletion` to let it go).
 */
import {
  isWriteOnly,
  type ClusterView,
  type CustomResource,
  type Kind,
  type KubeObject,
} from '../../constructs/kit';
import { namespaceOf, ownedBy, type Intent } from './intent';
import { isConflict, isNotFound } from '../kube/errors';
import type { Logger } from '../log';
import type { Writer } from '../kube/writer';

export const ORDERED_DELETION_FINALIZER = 'reconstruct.dev/ordered-deletion';

/** How soon to look again at children being deleted, should no watch event come first. */
export const ORDERED_RECHECK_MS = 2_000;

type PhaseResult = { requeueAfterMs?: number } | undefined;

const label = (intent: Intent) => `${intent.child.kind} ${intent.child.metadata.name}`;
const idOf = (intent: Intent) => `${intent.child.kind}/${intent.child.metadata.name}`;

/** Whether some child of `desired` waits for another: then deletion is ordered. */
export function needsOrderedDeletion(desired: readonly Intent[]): boolean {
  return desired.some((i) => i.policy.waitFor.length > 0);
}

/** The children to delete now: of those left (in a wait, still there), each that no other one left waits for. */
export function nextToDelete(left: readonly Intent[]): Intent[] {
  const waitedFor = new Set(left.flatMap((i) => i.policy.waitFor.map((w) => `${w.kind}/${w.name}`)));
  return left.filter((i) => !waitedFor.has(idOf(i)));
}

export class OrderedDeletion {
  constructor(
    private readonly view: Pick<ClusterView, 'get'>,
    private readonly writer: Pick<Writer, 'mergePatch' | 'delete'>,
  ) {}

  /**
   * A living resource: the finalizer added when its children wait for each other, removed when they no
   * longer do. A conflict (the cache had not seen the resource's last change) is left to the reconcile
   * that change brings.
   */
  async keep(definition: Kind, resource: CustomResource, desired: readonly Intent[]): Promise<void> {
    const finalizers = resource.metadata.finalizers ?? [];
    const has = finalizers.includes(ORDERED_DELETION_FINALIZER);
    const needs = needsOrderedDeletion(desired);
    if (has === needs) return;
    try {
      await this.patchFinalizers(
        definition,
        resource,
        needs
          ? [...finalizers, ORDERED_DELETION_FINALIZER]
          : finalizers.filter((f) => f !== ORDERED_DELETION_FINALIZER),
      );
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }

  /**
   * A resource being deleted with our finalizer: its ordered children deleted, last the ones others waited
   * for, then the finalizer released. Undefined when the finalizer is not ours to release (the reconcile
   * goes on to the kind's own finalizer work).
   */
  async finalize(
    definition: Kind,
    resource: CustomResource,
    desired: () => readonly Intent[],
    log: Logger,
  ): Promise<PhaseResult> {
    if (!(resource.metadata.finalizers ?? []).includes(ORDERED_DELETION_FINALIZER)) return undefined;
    const { uid, namespace } = resource.metadata;
    let all: readonly Intent[] = [];
    try {
      all = desired();
    } catch (err) {
      // A spec it cannot synthesize any more: no order to keep, the garbage collector takes the children.
      log.info('cannot synthesize the children to delete them in order', { error: String(err) });
    }
    const waitedFor = new Set(all.flatMap((i) => i.policy.waitFor.map((w) => `${w.kind}/${w.name}`)));
    const ordered = all.filter(
      (i) =>
        !isWriteOnly(i.type) && !i.policy.retain && (i.policy.waitFor.length > 0 || waitedFor.has(idOf(i))),
    );
    const live = new Map<Intent, KubeObject>();
    for (const i of ordered) {
      const obj = this.view.get(i.type, namespaceOf(i, namespace), i.child.metadata.name);
      if (obj && ownedBy(obj, uid)) live.set(i, obj);
    }
    const left = [...live.keys()];
    const now = nextToDelete(left);
    for (const intent of now) {
      const { metadata } = live.get(intent)!;
      if (metadata.deletionTimestamp) continue; // going: its own finalizers hold it
      try {
        await this.writer.delete(intent.type, metadata.namespace, metadata.name, metadata.uid ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    // More to delete once these are gone: their watch events (or the recheck) bring the next step.
    if (now.length < left.length) {
      log.info('deleting children in order', { now: now.map(label) });
      return { requeueAfterMs: ORDERED_RECHECK_MS };
    }
    // The last of the order is on its way (or none was left): nothing more waits for anything.
    try {
      await this.patchFinalizers(
        definition,
        resource,
        (resource.metadata.finalizers ?? []).filter((f) => f !== ORDERED_DELETION_FINALIZER),
      );
    } catch (err) {
      if (isNotFound(err)) return {};
      if (isConflict(err)) return { requeueAfterMs: ORDERED_RECHECK_MS };
      throw err;
    }
    log.info('children deleted in order: released the finalizer', { last: now.map(label) });
    return {};
  }

  private patchFinalizers(definition: Kind, resource: KubeObject, finalizers: string[]): Promise<unknown> {
    const { namespace, name, resourceVersion } = resource.metadata;
    return this.writer.mergePatch(definition, namespace, name, { metadata: { resourceVersion, finalizers } });
  }
}
