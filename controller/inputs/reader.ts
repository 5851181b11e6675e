/**
 * The inputs phase: a resource's observed inputs (KindOptions.inputs) resolved from the world as it is,
 * on every reconcile, before its children are rendered. A child's field is read from the child caches
 * (the controller watches its children); any other object an input names (a ConfigMap or a Secret of the
 * user's, another kind's resource) is read by name: from its watch by reference (./watches.ts: one watch
 * of that one object, whose changes enqueue the resources that read it), or by a GET until that watch has
 * synced; never a list or a cache of every object of its type. A read the API server forbids is said
 * once per object, and the input waits, naming it.
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
import { inputReads, pollsInput } from '../../constructs/kit/inputs/resolve';
import { isForbidden } from '../kube/errors';
import { objectKey } from '../kube/object-key';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';
import type { InputWatches, Read } from './watches';

const NONE: ResolvedInputs = { values: {}, missing: {} };

export class InputReader {
  /** The objects whose reads were refused, said once each. */
  private readonly refused = new Set<string>();

  constructor(
    private readonly view: ClusterView,
    private readonly writer: Pick<Writer, 'read'>,
    private readonly watches?: InputWatches,
  ) {}

  /** The resource is gone: the objects it read are no longer watched for it. */
  forget(key: string): void {
    this.watches?.forget(key);
  }

  /** The resource's inputs now; `observed`: what its external work last observed, if anything. */
  async resolve(
    definition: Kind,
    resource: CustomResource,
    log: Logger,
    observed?: unknown,
  ): Promise<ResolvedInputs> {
    const inputs = definition.inputs;
    if (Object.keys(inputs).length === 0) return NONE;
    const resourceKey = objectKey(definition, resource.metadata.namespace, resource.metadata.name);
    const objects = new Map<string, KubeObject | undefined>();
    const forbidden = new Map<string, string>();
    const watched: Read[] = [];
    for (const read of inputReads(inputs, resource)) {
      const key = objectKey(read.type, read.namespace, read.name);
      if (objects.has(key)) continue;
      if (inputs[read.input].from === 'child') {
        objects.set(key, this.view.get(read.type, read.namespace, read.name));
        continue;
      }
      const ref = { type: read.type, namespace: read.namespace, name: read.name };
      const cached = this.watches?.get(ref);
      if (cached) {
        objects.set(key, cached.object);
        watched.push(ref);
        continue;
      }
      try {
        const object = await this.writer.read<KubeObject>(read.type, read.namespace, read.name);
        objects.set(key, object);
        const poll = pollsInput(inputs[read.input]);
        watched.push({ ...ref, seen: object?.metadata.resourceVersion ?? null, poll });
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
    this.watches?.track(resourceKey, watched);
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
