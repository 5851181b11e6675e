/**
 * The inputs phase: a resource's observed inputs (KindOptions.inputs) resolved from the world as it is,
 * on every reconcile, before its children are rendered. A child's field is read from the child caches
 * (the controller watches its children); any other object an input names (a ConfigMap or a Secret of the
 * user's, another kind's resource) is read by name: a GET, never a list or a cache of every object of
 * its type, so a Secret input costs `get` on Secrets and holds only the one key in memory, for the
 * render. A read the API server forbids is said once per object, and the input waits, naming it.
 */
import {
  resolveInputs,
  type ApiKind,
  type ClusterView,
  type CustomResource,
  type Kind,
  type KubeObject,
  type ResolvedInputs,
} from '../../constructs/kit';
import { inputReads } from '../../constructs/kit/inputs/resolve';
import { isForbidden } from '../kube/errors';
import { objectKey } from '../kube/object-key';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';

const NONE: ResolvedInputs = { values: {}, missing: {} };

export class InputReader {
  /** The objects whose reads were refused, said once each. */
  private readonly refused = new Set<string>();

  constructor(
    private readonly view: ClusterView,
    private readonly writer: Pick<Writer, 'read'>,
  ) {}

  /** The resource's inputs now; `observed`: what its external work last observed, if anything. */
  async resolve(
    definition: Kind,
    resource: CustomResource,
    log: Logger,
    observed?: unknown,
  ): Promise<ResolvedInputs> {
    const inputs = definition.inputs;
    if (Object.keys(inputs).length === 0) return NONE;
    const objects = new Map<string, KubeObject | undefined>();
    const forbidden = new Map<string, string>();
    for (const read of inputReads(inputs, resource)) {
      const key = objectKey(read.type, read.namespace, read.name);
      if (objects.has(key)) continue;
      if (inputs[read.input].from === 'child') {
        objects.set(key, this.view.get(read.type, read.namespace, read.name));
        continue;
      }
      try {
        objects.set(key, await this.writer.read<KubeObject>(read.type, read.namespace, read.name));
        this.refused.delete(key);
      } catch (err) {
        if (!isForbidden(err)) throw err;
        objects.set(key, undefined);
        forbidden.set(read.input, `reading ${describe(read.type, read.namespace, read.name)} is forbidden`);
        if (!this.refused.has(key)) {
          this.refused.add(key);
          log.warn('an input cannot be read', { input: read.input, error: String(err) });
        }
      }
    }
    const lookup = (type: ApiKind, namespace: string | undefined, name: string) =>
      objects.get(objectKey(type, namespace, name));
    const resolved = resolveInputs(inputs, resource, lookup, observed);
    return forbidden.size === 0
      ? resolved
      : { ...resolved, missing: { ...resolved.missing, ...Object.fromEntries(forbidden) } };
  }
}

const describe = (type: ApiKind, namespace: string | undefined, name: string) =>
  `${type.kind} ${namespace ? `${namespace}/` : ''}${name}`;
