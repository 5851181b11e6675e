/**
 * The synthesize phase: the children of a resource as the controller handles them (Intents), rendered by
 * the function the offline renderer uses, once per generation of the resource.
 */
import {
  pendingChildren,
  synthesize,
  type CustomResource,
  type Kind,
  type ResolvedInputs,
} from '../../constructs/kit';
import { intentOf, type Intent } from './intent';
import { bucketOf } from '../sharding/ring';

const NO_INPUTS: ResolvedInputs = { values: {}, missing: {} };

/** A resource's last synthesis. */
interface Synthesis {
  readonly uid: string;
  readonly generation: number;
  /** The values of the labels passed on to the children, and of the inputs, as one string. */
  readonly passed: string;
  readonly intents: Intent[];
}

/**
 * The last synthesis of each resource, by queue key. The constructs read the resource's kind, name,
 * namespace and spec, and the owner's uid: while uid and generation (which the API server bumps on every
 * spec change) are the same, so are the children. Most reconciles (a child's or a pod's status moved, a
 * resync) then skip synthesis and hashing.
 */
export class Syntheses {
  private readonly last = new Map<string, Synthesis>();

  /**
   * `copyLabels`: label keys whose values the resource passes on to every child (the watch selector's,
   * so that a shard's children fall under it). A change of those labels, which leaves the generation as it
   * is, renders the children again.
   */
  constructor(
    private readonly copyLabels: readonly string[] = [],
    /** A member of a ring on the ranges read path: each child carries its resource's bucket. */
    private readonly bucketLabel?: string,
  ) {}

  /**
   * The resource's children, rendered with its inputs' values: a child that holds an input not known
   * yet is `pending` (never applied; Ready says what it waits for). Throws the construct's SpecError for a
   * spec it refuses.
   */
  intents(
    definition: Kind,
    key: string,
    resource: CustomResource,
    inputs: ResolvedInputs = NO_INPUTS,
  ): Intent[] {
    const uid = resource.metadata.uid ?? '';
    const generation = resource.metadata.generation;
    const labels = resource.metadata.labels ?? {};
    const passed: Record<string, string> = Object.fromEntries(
      this.copyLabels.filter((k) => labels[k] !== undefined).map((k) => [k, labels[k]]),
    );
    if (this.bucketLabel) passed[this.bucketLabel] = bucketOf(uid);
    const passedKey = JSON.stringify([passed, inputs.values, inputs.missing]);
    const last = this.last.get(key);
    if (last && last.uid === uid && last.generation === generation && last.passed === passedKey)
      return last.intents;
    this.last.delete(key);
    const rendered = synthesize(definition, resource, {
      owner: { uid },
      admitted: true,
      inputs: inputs.values,
    });
    const children = asParsedJson(rendered);
    for (const child of children) child.metadata.labels = { ...child.metadata.labels, ...passed };
    const waits = new Map(
      pendingChildren(definition, resource, rendered).map(({ child, inputs: names }) => [
        `${child.kind} ${child.metadata.name}`,
        names.map((n) => `input ${n}: ${inputs.missing[n] ?? 'not known yet'}`).join(', '),
      ]),
    );
    const intents = children.map((child) => {
      const label = `${child.kind} ${child.metadata.name}`;
      const wait = waits.get(label);
      const intent = intentOf(definition, child);
      return wait ? { ...intent, pending: `${label} waits for ${wait}` } : intent;
    });
    if (generation !== undefined) this.last.set(key, { uid, generation, passed: passedKey, intents });
    return intents;
  }

  /** The intents of the resource's last synthesis, if it is remembered. */
  remembered(key: string): readonly Intent[] {
    return this.last.get(key)?.intents ?? [];
  }

  forget(key: string): void {
    this.last.delete(key);
  }
}

/**
 * The same children, as JSON.parse makes them. Kept per generation, cdk8s's output would cost 7.0 KB a
 * Memcached against 3.9 KB parsed: the objects it builds key by key get a V8 hidden class each, where
 * parsed objects of the same keys share one (and fewer classes are less for every collection to mark).
 */
function asParsedJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
