/**
 * Observed inputs: what a kind's construct reads besides the spec, declared on the kind (`inputs`) so that
 * the controller knows what to read and watch, the install what to grant, and offline rendering what to
 * ask for. Each input is one value, a string or a number: a field of one of the resource's own children
 * (a Service's address in its status), a field of an object the spec names, a key of a ConfigMap or a
 * Secret the spec names, or what the kind's external work observed. The construct gets each as
 * `props.inputs.<name>`: the value once known, a placeholder until then (tokens.ts), and a child that holds
 * a placeholder waits (it is not applied; Ready names the input and what it waits for).
 */
import type { ApiKind } from '../api-kind';
import { isDns1123Label } from '../names';
import type { CustomResource } from '../resource';

/** A value an input gives the construct. */
export type InputValue = string | number;

/** A name read from the resource (`(r) => r.spec.settingsRef`), or fixed; undefined or '' when the spec names none. */
export type NameFrom<Spec> = string | ((resource: CustomResource<Spec>) => string | undefined);

/** Where an input's value comes from. */
export type InputSource<Spec = unknown, Observed = unknown> =
  | {
      /** A field of one of the resource's own children (rendered by its construct). */
      readonly from: 'child';
      readonly type: ApiKind;
      readonly name: NameFrom<Spec>;
      /** @default - the resource's namespace (a cluster-scoped kind's namespaced child must say) */
      readonly namespace?: NameFrom<Spec>;
      /** The field, as kubectl's JSONPath without braces: `status.loadBalancer.ingress[0].hostname`. */
      readonly path: string;
    }
  | {
      /** A field of another object, named by the resource: another kind's status, a Service's address. */
      readonly from: 'object';
      readonly type: ApiKind;
      readonly name: NameFrom<Spec>;
      readonly namespace?: string;
      readonly path: string;
    }
  | {
      /** One key of a ConfigMap (`data`), named by the resource. */
      readonly from: 'configMap';
      readonly name: NameFrom<Spec>;
      readonly namespace?: string;
      readonly key: string;
      readonly default?: string;
    }
  | {
      /** One key of a Secret (`data`, decoded), named by the resource. */
      readonly from: 'secret';
      readonly name: NameFrom<Spec>;
      readonly namespace?: string;
      readonly key: string;
      readonly default?: string;
    }
  | {
      /** What the kind's external work observed (KindOptions.external), once it has. */
      readonly from: 'external';
      readonly value: (observed: Observed) => InputValue | undefined;
    };

/** A declared input: where it comes from, and whether the construct gets a string or a number. */
export type Input<T extends InputValue = InputValue, Spec = unknown, Observed = unknown> = InputSource<
  Spec,
  Observed
> & {
  readonly as: T extends number ? 'number' : 'string';
};

/** A kind's inputs by name, as `KindOptions.inputs` takes them. */
export type Inputs = Readonly<Record<string, Input<string, never, never> | Input<number, never, never>>>;

/** What the construct gets for declared inputs: `props.inputs`, each a string or a number. */
export type InputValues<I> = { readonly [K in keyof I]: I[K] extends { as: 'number' } ? number : string };

/** `{ as: 'number' }`: the input gives the construct a number (`status.readyReplicas`). */
export interface AsNumber {
  readonly as: 'number';
}

/**
 * A field of one of the resource's own children: `fromChild(SERVICE, (r) => r.metadata.name,
 * 'status.loadBalancer.ingress[0].hostname')`. A child that holds it waits until the field has a value.
 */
export function fromChild<Spec = unknown>(
  type: ApiKind,
  name: NameFrom<Spec>,
  path: string,
  options?: ChildOptions<Spec>,
): Input<string, Spec>;
export function fromChild<Spec = unknown>(
  type: ApiKind,
  name: NameFrom<Spec>,
  path: string,
  options: ChildOptions<Spec> & AsNumber,
): Input<number, Spec>;
export function fromChild<Spec>(
  type: ApiKind,
  name: NameFrom<Spec>,
  path: string,
  options: ChildOptions<Spec> & Partial<AsNumber> = {},
): Input<InputValue, Spec> {
  const { as = 'string', namespace } = options;
  return { from: 'child', type, name, path, as, ...(namespace !== undefined ? { namespace } : {}) };
}

/** Where the child is, for a cluster-scoped kind's namespaced child. */
export interface ChildOptions<Spec> {
  /** @default - the resource's namespace */
  readonly namespace?: NameFrom<Spec>;
}

/** Where an object the resource names is, and which field of it. */
export interface ObjectField<Spec> {
  readonly name: NameFrom<Spec>;
  /**
   * Another namespace, fixed by the kind: a resource reads only what its namespace holds unless the kind
   * says where else (a user who may not read a Secret in another namespace cannot have the controller
   * read it for them by naming it in a spec).
   * @default - the resource's namespace (a cluster-scoped kind reading a namespaced object must say)
   */
  readonly namespace?: string;
  readonly path: string;
}

/**
 * A field of an object the resource names (same namespace unless `namespace` says): another kind's status
 * (`fromObject(DATABASE, { name: (r) => r.spec.database, path: 'status.endpoint' })`).
 */
export function fromObject<Spec = unknown>(type: ApiKind, field: ObjectField<Spec>): Input<string, Spec>;
export function fromObject<Spec = unknown>(
  type: ApiKind,
  field: ObjectField<Spec>,
  options: AsNumber,
): Input<number, Spec>;
export function fromObject<Spec>(
  type: ApiKind,
  field: ObjectField<Spec>,
  options?: AsNumber,
): Input<InputValue, Spec> {
  return { from: 'object', type, ...field, as: options?.as ?? 'string' };
}

/** Which key of a ConfigMap or Secret the resource names. */
export interface KeyOf<Spec> {
  readonly name: NameFrom<Spec>;
  /** Another namespace, fixed by the kind (see ObjectField.namespace). @default - the resource's namespace */
  readonly namespace?: string;
  readonly key: string;
  /**
   * The value when the object exists without the key (a server Secret's optional `port`). The object
   * itself must exist. @default - none: the input waits for the key
   */
  readonly default?: string;
}

/** One key of a ConfigMap the resource names: `fromConfigMap({ name: (r) => r.spec.settings, key: 'theme' })`. */
export function fromConfigMap<Spec = unknown>(key: KeyOf<Spec>): Input<string, Spec> {
  return { from: 'configMap', ...key, as: 'string' };
}

/**
 * One key of a Secret the resource names, decoded. Read by name (a GET, again every 30 s; one of a name
 * the kind fixes is watched by that name), never listed; only this key's value reaches the construct.
 * The children that hold it carry it: put it in a Secret.
 */
export function fromSecret<Spec = unknown>(key: KeyOf<Spec>): Input<string, Spec> {
  return { from: 'secret', ...key, as: 'string' };
}

/** What the kind's external work observed: `fromExternal((o: Zone) => o.id)`. */
export function fromExternal<Observed>(
  value: (observed: Observed) => string | undefined,
): Input<string, unknown, Observed>;
export function fromExternal<Observed>(
  value: (observed: Observed) => number | undefined,
  options: AsNumber,
): Input<number, unknown, Observed>;
export function fromExternal<Observed>(
  value: (observed: Observed) => InputValue | undefined,
  options?: AsNumber,
): Input<InputValue, unknown, Observed> {
  return { from: 'external', value, as: options?.as ?? 'string' };
}

/** The input's object name for this resource; undefined when the spec names none. */
export function nameOf(name: NameFrom<never>, resource: CustomResource): string | undefined {
  const value =
    typeof name === 'string' ? name : (name as (r: CustomResource) => string | undefined)(resource);
  return value || undefined;
}

/** What a Ready message and a missing-input line call the input's source. */
export function describeSource(input: InputSource<never, never>, resource: CustomResource): string {
  if (input.from === 'external') return 'the external object';
  const name = nameOf(input.name, resource) ?? '(none named)';
  if (input.from === 'configMap' || input.from === 'secret') {
    return `${input.from === 'secret' ? 'Secret' : 'ConfigMap'} ${name} key ${input.key}`;
  }
  return `${input.type.kind} ${name} ${input.path}`;
}

/** The problems of a kind's input declarations, for KindDefinitionError. */
export function inputProblems(inputs: unknown, hasExternal: boolean): string[] {
  if (inputs === undefined) return [];
  if (typeof inputs !== 'object' || inputs === null)
    return ['inputs must be an object of fromChild(...), fromConfigMap(...), ...'];
  const problems: string[] = [];
  for (const [name, input] of Object.entries(inputs as Record<string, Partial<Input>>)) {
    const at = `inputs.${name}`;
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) problems.push(`${at}: an input's name must be lowerCamelCase`);
    const from = input?.from;
    if (
      from !== 'child' &&
      from !== 'object' &&
      from !== 'configMap' &&
      from !== 'secret' &&
      from !== 'external'
    ) {
      problems.push(`${at} must be made by fromChild, fromObject, fromConfigMap, fromSecret or fromExternal`);
      continue;
    }
    if (from === 'external' && !hasExternal)
      problems.push(`${at} reads the external object, but the kind has no external work`);
    if ((from === 'child' || from === 'object') && 'path' in input) {
      try {
        parsePath(String(input.path));
      } catch (err) {
        problems.push(`${at}: ${(err as Error).message}`);
      }
    }
    const namespace = (input as { namespace?: unknown }).namespace;
    if (
      from !== 'child' &&
      namespace !== undefined &&
      !(typeof namespace === 'string' && isDns1123Label(namespace))
    ) {
      problems.push(
        `${at}: namespace must be a namespace's name, fixed by the kind (not read from the spec)`,
      );
    }
    if ((from === 'configMap' || from === 'secret') && !(typeof input.key === 'string' && input.key)) {
      problems.push(`${at}: which key of the ${from === 'secret' ? 'Secret' : 'ConfigMap'} (key)`);
    }
  }
  return problems;
}

/**
 * The segments of a field path as kubectl's JSONPath writes one without braces: `status.loadBalancer.
 * ingress[0].hostname`, `metadata.annotations["example.com/owner"]`. Numbers are list indexes.
 */
export function parsePath(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  const token = /\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[["']([^"']+)["']\]/y;
  let at = 0;
  while (at < path.length) {
    token.lastIndex = at;
    const match = token.exec(path);
    if (!match || (at === 0 && match[0].startsWith('.'))) {
      throw new Error(`"${path}" is not a field path (as in status.loadBalancer.ingress[0].hostname)`);
    }
    segments.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : match[3]));
    at = token.lastIndex;
  }
  if (segments.length === 0) throw new Error('a field path is required (as in status.readyReplicas)');
  return segments;
}

/** The value at `path` in `object`; undefined where a segment is missing. */
export function valueAt(object: unknown, path: readonly (string | number)[]): unknown {
  let node = object;
  for (const segment of path) {
    if (typeof segment === 'number') {
      if (!Array.isArray(node)) return undefined;
      node = node[segment] as unknown;
    } else {
      if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, segment))
        return undefined;
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return node;
}
