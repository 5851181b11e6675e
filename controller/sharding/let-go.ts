/**
 * A member's side of the drain handshake (./assign): a resource of its own that the ring's leader labelled
 * `drain` is let go of, not reconciled: the member removes both of the ring's labels, which tells the
 * leader it is done with it (the queue runs one reconcile of a resource at a time, so none of this member's
 * is still in flight), and forgets it. The resource then leaves its watch, and the leader assigns it.
 */
import type { CustomResource, Kind } from '../../constructs/kit';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';

/** The labels of a member's ring: the one that assigns a resource, and the one that asks for it back. */
export interface ShardLabels {
  readonly label: string;
  readonly drain: string;
}

/** Lets go of `resource` if it is being drained; whether it was. */
export async function letGo(
  writer: Writer,
  definition: Kind,
  resource: CustomResource,
  shard: ShardLabels,
  log: Logger,
): Promise<boolean> {
  if (resource.metadata.labels?.[shard.drain] === undefined) return false;
  const { name, namespace } = resource.metadata;
  await writer.mergePatch(definition, namespace, name, {
    metadata: { labels: { [shard.label]: null, [shard.drain]: null } },
  });
  log.info('let go of a resource for another member', { kind: definition.kind, namespace, name });
  return true;
}
