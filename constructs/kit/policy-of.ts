/**
 * A child's policy as the controller and the renderer read it: from the annotations of the manifest it
 * applies, not from the construct, and checked for one resource's children together.
 */
import { isWriteOnly, type ApiKind } from './api-kind';
import {
  CREATE_ONLY_ANNOTATION,
  GENERATE_ANNOTATION,
  IGNORE_FIELDS_ANNOTATION,
  REPLACE_ANNOTATION,
  RETAIN_ANNOTATION,
  WAIT_FOR_ANNOTATION,
} from './child-annotations';
import { parsePointer, walkObjects } from './json-pointer';
import type { Manifest } from './resource';

/** A child's policy as the controller reads it from the manifest. */
export interface ParsedChildPolicy {
  readonly createOnly: boolean;
  readonly retain: boolean;
  /** Each a pointer's segments. */
  readonly ignoreFields: readonly (readonly string[])[];
  readonly waitFor: readonly { readonly kind: string; readonly name: string }[];
  readonly generate: readonly { readonly path: readonly string[]; readonly length: number }[];
  readonly replace: boolean;
}

/** The policy of a child without our annotations: applied and pruned like any other. */
export const NO_POLICY: ParsedChildPolicy = {
  createOnly: false,
  retain: false,
  replace: false,
  ignoreFields: [],
  waitFor: [],
  generate: [],
};

/** A generated value as the annotation spells it: `alphanumeric(<length>)`. */
const GENERATOR = /^alphanumeric\((\d+)\)$/;
const MAX_GENERATED = 1024;

/** Throws unless `length` is a generated value's length, 1 to 1024. */
export function checkLength(length: number, pointer: string): void {
  if (!Number.isInteger(length) || length < 1 || length > MAX_GENERATED) {
    throw new Error(
      `generate ${pointer}: length must be an integer from 1 to ${MAX_GENERATED}, not ${length}`,
    );
  }
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * The policy of a synthesized child, from its annotations. Throws naming the child and the annotation
 * when one cannot be read (written by hand, not by `childPolicy`).
 */
export function policyOf(child: Pick<Manifest, 'kind' | 'metadata'>): ParsedChildPolicy {
  const annotations = child.metadata.annotations;
  if (!annotations) return NO_POLICY;
  const generateValue = annotations[GENERATE_ANNOTATION];
  const ignore = annotations[IGNORE_FIELDS_ANNOTATION];
  const wait = annotations[WAIT_FOR_ANNOTATION];
  const createOnly = annotations[CREATE_ONLY_ANNOTATION] === 'true';
  const retain = annotations[RETAIN_ANNOTATION] === 'true';
  const replace = annotations[REPLACE_ANNOTATION] === 'true';
  if (
    !createOnly &&
    !retain &&
    !replace &&
    generateValue === undefined &&
    ignore === undefined &&
    wait === undefined
  ) {
    return NO_POLICY;
  }
  let annotation = '';
  try {
    annotation = GENERATE_ANNOTATION;
    const generate = list(generateValue).map((item) => {
      const eq = item.lastIndexOf('=');
      const match = eq > 0 ? GENERATOR.exec(item.slice(eq + 1)) : null;
      if (!match) throw new Error(`"${item}" is not <pointer>=alphanumeric(<length>)`);
      const pointer = item.slice(0, eq);
      const length = Number(match[1]);
      checkLength(length, pointer);
      return { path: parsePointer(pointer), length };
    });
    if (generate.length > 0 && !createOnly) throw new Error(`needs ${CREATE_ONLY_ANNOTATION}: "true"`);
    annotation = IGNORE_FIELDS_ANNOTATION;
    const ignoreFields = list(ignore).map(parsePointer);
    annotation = WAIT_FOR_ANNOTATION;
    const waitFor = list(wait).map((item) => {
      const slash = item.indexOf('/');
      if (slash <= 0 || slash === item.length - 1) throw new Error(`"${item}" is not Kind/name`);
      return { kind: item.slice(0, slash), name: item.slice(slash + 1) };
    });
    return { createOnly, retain, ignoreFields, waitFor, generate, replace };
  } catch (err) {
    throw new Error(
      `${child.kind} ${child.metadata.name}: annotation ${annotation}: ${(err as Error).message}`,
    );
  }
}

/**
 * Checks the policies of one resource's children together: every child waited for is a sibling, no
 * child waits for itself through others, and every field path reaches its field through objects.
 * Throws naming the child (a construct's mistake, not the user's).
 */
export function checkPolicies(children: readonly Manifest[], kinds: readonly ApiKind[] = []): void {
  const waits = new Map<string, string[]>();
  const writeOnlyOf = (c: Pick<Manifest, 'apiVersion' | 'kind'>) =>
    kinds.some((k) => isWriteOnly(k) && k.apiVersion === c.apiVersion && k.kind === c.kind);
  for (const child of children) {
    const { waitFor, ignoreFields, generate, createOnly, retain } = policyOf(child);
    if (writeOnlyOf(child) && (!createOnly || retain || ignoreFields.length > 0)) {
      throw new Error(
        `${child.kind} ${child.metadata.name}: the kind's ${child.kind}s are write-only (the controller never ` +
          'reads them), so it must be create-only, and neither retained nor with ignored fields',
      );
    }
    for (const target of waitFor) {
      const sibling = children.find((c) => c.kind === target.kind && c.metadata.name === target.name);
      if (sibling && writeOnlyOf(sibling))
        throw new Error(
          `${child.kind} ${child.metadata.name} waits for ${target.kind} ${target.name}, whose readiness the ` +
            'controller cannot see: the kind lists it as write-only',
        );
    }
    // A path must reach its field through objects, in the object as rendered.
    try {
      for (const path of [...ignoreFields, ...generate.map((g) => g.path)]) walkObjects(child, path);
    } catch (err) {
      throw new Error(`${child.kind} ${child.metadata.name}: ${(err as Error).message}`);
    }
    if (waitFor.length > 0)
      waits.set(
        `${child.kind}/${child.metadata.name}`,
        waitFor.map((w) => `${w.kind}/${w.name}`),
      );
  }
  if (waits.size === 0) return;
  const names = new Set(children.map((c) => `${c.kind}/${c.metadata.name}`));
  for (const [child, targets] of waits) {
    for (const target of targets) {
      if (!names.has(target))
        throw new Error(`${child} waits for ${target}, which is not among the resource's children`);
    }
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string, path: string[]): void => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') {
      throw new Error(
        `children wait for each other in a cycle: ${[...path.slice(path.indexOf(node)), node].join(' -> ')}`,
      );
    }
    state.set(node, 'visiting');
    for (const next of waits.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of waits.keys()) visit(node, []);
}
