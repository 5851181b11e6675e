/**
 * Structural defaulting, as the API server applies a CRD schema's defaults when it stores a resource:
 * shared by the offline validator and by constructs, which read the defaults from the schema instead of
 * repeating them.
 */
import type { JSONSchemaProps } from './schema';

/** A JSON value as YAML or JSON parsing yields it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy holding JSON values only, as the API server sees the request body. */
export function toJson(value: unknown): Json | undefined {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
      return value;
    case 'bigint':
      return Number(value);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (Array.isArray(value)) return value.map((item) => toJson(item) ?? null);
  if (value instanceof Date) return value.toISOString();
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const json = toJson(v);
    if (json !== undefined) out[k] = json;
  }
  return out;
}

/** The schema of additionalProperties, or undefined for `true`/`false`/absent. */
export function valueSchema(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  return typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

/** PruneNonNullableNullsWithoutDefaults: `field: null` on a non-nullable field without default is absent. */
export function pruneNullsWithoutDefaults(x: Json, s: JSONSchemaProps | undefined): void {
  if (Array.isArray(x)) {
    for (const item of x) pruneNullsWithoutDefaults(item, s?.items);
  } else if (isObject(x)) {
    for (const k of Object.keys(x)) {
      const sub = s?.properties?.[k] ?? valueSchema(s);
      if (x[k] === null && sub && !sub.nullable && sub.default === undefined) delete x[k];
      else pruneNullsWithoutDefaults(x[k], sub);
    }
  }
}

const isNonNullableNull = (x: Json, s: JSONSchemaProps | undefined): boolean =>
  x === null && s !== undefined && !s.nullable;

/**
 * structuraldefaulting.Default: fills absent (or non-nullable null) fields, then descends into every
 * value, so defaults inside array items, map values and freshly defaulted objects apply too.
 */
export function applyDefaults(x: Json, s: JSONSchemaProps | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((item, i) => {
      if (isNonNullableNull(item, s.items) && s.items?.default !== undefined)
        x[i] = copyDefault(s.items.default);
      applyDefaults(x[i] ?? null, s.items);
    });
  } else if (isObject(x)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!(k in x) || isNonNullableNull(x[k] ?? null, prop)) x[k] = copyDefault(prop.default);
    }
    for (const k of Object.keys(x)) {
      const prop = s.properties?.[k];
      if (prop) {
        applyDefaults(x[k] ?? null, prop);
      } else {
        const additional = valueSchema(s);
        if (!additional) continue;
        if (isNonNullableNull(x[k] ?? null, additional) && additional.default !== undefined) {
          x[k] = copyDefault(additional.default);
        }
        applyDefaults(x[k] ?? null, additional);
      }
    }
  }
}

function copyDefault(value: unknown): Json {
  return toJson(value) ?? null;
}

/**
 * `value` with the schema's defaults filled in, as the API server would store it: absent fields and
 * non-nullable nulls that have a default get it, in array items and map values too, and non-nullable nulls
 * without a default are dropped (what `pruneNullsWithoutDefaults` and `applyDefaults` do to a decoded
 * request). Copy-on-write: what needs no change is shared with `value`, so a spec that has all its fields
 * costs no allocation; treat the result as read-only. An absent object spec counts as `{}`. `Defaulted` is
 * the type with the defaulted fields present (`<Kind>SpecWithDefaults` in a kind's generated types).
 */
export function withDefaults<T, Defaulted = T>(schema: JSONSchemaProps, value: T): Defaulted {
  const start = value ?? (schema.type === 'object' ? {} : null);
  return filled(start, schema) as Defaulted;
}

function filled(x: Json, s: JSONSchemaProps | undefined): Json {
  if (!s) return x;
  if (Array.isArray(x)) {
    let out: Json[] | undefined;
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      const item = x[i] as Json | undefined;
      let v = item ?? null; // as JSON writes an undefined item
      if (isNonNullableNull(v, items) && items?.default !== undefined) v = defaultOf(items);
      v = filled(v, items);
      if (v !== item) (out ??= x.slice())[i] = v;
    }
    return out ?? x;
  }
  if (!isObject(x)) return x;
  let out: JsonObject | undefined;
  const additional = valueSchema(s);
  const keys = Object.keys(x);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = x[k] as Json | undefined;
    const sub = s.properties?.[k] ?? additional;
    if (v === undefined || (v === null && sub && !sub.nullable && sub.default === undefined)) {
      out ??= { ...x };
      delete out[k];
      continue;
    }
    let next = v;
    if (v === null && sub && !sub.nullable && sub.default !== undefined) next = defaultOf(sub);
    next = filled(next, sub);
    if (next !== v) (out ??= { ...x })[k] = next;
  }
  const defaulted = defaultedProperties(s);
  for (let i = 0; i < defaulted.length; i++) {
    const k = defaulted[i];
    if (x[k] === undefined) {
      const prop = s.properties![k];
      (out ??= { ...x })[k] = filled(defaultOf(prop), prop);
    }
  }
  return out ?? x;
}

/** A fresh copy of a schema's default (a scalar as it is). */
function defaultOf(s: JSONSchemaProps): Json {
  const value = s.default;
  return typeof value === 'object' && value !== null ? copyDefault(value) : (value as Json);
}

const defaultedCache = new WeakMap<JSONSchemaProps, string[]>();

/** The properties of an object schema that have a default, worked out once per schema (synthesis is hot). */
function defaultedProperties(s: JSONSchemaProps): string[] {
  let found = defaultedCache.get(s);
  if (!found) {
    found = Object.entries(s.properties ?? {})
      .filter(([, prop]) => prop.default !== undefined)
      .map(([k]) => k);
    defaultedCache.set(s, found);
  }
  return found;
}
