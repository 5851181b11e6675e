/**
 * ObjectMeta checks of a create (apimachinery pkg/api/validation ValidateObjectMetaAccessor, and the
 * name, label and annotation checks it calls), with Go's regular expressions and error messages. Fields
 * of the wrong JSON type are reported here too, where the API server would fail to decode the body.
 */
import { isObject, type Json, type JsonObject } from '../defaults';
import {
  DNS1123_LABEL_FORMAT,
  DNS1123_SUBDOMAIN_FORMAT,
  LABEL_VALUE_FORMAT,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
  QUALIFIED_NAME_FORMAT,
} from '../names';
import { issue, type Issue } from './field';

const whole = (re: string): RegExp => new RegExp(`^${re}$`);
const DNS1123_LABEL_RE = whole(DNS1123_LABEL_FORMAT);
const DNS1123_SUBDOMAIN_RE = whole(DNS1123_SUBDOMAIN_FORMAT);
const LABEL_KEY_RE = whole(QUALIFIED_NAME_FORMAT);
const LABEL_VALUE_RE = whole(LABEL_VALUE_FORMAT);

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
  if (byteLength(value) > MAX_SUBDOMAIN_LENGTH) errs.push(maxLenError(MAX_SUBDOMAIN_LENGTH));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FORMAT,
        'example.com',
      ),
    );
  }
  return errs;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > MAX_LABEL_LENGTH) errs.push(maxLenError(MAX_LABEL_LENGTH));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      DNS1123_SUBDOMAIN_RE.test(value)
        ? 'must not contain dots'
        : regexError(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            DNS1123_LABEL_FORMAT,
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
      `a valid label key ${regexError(LABEL_KEY_MSG, QUALIFIED_NAME_FORMAT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (byteLength(name) > MAX_LABEL_LENGTH) errs.push(`name part ${maxLenError(MAX_LABEL_LENGTH)}`);
  if (!LABEL_KEY_RE.test(name)) {
    errs.push(
      `name part ${regexError(LABEL_KEY_MSG, QUALIFIED_NAME_FORMAT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > MAX_LABEL_LENGTH) errs.push(maxLenError(MAX_LABEL_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FORMAT,
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

/**
 * The ObjectMeta checks of a create: name or generateName, namespace (for a namespaced kind), label keys
 * and values, annotation keys and total size, finalizer names.
 */
export function validateObjectMeta(metadata: Json | undefined, namespaced: boolean): Issue[] {
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
