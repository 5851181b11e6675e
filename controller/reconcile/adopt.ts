/** Adoption: an object that is not ours becomes a resource's child when a user hands it over. */
import {
  ADOPT_ANNOTATION,
  RELEASED_FROM_ANNOTATION,
  type ApiKind,
  type KubeObject,
  type Manifest,
} from '../../constructs/kit';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';

/**
 * Takes over an object a user marked for adoption: our labels, owner and policy annotations, the mark
 * removed; the next reconcile (its watch event brings it) applies the rest. Other controllers' claims are
 * replaced, non-controller ownerReferences kept.
 */
export async function adopt(
  writer: Writer,
  type: ApiKind,
  child: Manifest,
  live: KubeObject,
  log: Logger,
): Promise<void> {
  const ownerReferences = [
    ...(live.metadata.ownerReferences ?? []).filter((r) => !r.controller),
    ...(child.metadata.ownerReferences ?? []),
  ];
  await writer.mergePatch(type, live.metadata.namespace, live.metadata.name, {
    metadata: {
      resourceVersion: live.metadata.resourceVersion,
      labels: child.metadata.labels,
      annotations: {
        ...child.metadata.annotations,
        [ADOPT_ANNOTATION]: null,
        [RELEASED_FROM_ANNOTATION]: null,
      },
      ownerReferences: ownerReferences.length > 0 ? ownerReferences : null,
    },
  });
  log.info('adopted child', { child: `${type.kind}/${live.metadata.name}` });
}
