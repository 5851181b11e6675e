/**
 * Decoding a request body as the API server does for a CRD kind (apiextensions-apiserver
 * pkg/apiserver/schema/pruning, /defaulting): fields the schema does not know are pruned, `null`s without a
 * default dropped, and structural defaults applied. Strict field validation reports what pruning drops;
 * here each becomes an `unknown field` issue, so one run shows them all.
 */
import {
  applyDefaults,
  isObject,
  pruneNullsWithoutDefaults,
  valueSchema,
  type Json,
  type JsonObject,
} from '../defaults';
import type { JSONSchemaProps } from '../schema';
import type { Issue } from './field';

/**
 * Prunes, drops nulls and defaults `object` in place by its version's schema. Returns the unknown fields
 * it found: those of `metadata` in their order, then the pruned ones sorted by path. `defaults: false`
 * skips the defaulting, for a schema that has no defaults.
 */
export function decode(object: JsonObject, schema: JSONSchemaProps, defaults = true): Issue[] {
  const unknownMeta = unknownMetadataFields(object.metadata);
  const pruned: string[] = [];
  prune(object, schema, [], pruned, true);
  pruneNullsWithoutDefaults(object, schema);
  if (defaults) applyDefaults(object, schema);
  return [...unknownMeta, ...pruned.sort()].map(unknownField);
}

function unknownField(path: string): Issue {
  return { type: 'Invalid', field: path, message: `unknown field "${path}"` };
}

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
