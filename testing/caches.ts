/**
 * What the controller's caches show of the in-memory cluster: a child kind's objects only with our
 * managed-by label (the filtered child caches), and nothing of a kind the kinds only write (no cache of it).
 */
import {
  LABEL_MANAGED_BY,
  MANAGER,
  isWriteOnly,
  type ApiKind,
  type Kind,
  type KubeObject,
} from '../constructs/kit';

const listed = (kinds: readonly Kind[], type: ApiKind) =>
  kinds.flatMap((k) =>
    k.children.filter((c) => c.apiVersion === type.apiVersion && c.plural === type.plural),
  );

/**
 * Throws for a kind some kinds list as write-only and none as readable: the controller has no cache of it
 * (and no permission to read it), so asking the view about it is a bug the harness reports.
 */
export function refuseUnread(kinds: readonly Kind[], type: ApiKind): void {
  const children = listed(kinds, type);
  if (children.length > 0 && children.every(isWriteOnly)) {
    throw new Error(`${type.apiVersion} ${type.plural} is write-only: the controller cannot read it`);
  }
}

/** Whether the caches show `obj`: any object of a kind that is no child kind, a child only when it is ours. */
export function inChildCache(kinds: readonly Kind[], type: ApiKind, obj: KubeObject): boolean {
  return listed(kinds, type).length === 0 || obj.metadata.labels?.[LABEL_MANAGED_BY] === MANAGER;
}
