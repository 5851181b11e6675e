/**
 * A child the API server will not change in place: a Job's template, a workload's selector, a Service's
 * clusterIP are immutable, and no retry of the apply changes that. With the `replace` child policy the
 * controller deletes the child (exactly the object it saw: a uid precondition) and creates it anew on
 * the reconcile its deletion brings, as Flux's `force` and Argo CD's `Replace=true` do; without it the
 * resource's Ready condition names the child and the field, and nothing is deleted.
 */
import type { KubeObject } from '../../constructs/kit';
import type { ChildOutcome, Intent } from './intent';
import { isNotFound } from '../kube/errors';
import type { Logger } from '../log';
import type { Writer } from '../kube/writer';

export async function replaceImmutable(
  writer: Pick<Writer, 'delete'>,
  intent: Intent,
  live: KubeObject,
  fields: readonly string[],
  log: Logger,
): Promise<ChildOutcome> {
  const { child, type, policy } = intent;
  const { namespace, name } = child.metadata;
  const label = `${child.kind} ${name}`;
  const what = `${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} immutable`;
  if (!policy.replace) {
    return {
      kind: 'failed',
      label,
      message:
        `${label}: ${what}: the API server refuses the change; to have it deleted and created again, ` +
        'give the child the replace policy (childPolicy(child, { replace: true }))',
    };
  }
  try {
    await writer.delete(type, namespace, name, live.metadata.uid ?? '');
  } catch (err) {
    // Gone already (someone deleted it): the reconcile its deletion brings creates it.
    if (!isNotFound(err))
      return { kind: 'failed', label, message: `delete ${label} to replace it: ${String(err)}` };
  }
  log.info('replaced child', { child: `${child.kind}/${name}`, immutable: fields });
  return { kind: 'updated', label: `${label} (replaced: ${what})` };
}
