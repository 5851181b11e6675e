/**
 * Which resources an object that is not ours blocks (ErrResourceExists), so that its deletion (or its
 * being marked for adoption) brings them back at once rather than at the next resync. Each reconcile
 * restates its own blockers.
 */
import type { ApiKind, Kind } from '../../constructs/kit';
import { objectKey } from '../kube/object-key';

/** A resource, as the queue names it. */
export interface BlockedResource {
  readonly definition: Kind;
  readonly namespace: string | undefined;
  readonly name: string;
}

export class Blockers {
  /**
   * By the key of an object that is not ours: the resources it blocks (ErrResourceExists), so that its
   * deletion brings them back at once rather than at the next resync. Each reconcile restates its own.
   */
  private readonly blocking = new Map<string, Map<string, BlockedResource>>();
  /** By resource key: the objects it is blocked by (keys of `blocking`), to restate them in O(own). */
  private readonly blockedOf = new Map<string, readonly string[]>();

  /**
   * The resources that an object, not ours, of this kind and name blocks: to reconcile again once it goes
   * (or changes: a user may mark it for adoption).
   */
  blockedBy(
    type: Pick<ApiKind, 'apiVersion' | 'kind'>,
    namespace: string | undefined,
    name: string,
  ): BlockedResource[] {
    return [...(this.blocking.get(objectKey(type, namespace, name))?.values() ?? [])];
  }

  /** Records that the resource of `key` is blocked by exactly the objects of `blockers` (child keys). */
  set(key: string, blockers: readonly string[], resource?: BlockedResource): void {
    for (const child of this.blockedOf.get(key) ?? []) {
      const resources = this.blocking.get(child);
      if (resources?.delete(key) && resources.size === 0) this.blocking.delete(child);
    }
    if (!resource || blockers.length === 0) {
      this.blockedOf.delete(key);
      return;
    }
    this.blockedOf.set(key, blockers);
    for (const child of blockers) {
      const resources = this.blocking.get(child) ?? new Map<string, BlockedResource>();
      resources.set(key, resource);
      this.blocking.set(child, resources);
    }
  }
}
