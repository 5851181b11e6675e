/**
 * Child policies: how the controller treats one child beyond "apply what is rendered, prune what is not".
 * A construct declares them per child with `childPolicy`; they are stored as annotations on the child, so
 * that the rendered YAML shows the intent to a GitOps reader (as Flux's and eno's annotations do) and the
 * controller reads them back from the same manifest it applies.
 *
 * - create-only: created when missing, never updated afterwards; values it `generate`s are made once, by
 *   the controller, when it creates the child;
 * - retain: never deleted by the controller, and no ownerReference, so the garbage collector spares it too;
 * - ignore fields: set at creation, then owned by someone else (an autoscaler's `spec.replicas`);
 * - wait for: created or updated only once the named siblings are ready, at what this reconcile wants;
 * - replace: deleted and created again when the API server refuses a change as immutable (a Job's template).
 */
import { randomInt } from 'node:crypto';
import { ApiObject, JsonPatch } from 'cdk8s';
import type { IConstruct } from 'constructs';
import { isWriteOnly, type ApiKind } from './api-kind';
import type { Manifest } from './resource';

const PREFIX = 'reconstruct.dev/';
/** `"true"`: created when missing, never updated. */
export const CREATE_ONLY_ANNOTATION = `${PREFIX}create-only`;
/** `"true"`: never deleted by the controller, no ownerReference. */
export const RETAIN_ANNOTATION = `${PREFIX}retain`;
/** JSON pointers (RFC 6901), comma-separated: fields set at creation, then left to their other owner. */
export const IGNORE_FIELDS_ANNOTATION = `${PREFIX}ignore-fields`;
/** `Kind/name` of siblings, comma-separated: this child is applied only once they are ready. */
export const WAIT_FOR_ANNOTATION = `${PREFIX}wait-for`;
/** `"true"`: deleted and created again when the API server refuses a change to it as immutable. */
export const REPLACE_ANNOTATION = `${PREFIX}replace`;
/** `<pointer>=alphanumeric(<length>)`, comma-separated: values the controller generates at creation. */
export const GENERATE_ANNOTATION = `${PREFIX}generate`;
/** What a user can do instead of a generated value, said when offline rendering leaves the child out. */
export const OFFLINE_HINT_ANNOTATION = `${PREFIX}offline-hint`;
/** In-cluster, on a retained child: the uid of the resource it belongs to (it has no ownerReference). */
export const OWNER_UID_ANNOTATION = `${PREFIX}owner-uid`;
/**
 * On a retained child its resource no longer renders: the uid of that resource, which takes it back
 * should it render it again. Any other resource must be handed it (ADOPT_ANNOTATION).
 */
export const RELEASED_FROM_ANNOTATION = `${PREFIX}released-from`;
/** Set by a user on an existing object: the next resource that renders it takes it over (see GUIDE). */
export const ADOPT_ANNOTATION = `${PREFIX}adopt`;

/** Flux's own annotations for the same intent, so Flux honours what it applies from our offline output. */
const FLUX_SSA = 'kustomize.toolkit.fluxcd.io/ssa';
const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
const FLUX_FORCE = 'kustomize.toolkit.fluxcd.io/force';

/** A value the controller generates when it creates a child: random characters of `[A-Za-z0-9]`. */
export interface GeneratedValue {
  /** How many characters, 1 to 1024. */
  readonly length: number;
}

/** What a construct declares about one child; see the module comment and docs/GUIDE.md. */
export interface ChildPolicy {
  /** Created when missing, never updated afterwards (a spec change does not reach it). */
  readonly createOnly?: boolean;
  /**
   * Values generated when the controller creates the child, by JSON pointer (`/stringData/password`).
   * Implies createOnly. Offline rendering leaves such a child out unless asked (`--include-generated`).
   */
  readonly generate?: Readonly<Record<string, GeneratedValue>>;
  /**
   * With `generate`: what a user can do instead, said when offline rendering leaves the child out (e.g.
   * `name a Secret of your own in spec.rootPasswordSecret`).
   */
  readonly offlineHint?: string;
  /** Never deleted: neither when the construct stops rendering it nor when the resource is deleted. */
  readonly retain?: boolean;
  /**
   * Fields, as JSON pointers through objects (`/spec/replicas`), that the controller sets when it creates
   * the child and never sets or resets afterwards: another actor owns them.
   */
  readonly ignoreFields?: readonly string[];
  /**
   * Siblings (constructs of the same resource) that must be ready before this child is created or updated:
   * ready by their kind's rules, and at what the same reconcile wants (a migration Job of the new version
   * complete, not the old one).
   */
  readonly waitFor?: readonly IConstruct[];
  /**
   * When the API server refuses a change to the child as immutable (a Job's template, a selector, a
   * Service's clusterIP), the controller deletes it and creates it again (Flux's `force`, Argo CD's
   * `Replace=true`). Without it the change is not made, and the resource's Ready condition names the child
   * and the field.
   */
  readonly replace?: boolean;
}

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

const NO_POLICY: ParsedChildPolicy = {
  createOnly: false,
  retain: false,
  replace: false,
  ignoreFields: [],
  waitFor: [],
  generate: [],
};

/** The segments of a JSON pointer (RFC 6901): `/a/b~1c` is `['a', 'b/c']`. */
export function parsePointer(pointer: string): string[] {
  if (!pointer.startsWith('/') || pointer === '/') {
    throw new Error(
      `"${pointer}" is not a JSON pointer to a field: it must start with "/", as in /spec/replicas`,
    );
  }
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => {
      if (segment === '' || /~[^01]|~$/.test(segment))
        throw new Error(`"${pointer}" is not a valid JSON pointer`);
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      if (key === '__proto__') throw new Error(`"${pointer}" names __proto__, which no Kubernetes field is`);
      return key;
    });
}

const pointerOf = (path: readonly string[]) =>
  `/${path.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

const GENERATOR = /^alphanumeric\((\d+)\)$/;
const MAX_GENERATED = 1024;

function checkLength(length: number, pointer: string): void {
  if (!Number.isInteger(length) || length < 1 || length > MAX_GENERATED) {
    throw new Error(
      `generate ${pointer}: length must be an integer from 1 to ${MAX_GENERATED}, not ${length}`,
    );
  }
}

/**
 * Declares how the controller treats `child` (an ApiObject, or a construct whose default child is one, as
 * cdk8s-plus constructs are). Calls add up: a later call sets what it names (a `true`, a non-empty list)
 * and leaves the rest as an earlier call set it. Throws, before changing anything, for a policy that
 * cannot work (a malformed pointer, a child waiting for itself).
 */
export function childPolicy(child: IConstruct, policy: ChildPolicy): void {
  const obj = ApiObject.of(child);
  const annotations: Record<string, string> = {};
  try {
    const generate = Object.entries(policy.generate ?? {});
    if (policy.createOnly === false && generate.length > 0) {
      throw new Error(
        'generate needs createOnly: a value generated again on every apply would change each time',
      );
    }
    if (policy.createOnly || generate.length > 0) {
      annotations[CREATE_ONLY_ANNOTATION] = 'true';
      annotations[FLUX_SSA] = 'IfNotPresent';
    }
    if (generate.length > 0) {
      const items = generate.map(([pointer, { length }]) => {
        parsePointer(pointer);
        checkLength(length, pointer);
        if (pointer.includes(',') || pointer.includes('='))
          throw new Error(`generate ${pointer}: "," and "=" cannot be in the pointer`);
        return `${pointer}=alphanumeric(${length})`;
      });
      annotations[GENERATE_ANNOTATION] = items.join(',');
      if (policy.offlineHint) annotations[OFFLINE_HINT_ANNOTATION] = policy.offlineHint;
    } else if (policy.offlineHint) {
      throw new Error('offlineHint is for a child with generated values (generate)');
    }
    if (policy.retain) {
      annotations[RETAIN_ANNOTATION] = 'true';
      annotations[FLUX_PRUNE] = 'disabled';
    }
    if (policy.replace) {
      annotations[REPLACE_ANNOTATION] = 'true';
      annotations[FLUX_FORCE] = 'Enabled';
    }
    if (policy.ignoreFields && policy.ignoreFields.length > 0) {
      for (const pointer of policy.ignoreFields) {
        parsePointer(pointer);
        if (pointer.includes(',')) throw new Error(`ignoreFields ${pointer}: "," cannot be in the pointer`);
      }
      annotations[IGNORE_FIELDS_ANNOTATION] = policy.ignoreFields.join(',');
    }
    if (policy.waitFor && policy.waitFor.length > 0) {
      const names = policy.waitFor.map((sibling) => {
        const other = ApiObject.of(sibling);
        if (other === obj) throw new Error('a child cannot wait for itself');
        return `${other.kind}/${other.name}`;
      });
      annotations[WAIT_FOR_ANNOTATION] = names.join(',');
    }
  } catch (err) {
    throw new Error(`childPolicy(${obj.kind} ${obj.name}): ${(err as Error).message}`);
  }
  for (const [key, value] of Object.entries(annotations)) obj.metadata.addAnnotation(key, value);
  if (policy.ignoreFields?.includes('/spec/replicas')) keepReplicasForCreation(child);
}

/**
 * A cdk8s-plus workload whose `spec.replicas` another actor owns (an autoscaler) keeps the replicas its
 * construct gave it in the rendered object, for the controller's creation, while cdk8s-plus sees none:
 * it refuses an autoscaler's target with fixed replicas, and leaves them out of a target's output.
 */
function keepReplicasForCreation(child: IConstruct): void {
  const workload = child as { replicas?: unknown };
  if (!('replicas' in child) || typeof workload.replicas !== 'number') return;
  const replicas = workload.replicas;
  Object.defineProperty(child, 'replicas', {
    value: undefined,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  ApiObject.of(child).addJsonPatch(JsonPatch.add('/spec/replicas', replicas));
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

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random characters of `[A-Za-z0-9]`, from the crypto RNG, uniform (no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The object holding the field at `path` (its last segment), reached through objects only: throws for a
 * path through a list or a scalar. With `create`, missing objects on the way are added; without, the
 * result is undefined when one is missing.
 */
function walkObjects(root: object, path: readonly string[], create: true): JsonObject;
function walkObjects(root: object, path: readonly string[], create?: boolean): JsonObject | undefined;
function walkObjects(root: object, path: readonly string[], create = false): JsonObject | undefined {
  let node = root as JsonObject;
  for (const segment of path.slice(0, -1)) {
    const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (next === undefined && create) node[segment] = {};
    else if (next === undefined) return undefined;
    else if (!isObject(next)) {
      throw new Error(
        `${pointerOf(path)} goes through ${Array.isArray(next) ? 'a list' : 'a value'} at "${segment}": only object fields can be named`,
      );
    }
    node = node[segment] as JsonObject;
  }
  return node;
}

/** A copy of `child` with its generated values filled in (fresh ones, each call). */
export function withGeneratedValues<T extends Manifest>(child: T): T {
  const { generate } = policyOf(child);
  if (generate.length === 0) return child;
  const copy = structuredClone(child);
  for (const { path, length } of generate) {
    walkObjects(copy, path, true)[path[path.length - 1]] = randomAlphanumeric(length);
  }
  return copy;
}

/** The JSON pointers of the values `child` has generated, for messages. */
export function generatedFields(child: Pick<Manifest, 'kind' | 'metadata'>): string[] {
  return policyOf(child).generate.map((g) => pointerOf(g.path));
}

/**
 * `child` without the fields at `paths` (pointers through objects). Throws when a path crosses a list: a
 * list item has no field owner of its own to hand the field to.
 */
export function withoutFields<T extends Manifest>(child: T, paths: readonly (readonly string[])[]): T {
  if (paths.length === 0) return child;
  const copy = structuredClone(child);
  for (const path of paths) {
    const holder = walkObjects(copy, path);
    if (holder) delete holder[path[path.length - 1]];
  }
  return copy;
}

/**
 * Just the fields at `paths` of `child` (with its apiVersion, kind, name and namespace): what another field
 * manager applies to keep them once the controller stops applying them (the hand-over the Kubernetes
 * server-side apply docs describe for an autoscaler's `spec.replicas`). Undefined when none is set.
 */
export function onlyFields(child: Manifest, paths: readonly (readonly string[])[]): Manifest | undefined {
  const out: JsonObject = {
    apiVersion: child.apiVersion,
    kind: child.kind,
    metadata: {
      name: child.metadata.name,
      ...(child.metadata.namespace ? { namespace: child.metadata.namespace } : {}),
    },
  };
  let any = false;
  for (const path of paths) {
    const field = path[path.length - 1];
    const holder = walkObjects(child, path);
    if (holder?.[field] === undefined) continue;
    walkObjects(out, path, true)[field] = structuredClone(holder[field]);
    any = true;
  }
  return any ? (out as Manifest) : undefined;
}
