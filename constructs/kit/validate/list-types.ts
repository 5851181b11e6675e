/**
 * x-kubernetes-list-type (apiextensions-apiserver pkg/apiserver/schema/listtype): a `set` must not repeat
 * a value, a `map` must not repeat the values of its `x-kubernetes-list-map-keys`; the second occurrence
 * is reported. Paths are field.Path strings: map keys in brackets.
 */
import { isObject, valueSchema, type Json, type JsonObject } from '../defaults';
import type { JSONSchemaProps } from '../schema';
import { child, goJson, index, issue, key, type Issue } from './field';

/** The list-type checks of every list in `obj` (the root object when `path` is ''). */
export function validateListTypes(obj: JsonObject, s: JSONSchemaProps, path: string, out: Issue[]): void {
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
