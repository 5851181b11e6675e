/**
 * The finalizer phase of a reconcile and the sync of a kind with one (KindSync): the finalizer added to a
 * resource that lacks it; a resource being deleted has what its plan says is left to undo done, and is held
 * until the plan is empty (Ready=False in the kind's words beside the kind's own status fields, a Warning
 * event when that changes, a backoff), then released. A resource gone meanwhile (a reconcile from a cache
 * that had not seen the release yet, as the watch events of the objects just patched race the resource's
 * own deletion) is not an error: nothing is left to do. Nor is a patch refused with a conflict (the cache
 * had not seen the object's last change): the reconcile comes back within a second and plans with the
 * fresh object.
 */
import {
  isSyncWait,
  type ClusterView,
  type CustomResource,
  type Kind,
  type KindSync,
  type KubeObject,
  type Readiness,
  type SyncPatch,
  type SyncStep,
  type SyncWait,
} from '../../constructs/kit';
import type { EventSink } from '../kube/events';
import { isConflict, isNotFound } from '../kube/errors';
import type { Logger } from '../log';
import { objectKey } from '../kube/object-key';
import { kindMay } from '../../constructs/kit/grants';
import { heldStatusFields, waitReadiness, writeStatus } from './status';
import type { OrderedDeletion } from './ordered-deletion';
import type { Intent } from './intent';
import type { Writer } from '../kube/writer';

/** The first look again at a held deletion, should no watch event come first; it doubles up to the max. */
export const HELD_RECHECK_MS = 5_000;
export const HELD_RECHECK_MAX_MS = 120_000;
/**
 * A release, or an undo's patch, refused because the object changed since the cache saw it: tried again
 * this soon.
 */
export const CONFLICT_RETRY_MS = 1_000;
/** The Ready reason of a deletion held only by patches just made (their effect not seen yet). */
export const FINALIZING = 'Finalizing';

/** What the reconcile does after this phase: go on (undefined), or end with this result. */
type PhaseResult = { requeueAfterMs?: number } | undefined;

/**
 * The finalize phase: the kind's own finalizer work first (Finalizer), while the children it may need are
 * still there; then the children that wait for each other, deleted in reverse order (OrderedDeletion).
 * A new resource of a kind with a sync gets its finalizer. Undefined when the reconcile goes on.
 */
export async function finalize(
  finalizer: Finalizer,
  ordered: OrderedDeletion,
  definition: Kind,
  resource: CustomResource,
  synthesis: () => readonly Intent[],
  log: Logger,
): Promise<PhaseResult> {
  const { metadata } = resource;
  const syncHolds = !!definition.sync && !!metadata.finalizers?.includes(definition.sync.finalizer);
  if (metadata.deletionTimestamp && !syncHolds) {
    const held = await ordered.finalize(definition, resource, synthesis, log);
    if (held) return held;
  }
  return finalizer.finalize(definition, resource, synthesis, log);
}

const label = ({ type, obj }: { type: { kind: string }; obj: KubeObject }) =>
  `${type.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;

export class Finalizer {
  /** By queue key: the message a held deletion last said, and how many reconciles in a row said it. */
  private readonly held = new Map<string, { message: string; count: number }>();
  /** By queue key: resources whose last sync had a patch refused with a conflict. */
  private readonly conflicted = new Set<string>();

  constructor(
    /** The view a kind's sync plans from: the caches, its reads recorded (KindReads). */
    private readonly viewOf: (definition: Kind) => ClusterView,
    private readonly writer: Writer,
    private readonly events: EventSink,
    private readonly now: () => Date,
  ) {}

  /**
   * A resource being deleted: undone and released, or held. One without its kind's finalizer gets it.
   * Undefined when the reconcile goes on.
   */
  async finalize(
    definition: Kind,
    resource: CustomResource,
    synthesis: () => readonly Intent[],
    log: Logger,
  ): Promise<PhaseResult> {
    const { sync } = definition;
    const { metadata } = resource;
    const { namespace, name } = metadata;
    const key = objectKey(definition, namespace, name);
    if (metadata.deletionTimestamp) {
      if (!sync || !metadata.finalizers?.includes(sync.finalizer)) {
        this.held.delete(key);
        return {}; // Someone else's finalizers, or none: nothing of ours holds it.
      }
      const steps = sync.plan(resource, this.viewOf(definition), true);
      if (!(await this.make(definition, steps, true, log))) return { requeueAfterMs: CONFLICT_RETRY_MS };
      return steps.length === 0
        ? this.release(definition, resource, sync, log)
        : this.hold(
            definition,
            resource,
            steps,
            heldStatusFields(
              definition,
              resource,
              () => synthesis().map((i) => i.child),
              this.viewOf(definition),
            ),
            log,
          );
    }
    if (sync && !metadata.finalizers?.includes(sync.finalizer)) {
      await this.writer.mergePatch(definition, namespace, name, {
        metadata: {
          resourceVersion: metadata.resourceVersion,
          finalizers: [...(metadata.finalizers ?? []), sync.finalizer],
        },
      });
      return {}; // The finalizer's update brings the resource back.
    }
    return undefined;
  }

  /**
   * The sync of a resource that is not being deleted: its patches made; what it waits for. A patch refused
   * with a conflict is left to the object's own event, which brings the resource back.
   */
  async sync(definition: Kind, resource: CustomResource, log: Logger): Promise<SyncWait[]> {
    if (!definition.sync) return [];
    const steps = definition.sync.plan(resource, this.viewOf(definition), false);
    if (!(await this.make(definition, steps, false, log))) {
      this.conflicted.add(objectKey(definition, resource.metadata.namespace, resource.metadata.name));
    }
    return steps.filter(isSyncWait);
  }

  /**
   * How soon to look at a resource again whose last sync met a conflict (the event that caused it may not
   * enqueue it: a metadata-only watch ignores a status change), once; undefined when it met none.
   */
  retryAfterMs(key: string): number | undefined {
    return this.conflicted.delete(key) ? CONFLICT_RETRY_MS : undefined;
  }

  /** Forgets a resource that is gone. */
  forget(key: string): void {
    this.held.delete(key);
    this.conflicted.delete(key);
  }

  /**
   * Makes the plan's patches, in order. False when one was refused with a conflict: the object changed
   * since the cache saw it (another actor, a kubelet's heartbeat, the events of our last patches not all
   * in yet), so the rest of the plan may be stale too. Its event brings the resource back with the fresh
   * object: a retry, not an error.
   */
  private async make(
    definition: Kind,
    steps: readonly SyncStep[],
    deleting: boolean,
    log: Logger,
  ): Promise<boolean> {
    for (const step of steps) {
      if (isSyncWait(step)) continue;
      const { type, obj, patch } = step;
      if (!kindMay(definition, type, 'patch', obj.metadata.name)) {
        throw new Error(
          `${definition.kind}'s sync patches ${label(step)}, which its rules do not allow: ` +
            `declare it in permissions ({ type: <${type.kind}>, verbs: ['patch'] })`,
        );
      }
      const object = label(step).replace(' ', '/');
      try {
        await this.writer.mergePatch(type, obj.metadata.namespace, obj.metadata.name, patch);
      } catch (err) {
        if (!isConflict(err)) throw err;
        log.info('changed since the cache saw it: planning again with its next event', { object });
        return false;
      }
      log.info(deleting ? 'undid sync' : 'synced', { object });
    }
    return true;
  }

  private async release(
    definition: Kind,
    resource: CustomResource,
    sync: KindSync,
    log: Logger,
  ): Promise<PhaseResult> {
    const { namespace, name, resourceVersion, finalizers = [] } = resource.metadata;
    this.held.delete(objectKey(definition, namespace, name));
    try {
      await this.writer.mergePatch(definition, namespace, name, {
        metadata: { resourceVersion, finalizers: finalizers.filter((f) => f !== sync.finalizer) },
      });
    } catch (err) {
      if (isNotFound(err)) {
        log.debug('released already: the resource is gone');
        return {};
      }
      // Changed since the cache saw it (our own status write, another finalizer): its update may enqueue
      // nothing (a status change does not), so the reconcile asks to come back.
      if (isConflict(err)) {
        log.info('the resource changed since the cache saw it: releasing the finalizer again shortly');
        return { requeueAfterMs: CONFLICT_RETRY_MS };
      }
      throw err;
    }
    log.info('nothing left to undo: released the finalizer');
    return {};
  }

  private async hold(
    definition: Kind,
    resource: CustomResource,
    steps: readonly SyncStep[],
    fields: object,
    log: Logger,
  ): Promise<PhaseResult> {
    const key = objectKey(definition, resource.metadata.namespace, resource.metadata.name);
    const waits = steps.filter(isSyncWait);
    const patches = steps.filter((s): s is SyncPatch => !isSyncWait(s));
    const readiness: Readiness =
      waits.length > 0
        ? waitReadiness(waits)
        : {
            ready: false,
            reason: FINALIZING,
            message: `being deleted: undoing its changes to ${patches.map(label).join(', ')}`,
          };
    const last = this.held.get(key);
    const count = last?.message === readiness.message ? last.count + 1 : 1;
    try {
      await writeStatus(this.writer, definition, resource, fields, readiness, this.now());
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.held.delete(key);
      return {}; // Gone meanwhile.
    }
    if (count === 1) {
      log.info('deletion held', { reason: readiness.reason, message: readiness.message });
      if (waits.length > 0) this.events.emit(resource, 'Warning', readiness.reason, readiness.message);
    }
    this.held.set(key, { message: readiness.message, count });
    return { requeueAfterMs: Math.min(HELD_RECHECK_MS * 2 ** (count - 1), HELD_RECHECK_MAX_MS) };
  }
}
