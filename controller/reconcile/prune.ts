/**
 * The prune phase of a reconcile: what a resource made earlier and no longer wants goes, and nothing else
 * (a retained child is released instead, a write-only one deleted by the uid its record keeps).
 */
import {
  LABEL_PART_OF,
  OWNER_UID_ANNOTATION,
  RELEASED_FROM_ANNOTATION,
  RETAIN_ANNOTATION,
  applySetId,
  isWriteOnly,
  type ClusterView,
  type CustomResource,
  type Kind,
} from '../../constructs/kit';
import type { Writer } from '../kube/writer';
import { ownedBy } from './intent';
import { isNotFound, isConflict } from '../kube/errors';
import type { Logger } from '../log';
import { objectKey } from '../kube/object-key';
import type { CreatedChild, WriteOnlyChildren } from './write-only';

/** What pruning reads and writes through: the reconciler's. */
interface PruneDeps {
  readonly view: ClusterView;
  readonly writer: Writer;
  readonly writeOnly: WriteOnlyChildren;
}

/** What a prune did: the children it deleted and those it released by their retain policy, sorted. */
export interface Pruned {
  readonly pruned: string[];
  readonly retained: string[];
}

/** Prunes the children of `resource` that are not `wanted` (child keys); says what went and what stayed. */
export async function prune(
  { view, writer, writeOnly }: PruneDeps,
  definition: Kind,
  resource: CustomResource,
  wanted: Set<string>,
  created: CreatedChild[],
  log: Logger,
): Promise<Pruned> {
  const partOf = applySetId(resource);
  const namespace = definition.namespaced ? resource.metadata.namespace : undefined;
  const pruned = await writeOnly.prune(definition, resource, created, wanted);
  for (const child of pruned) log.info('pruned child', { child: child.replace(' ', '/') });
  const retained: string[] = [];
  const uid = resource.metadata.uid;
  for (const type of definition.children) {
    if (isWriteOnly(type)) continue; // Not cached: WriteOnlyChildren.prune goes by the status's records.
    const stale = view
      .list(type, type.namespaced ? namespace : undefined, { label: LABEL_PART_OF, value: partOf })
      .filter((obj) => ownedBy(obj, uid))
      .filter((obj) => !wanted.has(objectKey(type, obj.metadata.namespace, obj.metadata.name)));
    for (const obj of stale) {
      if (obj.metadata.annotations?.[RETAIN_ANNOTATION] === 'true') {
        // Released, not deleted: no owner any more, labels kept, so that a resource can adopt it on purpose.
        const refs = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        await writer.mergePatch(type, obj.metadata.namespace, obj.metadata.name, {
          metadata: {
            resourceVersion: obj.metadata.resourceVersion,
            annotations: { [OWNER_UID_ANNOTATION]: null, [RELEASED_FROM_ANNOTATION]: uid ?? null },
            ownerReferences: refs.length > 0 ? refs : null,
          },
        });
        log.info('released retained child', { child: `${type.kind}/${obj.metadata.name}` });
        retained.push(`${type.kind} ${obj.metadata.name}`);
        continue;
      }
      try {
        await writer.delete(type, obj.metadata.namespace, obj.metadata.name, obj.metadata.uid ?? '');
      } catch (err) {
        if (isNotFound(err) || isConflict(err)) continue; // already gone or replaced
        throw err;
      }
      log.info('pruned child', { child: `${type.kind}/${obj.metadata.name}` });
      pruned.push(`${type.kind} ${obj.metadata.name}`);
    }
  }
  return { pruned: pruned.sort(), retained: retained.sort() };
}
