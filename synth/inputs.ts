/**
 * Observed inputs offline (`reconstruct synth --inputs FILE`): the values a resource's inputs have, given
 * per resource in a YAML file, so that offline output equals what the controller applies with the same
 * values. Without a value, a child that holds an input's placeholder is left out with one line saying
 * which input it waits for and where the controller reads it; with `--placeholders` it is rendered with
 * the placeholder marked (`<input:host>`).
 *
 * The file maps each resource, named as problems name it (`KIND/NAME`, `KIND/NAMESPACE/NAME`), to its
 * inputs' values:
 *
 *     WebFront/web/shop:
 *       host: lb.example.net
 *       theme: dark
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import {
  pendingChildren,
  type CustomResource,
  type InputValue,
  type Kind,
  type Manifest,
  type PendingChild,
} from '../constructs/kit';
import { describeSource } from '../constructs/kit/inputs/declare';
import { markPending } from '../constructs/kit/inputs/tokens';
import type { Problem } from './problem';

/** Input values by resource (`KIND/NAMESPACE/NAME` or `KIND/NAME`), as an inputs file gives them. */
export interface GivenInputs {
  /** The file they came from, for problems. */
  readonly file: string;
  readonly byResource: ReadonlyMap<string, Readonly<Record<string, InputValue>>>;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads an inputs file; a file that is not one is a Problem naming what is wrong (and nothing is given). */
export function readInputsFile(file: string): GivenInputs | Problem {
  const problem = (resource: string, message: string): Problem => ({ file, resource, message });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return problem('inputs', `cannot read it: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return { file, byResource: new Map() };
  const byResource = new Map<string, Record<string, InputValue>>();
  for (const doc of docs) {
    if (doc.errors.length > 0) return problem('inputs', `not YAML: ${doc.errors[0].message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) {
      return problem('inputs', 'must map each resource (KIND/NAMESPACE/NAME) to its inputs (name: value)');
    }
    for (const [resource, inputs] of Object.entries(value)) {
      if (!isRecord(inputs)) return problem(resource, 'must map each input to its value (name: value)');
      const values: Record<string, InputValue> = {};
      for (const [name, v] of Object.entries(inputs)) {
        if (typeof v !== 'string' && typeof v !== 'number') {
          return problem(resource, `inputs.${name}: must be a string or a number, not ${JSON.stringify(v)}`);
        }
        values[name] = v;
      }
      byResource.set(resource, { ...byResource.get(resource), ...values });
    }
  }
  return { file, byResource };
}

/**
 * The values given for one resource, checked against its kind's inputs: an input it does not declare, or
 * a number input given something else, is a problem of the inputs file.
 */
export function givenFor(
  given: GivenInputs | undefined,
  kind: Kind,
  resource: CustomResource,
  key: string,
): { values: Record<string, InputValue>; problems: Problem[] } {
  const found = lookup(given, resource, key);
  if ('problem' in found) return { values: {}, problems: [found.problem] };
  const { values } = found;
  const problems: Problem[] = [];
  const declared = Object.keys(kind.inputs);
  for (const [name, value] of Object.entries(values)) {
    const input = kind.inputs[name];
    const at = { file: given!.file, resource: key, field: `inputs.${name}` };
    if (!input) {
      const has = declared.length > 0 ? `it has ${declared.join(', ')}` : 'it has none';
      problems.push({ ...at, message: `${resource.kind} declares no such input (${has})` });
    } else if (input.as === 'number' && typeof value !== 'number') {
      problems.push({ ...at, message: `must be a number, not ${JSON.stringify(value)}` });
    }
  }
  return { values, problems };
}

/**
 * A resource's entry: under its own key, or, for a resource with no namespace (a repository's file that
 * its deployment puts in one), the one entry of its kind and name in any namespace, as `reconstruct
 * inputs` writes them from the cluster. Two such entries are a problem: which namespace is not said.
 */
function lookup(
  given: GivenInputs | undefined,
  resource: CustomResource,
  key: string,
): { values: Readonly<Record<string, InputValue>> } | { problem: Problem } {
  const own = given?.byResource.get(key);
  if (own || !given || resource.metadata.namespace) return { values: own ?? {} };
  const { kind, metadata } = resource;
  const entries = [...given.byResource.keys()].filter((k) => {
    const parts = k.split('/');
    return parts.length === 3 && parts[0] === kind && parts[2] === metadata.name;
  });
  if (entries.length <= 1) return { values: entries.length === 1 ? given.byResource.get(entries[0])! : {} };
  return {
    problem: {
      file: given.file,
      resource: key,
      message: `has no namespace, and the file has ${entries.join(', ')}: give it one (-n NAMESPACE) or key its inputs ${key}`,
    },
  };
}

/** The children to write of those synthesized: waiting ones left out, or marked with `placeholders`. */
export function offlinePending(
  kind: Kind,
  resource: CustomResource,
  children: Manifest[],
  placeholders: boolean | undefined,
): { children: Manifest[]; pending: PendingChild[] } {
  const pending = pendingChildren(kind, resource, children);
  if (pending.length === 0) return { children, pending };
  const waiting = new Set(pending.map((p) => p.child));
  return {
    children: placeholders
      ? children.map((c) => (waiting.has(c) ? markPending(kind.inputs, c) : c))
      : children.filter((c) => !waiting.has(c)),
    pending,
  };
}

/** The line that tells of a child left out (or marked) for inputs it waits for. */
export function pendingMessage(
  kind: Kind,
  resource: CustomResource,
  { child, inputs }: PendingChild,
  placeholders: boolean | undefined,
): string {
  const what = inputs
    .map((name) => `${name} (${describeSource(kind.inputs[name] as never, resource)})`)
    .join(', ');
  const label = `${child.kind} ${child.metadata.name}`;
  return placeholders
    ? `rendered ${label} with placeholders: it waits for input ${what}`
    : `left out ${label}: it waits for input ${what}; --inputs FILE gives values, --placeholders renders it marked`;
}
