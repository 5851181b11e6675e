/**
 * On update, which old value each node of the new object is compared with (apiserver pkg/cel/common):
 * object properties and map values correlate by key, items of a list-type map by their map keys; other
 * list items do not. Both the OpenAPI checks and the CEL rules use it to ratchet errors in what an update
 * leaves unchanged, and the rules to bind `oldSelf`.
 */
import { isObject, valueSchema, type Json, type JsonObject } from '../defaults';
import type { JSONSchemaProps } from '../schema';
import { goJson } from './field';

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
export function mapListOf(s: JSONSchemaProps, old: Json | undefined): MapList | undefined {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old)) return undefined;
  return new MapList(s['x-kubernetes-list-map-keys'] ?? [], old);
}

/**
 * common.CorrelatedObject: a node of the new object with the old value it correlates with, and whether
 * the two are equal (computed once, from the children's answers where it can).
 */
export class Correlation {
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
