/**
 * What a kind sees of the cluster when the controller asks it for status, readiness or work on other
 * objects: a read-only view of the controller's caches. Plain types, no client: a kind's code stays
 * testable with an in-memory view.
 */
import type { ApiKind } from './api-kind';
import type { ObjectMeta } from './resource';

/** An object as the controller's caches hold it (managedFields dropped). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

/** An equality selector on one label. */
export interface LabelMatch {
  label: string;
  value: string;
}

/** Read access to the controller's caches. */
export interface ClusterView {
  /** The object of this kind, namespace and name, if the caches hold it (our children, watched kinds). */
  get(type: ApiKind, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Cached objects of a namespace (all when undefined), optionally only those with one label value. */
  list(type: ApiKind, namespace?: string, match?: LabelMatch): KubeObject[];
  /**
   * Whether an object of this child kind and name exists, ours or anyone's: get() sees only ours, and a
   * metadata-only cache the others.
   */
  exists(type: ApiKind, namespace: string | undefined, name: string): boolean;
}

/** Whether a resource (or one child) is ready, with the reason and message its Ready condition shows. */
export interface Readiness {
  readonly ready: boolean;
  /** CamelCase, e.g. `Available`, `Progressing`. */
  readonly reason: string;
  /** What a user reads in `kubectl describe`: which object, what it waits for. */
  readonly message: string;
  /**
   * Not ready, and waiting will not help until something changes (the spec, a Secret, a child that failed
   * for good): the resource's status says `Stalled=True`, which kstatus reads as Failed and Argo CD's
   * health check as Degraded. The controller still looks again (on a change, and with its backoff).
   * @default false - on its way: `Reconciling=True`, InProgress to kstatus, Progressing to Argo CD
   */
  readonly stalled?: boolean;
}

/** A watch a kind needs beyond its resources and children; events enqueue the resources it names. */
export interface ExtraWatch {
  readonly type: ApiKind;
  readonly labelSelector?: string;
  /** Labels the cache indexes, for `ClusterView.list` with a match on them. */
  readonly indexLabels?: string[];
  /**
   * Only the objects' metadata is read (PartialObjectMetadata): cached objects have no spec or status, and
   * an update concerns the resources only when its metadata changed, not on every status change.
   */
  readonly metadataOnly?: boolean;
  /** The names of the resources (namespace, name) an object's change concerns. */
  owners(obj: KubeObject): { namespace?: string; name: string }[];
}

/** One merge patch of an object that is not a child, computed by a kind's sync. */
export interface SyncPatch {
  readonly type: ApiKind;
  readonly obj: KubeObject;
  /** A JSON merge patch; with metadata.resourceVersion in it, it fails rather than overwrite a change. */
  readonly patch: object;
}

/**
 * What a kind's sync waits for and cannot change itself (pods still running in a namespace it made), in
 * the kind's words: the resource's Ready condition says it (`Ready=False`, this reason and message), and
 * while the resource is being deleted it holds the finalizer, with a Warning event.
 */
export interface SyncWait {
  /** CamelCase, for the Ready condition and the event, e.g. `PodsRunning`. */
  readonly reason: string;
  /** What a user reads in `kubectl describe`: what it waits for, and what would end the wait. */
  readonly message: string;
}

/** One step of a kind's sync plan: a patch to make, or something to wait for. */
export type SyncStep = SyncPatch | SyncWait;

/** Whether a sync step is a wait (else a patch). */
export function isSyncWait(step: SyncStep): step is SyncWait {
  return !('patch' in step);
}
