/**
 * Offline admission of a custom resource: what kube-apiserver (v1.36) does to a create request for a CRD
 * kind, or to an update when the stored object is given, in its order (decode with pruning and defaulting,
 * then ObjectMeta, OpenAPI schema, list types and CEL rules, transition rules included), with its error
 * messages. docs/VALIDATION.md lists what differs.
 */
import {
  applyDefaults,
  isObject,
  pruneNullsWithoutDefaults,
  toJson,
  valueSchema,
  type Json,
  type JsonObject,
} from '../constructs/kit/defaults';
import type { CustomResourceDefinition, JSONSchemaProps, ValidationRule } from '../constructs/kit/schema';
import { evaluateMessageExpression, evaluateRule, toCel, usesOldSelf, type CelIn } from './cel';

/** One problem, as `kubectl apply` would print it: `<field>: <message>`. */
export interface FieldError {
  /** Kubernetes field path, e.g. `spec.backends[0].weight`; '' for the object itself (kubectl prints `<nil>`). */
  field: string;
  /** The API server's words, e.g. `Invalid value: 0: spec.size in body should be greater than or equal to 1`. */
  message: string;
}

/** Options of {@link validateResource}. */
export interface ValidateOptions {
  /**
   * The object as the API server stores it before an update (a whole custom resource): given, the
   * validation is the update's. Transition rules (those using `oldSelf`) run against the old value that
   * correlates with each node, the status is the old one, and errors in what the update leaves unchanged
   * are ratcheted (dropped; the API server only warns). It gets the same pruning and defaulting as the
   * new object first; its own errors are not reported. Anything but an object counts as not given.
   */
  old?: unknown;
}

/** The outcome of {@link validateResource}. */
export interface Validated {
  /**
   * A copy of the resource as the API server would store it: pruned, defaulted, status dropped (on
   * update: the stored object's status instead).
   */
  object: Record<string, unknown>;
  /** Every problem found, in a stable order; empty when a cluster would admit the resource. */
  errors: FieldError[];
}

// The field.ErrorType values the API server uses here, with the words it prints for them.
const WORDS = {
  Required: 'Required value',
  Forbidden: 'Forbidden',
  TooLong: 'Too long',
  TooMany: 'Too many',
  Invalid: 'Invalid value',
  TypeInvalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  Duplicate: 'Duplicate value',
} as const;
type ErrorType = keyof typeof WORDS;

// An error of one of these types makes the API server skip every CEL rule (hasBlockingErr).
const BLOCKING = new Set<ErrorType>(['NotSupported', 'Required', 'TooLong', 'TooMany', 'TypeInvalid']);

/** field.OmitValueType: the error body names no value. */
const OMIT = Symbol('omit');
type BadValue = Json | typeof OMIT;

interface Issue extends FieldError {
  type: ErrorType;
}

/** Go's json.Marshal: sorted keys, and <, > and & escaped. */
function goJson(value: Json): string {
  const sorted = (v: Json): Json =>
    Array.isArray(v)
      ? v.map(sorted)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return JSON.stringify(sorted(value)).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

/** How field.Error prints a bad value: %v for numbers and booleans, %q for strings, JSON otherwise. */
function goValue(value: Json): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return goJson(value);
}

/** field.Error.ErrorBody(): Required, Forbidden and TooLong never print the value. */
function issue(type: ErrorType, field: string, value: BadValue, detail = ''): Issue {
  let message: string = WORDS[type];
  if (type !== 'Required' && type !== 'Forbidden' && type !== 'TooLong' && value !== OMIT) {
    message += `: ${goValue(value)}`;
  }
  if (detail) message += `: ${detail}`;
  return { type, field, message };
}

// field.Path rendering, with '' standing for the nil path.
const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const index = (path: string, i: number): string => `${path}[${i}]`;
const key = (path: string, k: string): string => `${path}[${k}]`;

/**
 * Checks `resource` against the CRD as the API server would on `kubectl apply`: a create, or with
 * `options.old` an update of that stored object. Returns the object it would store. Never throws and
 * never mutates `resource` or `options.old`.
 */
export function validateResource(
  crd: CustomResourceDefinition,
  resource: unknown,
  options: ValidateOptions = {},
): Validated {
  const copy = toJson(resource);
  if (!isObject(copy)) {
    return { object: {}, errors: [{ field: '', message: 'Invalid value: must be a Kubernetes object' }] };
  }
  const object = copy;
  const { group, names, scope } = crd.spec;

  // customResourceValidator.ValidateTypeMeta: nothing else is checked when these are wrong.
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const version = crd.spec.versions.find((v) => v.served && `${group}/${v.name}` === apiVersion);
  const typeMeta: Issue[] = [];
  if (kind !== names.kind) typeMeta.push(issue('Invalid', 'kind', kind, `must be ${names.kind}`));
  if (!version) {
    const expected = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
    typeMeta.push(issue('Invalid', 'apiVersion', apiVersion, `must be ${group}/${expected?.name ?? ''}`));
  }
  if (!version || typeMeta.length > 0) return { object, errors: typeMeta.map(strip) };
  const schema = version.schema.openAPIV3Schema;

  // Decoding: strict field validation reports what pruning drops (kubectl's default --validate=strict
  // fails the request on them; we report them and go on, so one run shows everything).
  const issues: Issue[] = unknownMetadataFields(object.metadata).map((f) => unknownField(f));
  const unknown: string[] = [];
  decode(object, schema, unknown);
  issues.push(...unknown.sort().map((f) => unknownField(f)));

  // The stored object, as the API server reads it back: pruned and defaulted by the same schema.
  const storedCopy = options.old === undefined ? undefined : toJson(options.old);
  const old = isObject(storedCopy) ? storedCopy : undefined;
  if (old) decode(old, schema, []);

  // BeforeCreate/BeforeUpdate: a cluster-scoped object loses its namespace silently. With the status
  // subresource on, PrepareForCreate drops status and PrepareForUpdate keeps the stored one.
  if (scope === 'Cluster') {
    for (const o of [object, old]) if (isObject(o?.metadata)) delete o.metadata.namespace;
  }
  if (version.subresources?.status) {
    if (old && 'status' in old) object.status = structuredClone(old.status);
    else delete object.status;
  }

  // CorrelatedObject: on update, what each node of the new object was before, for ratcheting.
  const correlation = old && new Correlation(object, old, schema);
  issues.push(...validateObjectMeta(object.metadata, scope === 'Namespaced'));
  validateNode(object, schema, '', issues, correlation);
  // On update, list types are only checked when the stored object passes them.
  const oldListTypes: Issue[] = [];
  if (old) validateListTypes(old, schema, '', oldListTypes);
  if (oldListTypes.length === 0) validateListTypes(object, schema, '', issues);
  if (hasRules(schema)) {
    if (issues.some((i) => BLOCKING.has(i.type))) {
      issues.push(
        issue(
          'Invalid',
          '',
          null,
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        ),
      );
    } else {
      validateRules(object, schema, '', true, issues, { old, current: correlation });
    }
  }
  return { object, errors: issues.map(strip) };
}

/** Decoding: pruning (recording what it drops), null removal and structural defaults. */
function decode(object: JsonObject, schema: JSONSchemaProps, unknown: string[]): void {
  prune(object, schema, [], unknown, true);
  pruneNullsWithoutDefaults(object, schema);
  applyDefaults(object, schema);
}

function strip({ field, message }: Issue): FieldError {
  return { field, message };
}

function unknownField(path: string): Issue {
  return { type: 'Invalid', field: path, message: `unknown field "${path}"` };
}

// ---------------------------------------------------------------------------------------------------
// Decoding: pruning, null removal and defaulting (apiextensions-apiserver pkg/apiserver/schema/...).

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

function unknownMetadataFields(metadata: Json | undefined): string[] {
  if (!isObject(metadata)) return [];
  return Object.keys(metadata)
    .filter((k) => !OBJECT_META_FIELDS.has(k))
    .map((k) => `metadata.${k}`);
}

// Unknown field paths join keys (map keys too) with '.' and put indexes in brackets.
function unknownPath(parent: string[], k: string): string[] {
  return parent.length > 0 ? [...parent, '.', k] : [k];
}

/** pruning.PruneWithOptions: drops fields the schema does not know, recording their paths. */
function prune(
  x: Json,
  s: JSONSchemaProps | undefined,
  path: string[],
  unknown: string[],
  root = false,
): void {
  if (s?.['x-kubernetes-preserve-unknown-fields']) return skipPrune(x, s, path, unknown, root);
  if (Array.isArray(x)) {
    x.forEach((item, i) => prune(item, s?.items, [...path, `[${i}]`], unknown));
  } else if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (root && META_FIELDS.has(k)) continue;
      const prop = s?.properties?.[k];
      if (prop) {
        prune(x[k], prop, unknownPath(path, k), unknown);
      } else if (s?.additionalProperties !== undefined) {
        prune(x[k], valueSchema(s), unknownPath(path, k), unknown);
      } else {
        unknown.push(unknownPath(path, k).join(''));
        delete x[k];
      }
    }
  }
}

function skipPrune(x: Json, s: JSONSchemaProps, path: string[], unknown: string[], root: boolean): void {
  if (Array.isArray(x)) {
    x.forEach((item, i) => s.items && skipPrune(item, s.items, [...path, `[${i}]`], unknown, false));
  } else if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (root && META_FIELDS.has(k)) continue;
      const prop = s.properties?.[k];
      if (prop) prune(x[k], prop, unknownPath(path, k), unknown);
      else if (s.additionalProperties !== undefined)
        prune(x[k], valueSchema(s), unknownPath(path, k), unknown);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// ObjectMeta (apimachinery pkg/api/validation ValidateObjectMetaAccessor, and the checks it calls).

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const LABEL_KEY = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${LABEL_KEY})?`;
const whole = (re: string): RegExp => new RegExp(`^${re}$`);
const DNS1123_LABEL_RE = whole(DNS1123_LABEL);
const DNS1123_SUBDOMAIN_RE = whole(DNS1123_SUBDOMAIN);
const LABEL_KEY_RE = whole(LABEL_KEY);
const LABEL_VALUE_RE = whole(LABEL_VALUE);

// Go's RegexError ends each example with ", " and joins them with " or ": hence its double spaces.
function regexError(msg: string, re: string, ...examples: string[]): string {
  const e = examples.map((x) => `'${x}', `).join(' or ');
  return `${msg} (e.g. ${e}regex used for validation is '${re}')`;
}
const maxLenError = (n: number): string => `must be no more than ${n} characters`;
// Go measures these in bytes.
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errs;
}

function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      DNS1123_SUBDOMAIN_RE.test(value)
        ? 'must not contain dots'
        : regexError(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            DNS1123_LABEL,
            'my-name',
            '123-abc',
          ),
    );
  }
  return errs;
}

const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = value;
  } else if (parts.length === 2) {
    const [prefix = '', rest = ''] = parts;
    name = rest;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!LABEL_KEY_RE.test(name)) {
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

function jsonType(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The fields of ObjectMeta that must be strings, and those that must be maps of strings. */
function metaString(meta: JsonObject, name: string, out: Issue[]): string {
  const value = meta[name];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  // The API server fails to decode such a body at all; report it where it is.
  out.push(issue('TypeInvalid', `metadata.${name}`, jsonType(value), 'must be of type string'));
  return '';
}

function metaStringMap(meta: JsonObject, name: string, out: Issue[]): [string, string][] {
  const value = meta[name];
  if (value === undefined || value === null) return [];
  if (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string' && v !== null)) {
    out.push(issue('TypeInvalid', `metadata.${name}`, jsonType(value), 'must be a map of strings'));
    return [];
  }
  return Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : '']);
}

function validateObjectMeta(metadata: Json | undefined, namespaced: boolean): Issue[] {
  const out: Issue[] = [];
  const meta = isObject(metadata) ? metadata : {};
  const generateName = metaString(meta, 'generateName', out);
  const name = metaString(meta, 'name', out);
  const namespace = metaString(meta, 'namespace', out);
  const labels = metaStringMap(meta, 'labels', out);
  const annotations = metaStringMap(meta, 'annotations', out);

  if (generateName) {
    // maskTrailingDash, byte for byte as Go has it.
    const masked =
      generateName.length > 1 && generateName.endsWith('-') ? `${generateName.slice(0, -2)}a` : generateName;
    for (const m of isDNS1123Subdomain(masked))
      out.push(issue('Invalid', 'metadata.generateName', generateName, m));
  }
  if (!name) out.push(issue('Required', 'metadata.name', '', 'name or generateName is required'));
  for (const m of name ? isDNS1123Subdomain(name) : []) out.push(issue('Invalid', 'metadata.name', name, m));
  // A namespaced object without one gets kubectl's namespace; a cluster-scoped one lost it already.
  if (namespaced && namespace) {
    for (const m of isDNS1123Label(namespace)) out.push(issue('Invalid', 'metadata.namespace', namespace, m));
  }
  for (const [k, v] of labels) {
    for (const m of isQualifiedName(k)) out.push(issue('Invalid', 'metadata.labels', k, m));
    for (const m of isValidLabelValue(v)) out.push(issue('Invalid', 'metadata.labels', v, m));
  }
  let annotationBytes = 0;
  for (const [k, v] of annotations) {
    for (const m of isQualifiedName(k.toLowerCase()))
      out.push(issue('Invalid', 'metadata.annotations', k, m));
    annotationBytes += byteLength(k) + byteLength(v);
  }
  if (annotationBytes > 256 * 1024) {
    out.push(issue('TooLong', 'metadata.annotations', '', `may not be more than ${256 * 1024} bytes`));
  }
  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')) {
      out.push(
        issue('TypeInvalid', 'metadata.finalizers', jsonType(finalizers), 'must be a list of strings'),
      );
    } else {
      for (const f of finalizers as string[]) {
        for (const m of isQualifiedName(f)) out.push(issue('Invalid', 'metadata.finalizers', f, m));
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Update: which old value each new value is compared with (apiserver pkg/cel/common). Object properties
// and map values correlate by key, items of a list-type map by their map keys; other list items do not.

/** common.MapList: the first old item of a list-type map with the same map keys as a new item. */
class MapList {
  private keyed: Map<string, JsonObject> | undefined;

  constructor(
    private readonly keys: string[],
    private readonly items: Json[],
  ) {}

  /** The composite key of an item, or undefined when a key is missing or not a scalar. */
  private keyOf(item: Json | undefined): string | undefined {
    if (!isObject(item) || this.keys.length === 0) return undefined;
    const parts: string[] = [];
    for (const k of this.keys) {
      const v = item[k];
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
      parts.push(`${typeof v}:${String(v)}`);
    }
    return parts.join('\0');
  }

  get(item: Json | undefined): JsonObject | undefined {
    const key = this.keyOf(item);
    if (key === undefined) return undefined;
    if (!this.keyed) {
      this.keyed = new Map();
      for (const old of this.items) {
        const k = this.keyOf(old);
        if (k !== undefined && !this.keyed.has(k) && isObject(old)) this.keyed.set(k, old);
      }
    }
    return this.keyed.get(key);
  }
}

/** The old item correlated with a new list item: by map keys in a list-type map, none otherwise. */
function mapListOf(s: JSONSchemaProps, old: Json | undefined): MapList | undefined {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old)) return undefined;
  return new MapList(s['x-kubernetes-list-map-keys'] ?? [], old);
}

/**
 * common.CorrelatedObject: a node of the new object with the old value it correlates with, and whether
 * the two are equal (computed once, from the children's answers where it can).
 */
class Correlation {
  private equal: boolean | undefined;
  private readonly children = new Map<string | number, Correlation | undefined>();
  private mapList: MapList | undefined;

  constructor(
    readonly value: Json,
    readonly old: Json,
    readonly schema: JSONSchemaProps,
  ) {}

  /** The child under a property or map key, when both the new and the old object have it. */
  key(field: string): Correlation | undefined {
    if (this.children.has(field)) return this.children.get(field);
    let child: Correlation | undefined;
    const s = this.schema.properties?.[field] ?? valueSchema(this.schema);
    if (s && isObject(this.value) && isObject(this.old)) {
      const value = this.value[field];
      const old = this.old[field];
      if (value !== undefined && old !== undefined) child = new Correlation(value, old, s);
    }
    this.children.set(field, child);
    return child;
  }

  /** The child at a list index: only items of a list-type map correlate, by their keys. */
  index(i: number): Correlation | undefined {
    if (this.children.has(i)) return this.children.get(i);
    let child: Correlation | undefined;
    if (Array.isArray(this.value) && Array.isArray(this.old) && i < this.value.length) {
      if (this.schema['x-kubernetes-list-type'] === 'map') {
        this.mapList ??= mapListOf(this.schema, this.old);
        const old = this.mapList?.get(this.value[i]);
        if (old && this.schema.items) child = new Correlation(this.value[i] ?? null, old, this.schema.items);
      }
    }
    this.children.set(i, child);
    return child;
  }

  /** CachedDeepEqual: whether the new value equals the old one. */
  unchanged(): boolean {
    this.equal ??= this.compare();
    return this.equal;
  }

  private compare(): boolean {
    const { value, old } = this;
    if (value === null || old === null) return value === old;
    if (Array.isArray(value) !== Array.isArray(old) || isObject(value) !== isObject(old)) return false;
    if (Array.isArray(value) && Array.isArray(old)) {
      if (value.length !== old.length) return false;
      for (let i = 0; i < value.length; i++) {
        const child = this.index(i);
        // Items of other lists do not correlate: such a list is compared as a whole.
        if (!child)
          return this.schema['x-kubernetes-list-type'] === 'map' ? false : goJson(value) === goJson(old);
        if (!child.unchanged()) return false;
      }
      return true;
    }
    if (isObject(value) && isObject(old)) {
      const keys = Object.keys(value);
      if (keys.length !== Object.keys(old).length) return false;
      return keys.every((k) => this.key(k)?.unchanged() ?? false);
    }
    return value === old;
  }
}

// ---------------------------------------------------------------------------------------------------
// The OpenAPI schema (kube-openapi pkg/validation/validate, as apiextensions converts its errors).
// `name` is kube-openapi's path: map keys joined with '.', the root's children with a leading '.'.

const STRING_FORMATS = new Set([
  'bsonobjectid',
  'uri',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'cidr',
  'mac',
  'uuid',
  'uuid3',
  'uuid4',
  'uuid5',
  'isbn',
  'isbn10',
  'isbn13',
  'creditcard',
  'ssn',
  'hexcolor',
  'rgbcolor',
  'byte',
  'password',
  'date',
  'duration',
  'datetime',
]);

// The formats checked offline; the rest of STRING_FORMATS pass (see docs/VALIDATION.md).
const FORMAT_CHECKS: Record<string, RegExp> = {
  datetime: /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  ipv4: /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  byte: /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
};

/** The format kube-apiserver keeps (StripUnsupportedFormatsPostProcessor); '' when it drops it. */
function supportedFormat(s: JSONSchemaProps, types: string[]): string {
  const format = s.format ?? '';
  const type = types.length === 1 ? types[0] : '';
  if (type === '' || type === 'string') return STRING_FORMATS.has(format.replace(/-/g, '')) ? format : '';
  if (type === 'integer') return format === 'int32' || format === 'int64' ? format : '';
  if (type === 'number') return format === 'float' || format === 'double' ? format : '';
  return '';
}

function schemaTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

/** kube-openapi's schemaInfoForType for a decoded JSON value. */
function typeInfo(value: Json): [string, string] {
  if (typeof value === 'number')
    return Number.isInteger(value) ? ['integer', 'int64'] : ['number', 'float64'];
  if (typeof value === 'boolean') return ['boolean', ''];
  if (typeof value === 'string') return ['string', ''];
  return [Array.isArray(value) ? 'array' : 'object', ''];
}

const fieldOf = (name: string): string => name.replace(/^\./, '');
const patterns = new Map<string, RegExp | Error>();

function compilePattern(pattern: string): RegExp | Error {
  let re = patterns.get(pattern);
  if (!re) {
    // Go's RE2 has inline flags that JS lacks; `(?i)` up front is the one CRDs use.
    const caseless = pattern.startsWith('(?i)');
    const source = caseless ? pattern.slice(4) : pattern;
    try {
      // Unicode mode matches code points like Go does, but rejects some escapes RE2 takes.
      re = new RegExp(source, caseless ? 'ui' : 'u');
    } catch {
      try {
        re = new RegExp(source, caseless ? 'i' : '');
      } catch (err) {
        re = err instanceof Error ? err : new Error(String(err));
      }
    }
    patterns.set(pattern, re);
  }
  return re;
}

/** Go's %v for a float64 bound: whole numbers print without a fraction. */
const goFloat = (n: number): string => String(n);

/**
 * A value against its schema. On update (`c` correlates it with its old value), errors in a value the
 * update leaves as it was, its children's included, are ratcheted (RatchetingSchemaValidator): the API
 * server only warns about them. Children that do not correlate are validated in full.
 */
function validateNode(value: Json, s: JSONSchemaProps, name: string, out: Issue[], c?: Correlation): void {
  if (!c) return checkNode(value, s, name, out, undefined);
  const own: Issue[] = [];
  checkNode(value, s, name, own, c);
  if (own.length > 0 && !c.unchanged()) out.push(...own);
}

function checkNode(value: Json, s: JSONSchemaProps, name: string, out: Issue[], c?: Correlation): void {
  const field = fieldOf(name);
  const types = schemaTypes(s);
  const format = supportedFormat(s, types);
  if (value === null) {
    if (types.length > 0 && !s.nullable) {
      out.push(
        issue('TypeInvalid', field, 'null', `${name} in body must be of type ${types.join(',')}: "null"`),
      );
    }
    validateEnum(value, s, name, out);
    return;
  }
  validateType(value, types, format, name, out);
  if (typeof value === 'string') {
    validateString(value, s, name, out);
    const check = FORMAT_CHECKS[format.replace(/-/g, '')];
    if (check && !check.test(value)) {
      out.push(
        issue('TypeInvalid', field, value, `${name} in body must be of type ${format}: ${goValue(value)}`),
      );
    }
  }
  if (typeof value === 'number') validateNumber(value, s, types, name, out);
  if (Array.isArray(value)) {
    if (s.items) {
      const items = s.items;
      value.forEach((item, i) => validateNode(item, items, `${name}[${i}]`, out, c?.index(i)));
    }
    if (s.minItems !== undefined && value.length < s.minItems) {
      out.push(
        issue('Invalid', field, value.length, `${name} in body should have at least ${s.minItems} items`),
      );
    }
    if (s.maxItems !== undefined && value.length > s.maxItems) {
      out.push(
        issue(
          'TooMany',
          field,
          value.length,
          `must have at most ${s.maxItems} ${s.maxItems === 1 ? 'item' : 'items'}`,
        ),
      );
    }
  }
  validateEnum(value, s, name, out);
  if (isObject(value)) validateObject(value, s, name, out, c);
}

function validateType(value: Json, types: string[], format: string, name: string, out: Issue[]): void {
  if (types.length === 0 && !format) return;
  const [schType, valueFormat] = typeInfo(value);
  const stringOrSlice = typeof value === 'string' || Array.isArray(value);
  const intAsNumber = schType === 'integer' && types.includes('number');
  if (!stringOrSlice && format && !(types.includes(schType) || valueFormat === format || intAsNumber)) {
    const msg = `${name} in body must be of type ${format}: ${goValue(valueFormat)}`;
    out.push(issue('TypeInvalid', fieldOf(name), valueFormat, msg));
    return;
  }
  // kube-openapi leaves strings and lists under a string format to the format check alone.
  if (!types.includes('number') && !types.includes('integer') && format && stringOrSlice) return;
  if (!(types.includes(schType) || intAsNumber)) {
    const msg = `${name} in body must be of type ${types.join(',')}: ${goValue(schType)}`;
    out.push(issue('TypeInvalid', fieldOf(name), schType, msg));
  }
}

function validateString(value: string, s: JSONSchemaProps, name: string, out: Issue[]): void {
  const field = fieldOf(name);
  // kube-openapi counts runes and stops at the first failure.
  const length = [...value].length;
  if (s.maxLength !== undefined && length > s.maxLength) {
    out.push(
      issue(
        'TooLong',
        field,
        '',
        `may not be more than ${s.maxLength} ${s.maxLength === 1 ? 'byte' : 'bytes'}`,
      ),
    );
  } else if (s.minLength !== undefined && length < s.minLength) {
    out.push(issue('Invalid', field, value, `${name} in body should be at least ${s.minLength} chars long`));
  } else if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re instanceof Error) {
      out.push(
        issue(
          'Invalid',
          field,
          value,
          `${name} in body should match '${s.pattern}, but pattern is invalid: ${re.message}'`,
        ),
      );
    } else if (!re.test(value)) {
      out.push(issue('Invalid', field, value, `${name} in body should match '${s.pattern}'`));
    }
  }
}

const INT32 = [-(2 ** 31), 2 ** 31 - 1] as const;

function validateNumber(
  value: number,
  s: JSONSchemaProps,
  types: string[],
  name: string,
  out: Issue[],
): void {
  const field = fieldOf(name);
  const type = types.length === 1 ? types[0] : '';
  // IsValueValidAgainstRange: the value must fit the declared integer or float format.
  let rangeError: string | undefined;
  if (type === 'integer') {
    const int32 = s.format === 'int32';
    const fits = int32
      ? Number.isInteger(value) && value >= INT32[0] && value <= INT32[1]
      : Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63;
    const format = int32 || s.format === 'int64' ? s.format : '';
    if (!fits) {
      rangeError = format
        ? `Checked value must be of type integer with format ${format} in ${name}`
        : `Checked value must be of type integer (default format) in ${name}`;
    }
  } else if (type === 'number' && s.format === 'float' && Math.abs(value) > 3.4028234663852886e38) {
    rangeError = `Checked value must be of type number with format float in ${name}`;
  }
  // The API server puts this one at <nil>; naming the field is more useful and the message is the same.
  if (rangeError) out.push(issue('Invalid', field, '', rangeError));

  // An integral value compares against the bound truncated to an integer, as Go's int64 path does.
  const integral = Number.isInteger(value);
  if (s.minimum !== undefined) {
    const min = integral ? Math.trunc(s.minimum) : s.minimum;
    if (value < min) {
      out.push(
        issue('Invalid', field, value, `${name} in body should be greater than or equal to ${goFloat(min)}`),
      );
    }
  }
  if (s.maximum !== undefined) {
    const max = integral ? Math.trunc(s.maximum) : s.maximum;
    if (value > max) {
      out.push(
        issue('Invalid', field, value, `${name} in body should be less than or equal to ${goFloat(max)}`),
      );
    }
  }
}

function validateEnum(value: Json, s: JSONSchemaProps, name: string, out: Issue[]): void {
  if (!s.enum || s.enum.length === 0 || s.enum.some((e) => e === value)) return;
  const supported = s.enum
    .map((e) => JSON.stringify(typeof e === 'string' ? e : JSON.stringify(e)))
    .join(', ');
  out.push(issue('NotSupported', fieldOf(name), value, `supported values: ${supported}`));
}

function validateObject(
  value: JsonObject,
  s: JSONSchemaProps,
  name: string,
  out: Issue[],
  c: Correlation | undefined,
): void {
  const count = Object.keys(value).length;
  if (s.minProperties !== undefined && count < s.minProperties) {
    out.push(
      issue(
        'Invalid',
        fieldOf(name),
        count,
        `${fieldOf(name)} in body should have at least ${s.minProperties} properties`,
      ),
    );
  }
  if (s.maxProperties !== undefined && count > s.maxProperties) {
    out.push(
      issue(
        'TooMany',
        fieldOf(name),
        count,
        `must have at most ${s.maxProperties} ${s.maxProperties === 1 ? 'item' : 'items'}`,
      ),
    );
  }
  const additional = valueSchema(s);
  if (additional) {
    for (const [k, v] of Object.entries(value)) {
      if (!s.properties?.[k]) validateNode(v, additional, `${name}.${k}`, out, c?.key(k));
    }
  }
  for (const [p, prop] of Object.entries(s.properties ?? {})) {
    const v = value[p];
    // Changes to apiVersion and kind are not ratcheted: both objects are converted to the same ones.
    const typeMeta = name === '' && (p === 'apiVersion' || p === 'kind');
    if (v !== undefined)
      validateNode(v, prop, name ? `${name}.${p}` : p, out, typeMeta ? undefined : c?.key(p));
  }
  for (const r of s.required ?? []) {
    if (!(r in value)) out.push(issue('Required', fieldOf(`${name}.${r}`), ''));
  }
}

// ---------------------------------------------------------------------------------------------------
// x-kubernetes-list-type (apiextensions-apiserver pkg/apiserver/schema/listtype). Paths from here on are
// field.Path strings: map keys in brackets.

function validateListTypes(obj: JsonObject, s: JSONSchemaProps, path: string, out: Issue[]): void {
  const additional = valueSchema(s);
  if (additional) {
    for (const [k, v] of Object.entries(obj)) listTypesOf(v, additional, key(path, k), out);
  }
  for (const [p, prop] of Object.entries(s.properties ?? {})) {
    const v = obj[p];
    if (v !== undefined) listTypesOf(v, prop, child(path, p), out);
  }
}

function listTypesOf(value: Json, s: JSONSchemaProps, path: string, out: Issue[]): void {
  if (isObject(value)) return validateListTypes(value, s, path, out);
  if (!Array.isArray(value)) return;
  if (s['x-kubernetes-list-type'] === 'set') {
    for (const i of secondOccurrences(value)) out.push(issue('Duplicate', index(path, i), value[i] ?? null));
  } else if (s['x-kubernetes-list-type'] === 'map') {
    out.push(...validateListMap(value, s['x-kubernetes-list-map-keys'] ?? [], path));
  }
  if (s.items) value.forEach((item, i) => listTypesOf(item, s.items as JSONSchemaProps, index(path, i), out));
}

/** validateListSet: the index of each value's second occurrence (a third one is not reported). */
function secondOccurrences(values: (Json | undefined)[]): number[] {
  const seen = new Map<string, number>();
  const result: number[] = [];
  values.forEach((v, i) => {
    const id =
      v === undefined
        ? 'unspecified'
        : Array.isArray(v) || isObject(v)
          ? `c:${goJson(v)}`
          : `${typeof v}:${String(v)}`;
    const times = seen.get(id) ?? 0;
    if (times === 1) result.push(i);
    seen.set(id, times + 1);
  });
  return result;
}

function validateListMap(items: Json[], keys: string[], path: string): Issue[] {
  const bad = items.findIndex((x) => x !== null && !isObject(x));
  if (bad >= 0) {
    return [
      issue(
        'Invalid',
        index(path, bad),
        items[bad] ?? null,
        'must be an object for an array of list-type map',
      ),
    ];
  }
  if (items.length <= 1) return [];
  const objects = items as (JsonObject | null)[];
  if (keys.length === 1) {
    const [keyField = ''] = keys;
    const values = objects.map((x) => (x === null ? undefined : x[keyField]));
    return secondOccurrences(values).map((i) => {
      const v = values[i];
      return issue('Duplicate', index(path, i), v === undefined ? {} : { [keyField]: v });
    });
  }
  const keyMaps = objects.map((x) => {
    const keyMap: JsonObject = {};
    for (const k of keys) {
      const v = x?.[k];
      if (v !== undefined) keyMap[k] = v;
    }
    return keyMap;
  });
  return secondOccurrences(keyMaps).map((i) => issue('Duplicate', index(path, i), keyMaps[i] ?? {}));
}

// ---------------------------------------------------------------------------------------------------
// x-kubernetes-validations (apiextensions-apiserver pkg/apiserver/schema/cel).

function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (!s) return false;
  return (
    (s['x-kubernetes-validations']?.length ?? 0) > 0 ||
    hasRules(s.items) ||
    hasRules(valueSchema(s)) ||
    Object.values(s.properties ?? {}).some(hasRules)
  );
}

/** model.WithTypeAndObjectMeta: at the root, CEL sees apiVersion, kind and only metadata.name/generateName. */
function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const str: JSONSchemaProps = { type: 'string' };
  return {
    ...s,
    properties: {
      ...s.properties,
      apiVersion: str,
      kind: str,
      metadata: { type: 'object', properties: { name: str, generateName: str } },
    },
  };
}

function ruleText(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
}

/**
 * ValidFieldPath: `.a.b['c']` relative to the rule's node, as a field.Path string (properties joined with
 * '.', map keys in brackets), or undefined when it names no field (the CRD would have been refused).
 */
function normalizeFieldPath(fieldPath: string, s: JSONSchemaProps): string | undefined {
  const tokens = fieldPath.match(/\[|\]|\.|'(?:[^'\\]|\\.)*'|[^.[\]']+/g) ?? [];
  let path = '';
  let node: JSONSchemaProps | undefined = s;
  const step = (name: string): boolean => {
    if (node?.properties) {
      path = child(path, name);
      node = node.properties[name];
      return node !== undefined;
    }
    const additional = valueSchema(node);
    if (!additional) return false;
    path = key(path, name);
    node = additional;
    return true;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === '.') {
      const name = tokens[++i];
      if (name === undefined || !step(name)) return undefined;
    } else if (token === '[') {
      const quoted = tokens[++i];
      if (quoted === undefined || !/^'.*'$/.test(quoted) || tokens[++i] !== ']') return undefined;
      if (!step(quoted.slice(1, -1).replace(/\\(.)/g, '$1'))) return undefined;
    } else {
      return undefined;
    }
  }
  return path;
}

function ruleError(
  rule: ValidationRule,
  s: JSONSchemaProps,
  value: Json,
  path: string,
  detail: string,
): Issue {
  let target = path;
  if (rule.fieldPath) {
    const relative = normalizeFieldPath(rule.fieldPath, s);
    if (relative) target = child(path, relative);
  }
  const shown: BadValue = s.type === 'object' || s.type === 'array' ? OMIT : value;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return issue('Forbidden', target, '', detail);
    case 'FieldValueRequired':
      return issue('Required', target, '', detail);
    case 'FieldValueDuplicate':
      return issue('Duplicate', target, shown);
    default:
      return issue('Invalid', target, shown, detail);
  }
}

/** ruleMessageOrDefault: the rule's message, or `failed rule: <rule>`. */
function ruleMessage(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleText(rule)}`;
}

/**
 * Where the CEL rules walk stands on update: the old value correlated with the node (undefined when there
 * is none, and always on create), and the ratcheting state (ratchetingOptions): the node's correlation
 * and the nearest ancestor that had one.
 */
interface RuleContext {
  old: Json | undefined;
  current?: Correlation;
  parent?: Correlation;
}

/** ratchetingOptions.key: the context of a property or map value. */
function keyContext(ctx: RuleContext, old: Json | undefined, field: string, root: boolean): RuleContext {
  if (!ctx.current) return { ...ctx, old };
  // apiVersion and kind are not ratcheted: both objects are converted to the same ones.
  if (root && (field === 'apiVersion' || field === 'kind')) return { old };
  return { old, current: ctx.current.key(field), parent: ctx.current };
}

/** ratchetingOptions.index: the context of a list item. */
function indexContext(ctx: RuleContext, old: Json | undefined, i: number): RuleContext {
  if (!ctx.current) return { ...ctx, old };
  return { old, current: ctx.current.index(i), parent: ctx.current };
}

/** shouldRatchetError: whether the node, or else its nearest correlated ancestor, is unchanged. */
function ratcheted(ctx: RuleContext): boolean {
  return (ctx.current ?? ctx.parent)?.unchanged() ?? false;
}

/**
 * Validator.validate: a node's own rules on its non-null value, then its items, map values and fields.
 * On update, transition rules (those using `oldSelf`) run with `oldSelf` bound to the correlated old
 * value and are skipped where there is none; on create they are skipped. A failing rule that does not use
 * `oldSelf` is ratcheted when its node (or else the nearest ancestor that correlates) is unchanged.
 */
function validateRules(
  value: Json,
  s: JSONSchemaProps,
  path: string,
  root: boolean,
  out: Issue[],
  ctx: RuleContext,
): void {
  if (value === null) return;
  const rules = s['x-kubernetes-validations'] ?? [];
  if (rules.length > 0) {
    const schema = root ? withTypeAndObjectMeta(s) : s;
    const self = toCel(value, schema);
    // The API server binds oldSelf when some rule of the node uses it and an old value correlates.
    const old = ctx.old ?? null;
    const oldSelf: CelIn | undefined =
      old !== null && rules.some((r) => usesOldSelf(r.rule)) ? toCel(old, schema) : undefined;
    const type = s.type ?? '';
    for (const rule of rules) {
      const transition = usesOldSelf(rule.rule);
      // Transition rules need an old value. With optionalOldSelf the API server runs them anyway, with
      // oldSelf an optional; @bufbuild/cel has no optionals, so they are skipped (docs/VALIDATION.md).
      if (transition && (oldSelf === undefined || rule.optionalOldSelf)) continue;
      const outcome = evaluateRule(rule.rule, self, oldSelf);
      if (outcome.kind === 'compile-error') {
        out.push(issue('Invalid', path, type, `rule compile error: ${outcome.message}`));
      } else if (outcome.kind === 'eval-error') {
        out.push(issue('Invalid', path, type, `${outcome.message} evaluating rule: ${ruleText(rule)}`));
      } else if (outcome.kind === 'fail' && (transition || !ratcheted(ctx))) {
        const message =
          rule.messageExpression === undefined
            ? undefined
            : evaluateMessageExpression(rule.messageExpression, self, oldSelf);
        out.push(ruleError(rule, s, value, path, message ?? ruleMessage(rule)));
      }
    }
  }
  if (Array.isArray(value)) {
    const items = s.items;
    if (items) {
      // Only the items of a list-type map correlate with old ones, by their keys.
      const oldItems = mapListOf(s, ctx.old);
      value.forEach((item, i) =>
        validateRules(item, items, index(path, i), false, out, indexContext(ctx, oldItems?.get(item), i)),
      );
    }
  } else if (isObject(value)) {
    const old = isObject(ctx.old) ? ctx.old : undefined;
    const additional = valueSchema(s);
    if (additional) {
      for (const [k, v] of Object.entries(value)) {
        validateRules(v, additional, key(path, k), false, out, keyContext(ctx, old?.[k], k, root));
      }
    }
    for (const [p, prop] of Object.entries(s.properties ?? {})) {
      const v = value[p];
      if (v !== undefined) {
        validateRules(v, prop, child(path, p), false, out, keyContext(ctx, old?.[p], p, root));
      }
    }
  }
}
