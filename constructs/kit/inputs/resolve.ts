/**
 * Inputs resolved for one resource: which objects they read (`inputReads`, so that the controller reads
 * or watches exactly those, and `reconstruct synth --inputs` knows what a file must give), and their
 * values from those objects (`resolveInputs`): pure, the same in the controller, in the in-memory cluster
 * and in `reconstruct diff`. An input without a value says why in one line naming the object.
 */
import { CONFIG_MAP, SECRET, type ApiKind } from '../api-kind';
import type { KubeObject } from '../cluster-view';
import type { CustomResource } from '../resource';
import {
  describeSource,
  nameOf,
  parsePath,
  valueAt,
  type Inputs,
  type InputSource,
  type InputValue,
} from './declare';

/** An object an input reads. */
export interface InputRead {
  /** The input's name. */
  readonly input: string;
  readonly type: ApiKind;
  readonly namespace?: string;
  readonly name: string;
}

/** What a resource's inputs are: the known values, and why each other one is not known yet. */
export interface ResolvedInputs {
  readonly values: Readonly<Record<string, InputValue>>;
  /** By input: one line, `Service web has no status.loadBalancer.ingress[0].hostname yet`. */
  readonly missing: Readonly<Record<string, string>>;
}

/** How the resolver finds an object (the caches, the in-memory cluster, a file's objects). */
export type ObjectLookup = (
  type: ApiKind,
  namespace: string | undefined,
  name: string,
) => KubeObject | undefined;

type Source = InputSource<never, never>;

const typeOf = (input: Exclude<Source, { from: 'external' }>): ApiKind =>
  input.from === 'configMap' ? CONFIG_MAP : input.from === 'secret' ? SECRET : input.type;

/** Where an input's object is for this resource; undefined when the spec names none. */
function whereOf(
  input: Exclude<Source, { from: 'external' }>,
  resource: CustomResource,
): { type: ApiKind; namespace?: string; name: string } | undefined {
  const name = nameOf(input.name, resource);
  if (!name) return undefined;
  const type = typeOf(input);
  const namespace =
    input.namespace !== undefined ? nameOf(input.namespace, resource) : resource.metadata.namespace;
  return { type, name, ...(namespace ? { namespace } : {}) };
}

/**
 * Whether the controller reads the input's object again by polling rather than watching it: a Secret the
 * spec names (a watch without a name the install can know would need a read of every Secret).
 */
export function pollsInput(input: Source): boolean {
  return input.from === 'secret' && typeof input.name !== 'string';
}

/** The objects the resource's inputs read, one per input that reads one (none for external ones). */
export function inputReads(inputs: Inputs, resource: CustomResource): InputRead[] {
  return Object.entries(inputs).flatMap(([input, source]) => {
    if (source.from === 'external') return [];
    const where = whereOf(source, resource);
    return where ? [{ input, ...where }] : [];
  });
}

/** The inputs' values from the objects `lookup` finds and what the external work `observed`. */
export function resolveInputs(
  inputs: Inputs,
  resource: CustomResource,
  lookup: ObjectLookup,
  observed?: unknown,
): ResolvedInputs {
  const values: Record<string, InputValue> = {};
  const missing: Record<string, string> = {};
  for (const [name, input] of Object.entries(inputs)) {
    const found = rawValue(input, resource, lookup, observed);
    if ('why' in found) {
      missing[name] = found.why;
      continue;
    }
    const value = asInput(found.value, input.as);
    if (value === undefined) {
      const what = describeSource(input, resource);
      missing[name] = `${what} is ${JSON.stringify(found.value)}, not a number`;
    } else values[name] = value;
  }
  return { values, missing };
}

function rawValue(
  input: Source,
  resource: CustomResource,
  lookup: ObjectLookup,
  observed: unknown,
): { value: unknown } | { why: string } {
  if (input.from === 'external') {
    if (observed === undefined) return { why: 'the external object is not observed yet' };
    const value = input.value(observed as never);
    return value === undefined || value === null
      ? { why: 'the external object does not say it yet' }
      : { value };
  }
  const where = whereOf(input, resource);
  if (!where) return { why: `the spec names no ${typeOf(input).kind}` };
  const object = lookup(where.type, where.namespace, where.name);
  const label = `${where.type.kind} ${where.namespace && input.from !== 'child' && where.namespace !== resource.metadata.namespace ? `${where.namespace}/` : ''}${where.name}`;
  if (!object) return { why: `${label} does not exist yet` };
  if (input.from === 'configMap' || input.from === 'secret') {
    const data = (object as { data?: Record<string, string> }).data ?? {};
    if (!Object.hasOwn(data, input.key)) {
      return input.default !== undefined
        ? { value: input.default }
        : { why: `${label} has no key ${input.key}` };
    }
    const raw = data[input.key];
    return { value: input.from === 'secret' ? Buffer.from(raw, 'base64').toString('utf8') : raw };
  }
  const value = valueAt(object, parsePath(input.path));
  return value === undefined || value === null ? { why: `${label} has no ${input.path} yet` } : { value };
}

/** A found value as the construct gets it: a string (objects as JSON), or a number. */
function asInput(value: unknown, as: 'string' | 'number'): InputValue | undefined {
  if (as === 'number') {
    const n =
      typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}
