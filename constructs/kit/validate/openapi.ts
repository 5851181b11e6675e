/**
 * The OpenAPI schema checks (kube-openapi pkg/validation/validate, as apiextensions converts its errors):
 * type, nullable, format, enum, bounds, lengths, pattern, item and property counts, required fields, with
 * ratcheting on update. `name` is kube-openapi's path: map keys joined with '.', the root's children with a
 * leading '.'.
 */
import { isObject, valueSchema, type Json, type JsonObject } from '../defaults';
import type { JSONSchemaProps } from '../schema';
import type { Correlation } from './correlation';
import { goValue, issue, type Issue } from './field';

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

const fieldOf = (name: string): string => (name.startsWith('.') ? name.slice(1) : name);
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
export function validateNode(
  value: Json,
  s: JSONSchemaProps,
  name: string,
  out: Issue[],
  c?: Correlation,
): void {
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
