/**
 * A spec against its schema alone: what the API server checks of a resource's `spec` on create, for a
 * construct built in a cdk8s app with no API server in front of it.
 */
import { toJson, type Json } from '../defaults';
import type { JSONSchemaProps } from '../schema';
import { decode } from './decode';
import { strip, type FieldError, type Issue } from './field';
import { validateListTypes } from './list-types';
import { validateNode } from './openapi';
import { validateObjectRules } from './rules';

/** The outcome of {@link validateSpec}. */
export interface ValidatedSpec {
  /** A copy of the spec as the API server would store it: pruned and defaulted. */
  spec: Json;
  /** Every problem found, with paths from the object's root (`spec.size`); empty when it would be admitted. */
  errors: FieldError[];
}

// One wrapper per spec schema, so the validators' per-schema caches keep working.
const wrappers = new WeakMap<JSONSchemaProps, JSONSchemaProps>();

/**
 * Checks `spec` as validateResource checks the `spec` of a created resource: unknown fields, then types,
 * formats, enums, bounds and patterns, list types, and the CEL rules of the spec and everything under it.
 * Rules on the whole object (a kind's `schema.rules`) and metadata are not checked: they need the
 * resource. Never throws and never mutates `spec`.
 */
export function validateSpec(schema: JSONSchemaProps, spec: unknown): ValidatedSpec {
  let root = wrappers.get(schema);
  if (!root) {
    root = { type: 'object', properties: { spec: schema } };
    wrappers.set(schema, root);
  }
  const copy = toJson(spec ?? {});
  const object = { spec: copy ?? null };
  const issues: Issue[] = decode(object, root);
  validateNode(object, root, '', issues);
  validateListTypes(object, root, '', issues);
  validateObjectRules(object, root, issues);
  return { spec: object.spec, errors: issues.map(strip) };
}
