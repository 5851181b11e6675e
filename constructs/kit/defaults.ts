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
 * A copy of `value` with the schema's defaults filled in, as the API server would store it: absent fields
 * and non-nullable nulls that have a default get it, in array items and map values too. `Defaulted` is
 * the type with those fields present (`<Kind>SpecWithDefaults` in a kind's generated types).
 */
export function withDefaults<T, Defaulted = T>(schema: JSONSchemaProps, value: T): Defaulted {
  const copy = toJson(value) ?? null;
  pruneNullsWithoutDefaults(copy, schema);
  applyDefaults(copy, schema);
  return copy as Defaulted;
}
