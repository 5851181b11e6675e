/**
 * Every string field of a kind's spec, from its CRD schema, and resources with a given string in one of
 * them: for the tests that push YAML look-alike strings through every field a user can write.
 */
import type { CustomResource, JSONSchemaProps, Kind } from '../../constructs';

/** A path into a spec: property names, `0` for a list's first item, or a map key. */
export interface StringField {
  readonly path: readonly (string | number)[];
  /** A map's key rather than a value (labels, pages). */
  readonly key?: boolean;
}

const MAP_KEY = 'lookalike-key';

/** The string fields of `schema` (a spec's), depth first. */
export function stringFields(schema: JSONSchemaProps, path: (string | number)[] = []): StringField[] {
  if (schema.type === 'string' && !schema.enum) return [{ path }];
  if (schema.type === 'array' && schema.items && !Array.isArray(schema.items)) {
    return stringFields(schema.items, [...path, 0]);
  }
  if (schema.type !== 'object') return [];
  const out = Object.entries(schema.properties ?? {}).flatMap(([name, sub]) =>
    stringFields(sub, [...path, name]),
  );
  const values = schema.additionalProperties;
  if (values && typeof values === 'object') {
    out.push({ path: [...path, MAP_KEY], key: true });
    out.push(...stringFields(values, [...path, MAP_KEY]));
  }
  return out;
}

/** The spec schema of a kind's CRD. */
export function specSchema(kind: Kind): JSONSchemaProps {
  return kind.crd.spec.versions[0].schema?.openAPIV3Schema?.properties?.spec ?? {};
}

type Json = Record<string | number, unknown>;

/** A minimal value of `schema`: its required fields, each minimal in turn. */
function minimal(schema: JSONSchemaProps | undefined): unknown {
  if (schema?.['x-kubernetes-int-or-string']) return 1;
  switch (schema?.type) {
    case 'string':
      return schema.enum?.[0] ?? 'a';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return (schema.minItems ?? 0) > 0 ? [minimal(schema.items)] : [];
    default: {
      const out: Json = {};
      for (const name of schema?.required ?? []) out[name] = minimal(schema?.properties?.[name]);
      return out;
    }
  }
}

/** The schema one step down: a property, a list's item or a map's value. */
function childSchema(
  schema: JSONSchemaProps | undefined,
  segment: string | number,
): JSONSchemaProps | undefined {
  if (!schema) return undefined;
  if (typeof segment === 'number') return schema.items;
  const additional =
    typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  return schema.properties?.[segment] ?? (segment === MAP_KEY ? additional : undefined);
}

/**
 * A copy of `resource` with `value` at `field` of its spec (objects and a one-item list made on the way
 * when missing, with the fields `schema`, the spec's, says they require). For a map key, the key is
 * `value` and its value is the map's first one, or `value`.
 */
export function withString<T>(
  resource: CustomResource<T>,
  field: StringField,
  value: string,
  schema?: JSONSchemaProps,
): CustomResource<T> {
  const copy = structuredClone(resource);
  // Walked by path, below its generated type: the spec as the JSON it is, made when missing.
  const spec = (copy.spec ?? {}) as Json;
  copy.spec = spec as T;
  let node: Json = spec;
  let nodeSchema = schema;
  const { path } = field;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i];
    const next = path[i + 1];
    const sub = childSchema(nodeSchema, segment);
    if (node[segment] === undefined || node[segment] === null) {
      node[segment] = typeof next === 'number' ? [minimal(sub?.items)] : minimal(sub);
    }
    node = node[segment] as Json;
    nodeSchema = sub;
  }
  const last = path[path.length - 1];
  if (field.key) {
    const first = Object.values(node).find((v) => typeof v === 'string');
    node[value] = first ?? value;
  } else if (last === MAP_KEY) {
    node[Object.keys(node)[0] ?? MAP_KEY] = value;
  } else {
    node[last] = value;
  }
  return copy;
}
