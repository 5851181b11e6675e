/** The span of one reconcile: what a reader of the trace filters by, and the link to the trace that wrote it. */
import type { CustomResource, Kind } from '../../constructs/kit';
import type { Tracing } from './tracing';

/**
 * Runs `reconcile` in a span `reconcile <Kind>` with the resource's kind, namespace, name, generation and
 * the kind's revision (the shard member is the process's resource attribute), linked to the reconcile that
 * wrote the resource when one of another kind of ours did (its `traceparent` annotation).
 */
export function reconcileSpan<T>(
  tracing: Tracing,
  definition: Kind,
  namespace: string | undefined,
  name: string,
  resource: () => CustomResource | undefined,
  reconcile: () => Promise<T>,
): Promise<T> {
  if (!tracing.on) return reconcile();
  const object = resource();
  return tracing.span(
    `reconcile ${definition.kind}`,
    {
      'reconstruct.kind': definition.kind,
      'reconstruct.api_version': definition.apiVersion,
      'k8s.namespace.name': namespace,
      'reconstruct.name': name,
      'reconstruct.generation': object?.metadata.generation,
      'reconstruct.revision': definition.revision,
    },
    async (span) => {
      const result = await reconcile();
      if (result && typeof result === 'object' && 'requeueAfterMs' in result)
        span?.setAttribute('reconstruct.requeue_after_ms', Number(result.requeueAfterMs));
      return result;
    },
    tracing.linksOf(object),
  );
}
