/**
 * Offline admission of a child of a built-in kind (a Deployment, a PersistentVolumeClaim, ...): what
 * kube-apiserver refuses of a server-side apply of it, checked against the OpenAPI v3 schemas of the
 * Kubernetes version the package targets. Those are in kubernetes-openapi.json beside this file, generated
 * from the API server's own `/openapi/v3` (scripts/openapi/generate.ts) and read on the first call only,
 * so that a process that never validates a child (the controller) does not hold them.
 *
 * The same phases as a custom resource's (decode.ts, object-meta.ts, openapi.ts, list-types.ts), then the
 * checks of the API server's Go validation that its schemas do not state (kubernetes-rules.ts).
 * docs/VALIDATION.md says what is checked and what is not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, toJson, valueSchema, type Json } from '../defaults';
import type { JSONSchemaProps } from '../schema';
import { decode } from './decode';
import { issue, strip, type FieldError, type Issue } from './field';
import { validateKindRules } from './kubernetes-rules';
import { validateListTypes } from './list-types';
import { validateObjectMeta } from './object-meta';
import { validateNode } from './openapi';
import { parseQuantity } from '../quantity';

/** The file's name, beside this module (in dist/ too: `npm run build` copies it). */
const SCHEMAS_FILE = 'kubernetes-openapi.json';

/** What scripts/openapi/generate.ts writes. */
interface SchemasFile {
  readonly kubernetes: string;
  /** `<apiVersion> <Kind>` to its schema's name. */
  readonly kinds: Record<string, string>;
  readonly schemas: Record<string, RawSchema>;
}

/** A schema as the file holds it: JSONSchemaProps whose nested schemas may be `{ $ref: name }`. */
type RawSchema = JSONSchemaProps & { $ref?: string };

/** The schemas with every `$ref` replaced by the schema it names (shared, so cycles are fine). */
class Schemas {
  private readonly resolved = new Map<string, JSONSchemaProps>();

  constructor(private readonly file: SchemasFile) {}

  /** The schema of a kind, by `apiVersion` and `kind`; undefined for a kind the file does not have. */
  ofKind(apiVersion: string, kind: string): JSONSchemaProps | undefined {
    const name = this.file.kinds[`${apiVersion} ${kind}`];
    return name === undefined ? undefined : this.named(name);
  }

  private named(name: string): JSONSchemaProps {
    let schema = this.resolved.get(name);
    if (schema) return schema;
    const raw = this.file.schemas[name];
    if (!raw) throw new Error(`${SCHEMAS_FILE}: no schema ${name}`);
    schema = {};
    this.resolved.set(name, schema);
    return Object.assign(schema, this.inline(raw));
  }

  private inline(raw: RawSchema): JSONSchemaProps {
    if (raw.$ref !== undefined) return this.named(raw.$ref);
    const out: JSONSchemaProps = { ...raw };
    if (raw.properties) {
      out.properties = Object.fromEntries(
        Object.entries(raw.properties).map(([p, s]) => [p, this.inline(s as RawSchema)]),
      );
    }
    if (raw.items) out.items = this.inline(raw.items);
    const additional = valueSchema(raw);
    if (additional) out.additionalProperties = this.inline(additional);
    return out;
  }
}

let schemas: Schemas | undefined;

/** The schemas, read on first use. */
function loaded(): Schemas {
  schemas ??= new Schemas(JSON.parse(readFileSync(join(__dirname, SCHEMAS_FILE), 'utf8')) as SchemasFile);
  return schemas;
}

/** The schema `validateChild` checks a kind against, references resolved; undefined when it has none. */
export function kubernetesSchema(apiVersion: string, kind: string): JSONSchemaProps | undefined {
  return loaded().ofKind(apiVersion, kind);
}

/**
 * Checks a child of a built-in kind as the API server would check a server-side apply of it: unknown
 * fields, types, formats (int32/int64, int-or-string, quantity, date-time), enums, required fields,
 * duplicate keys of map lists, label keys and values, and what kubernetes-rules.ts adds. Names are
 * checked by synthesize (child-names.ts), by the rules of each kind. Undefined for a kind without a
 * schema here (a custom resource, a kind of another group-version): not checked.
 */
export function validateChild(child: unknown): FieldError[] | undefined {
  const object = toJson(child);
  if (!isObject(object)) return [{ field: '', message: 'Invalid value: must be a Kubernetes object' }];
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const schema = loaded().ofKind(apiVersion, kind);
  if (!schema) return undefined;
  // The file keeps no defaults: what the API server defaults does not change what it refuses here.
  const issues: Issue[] = decode(object, schema, false);
  issues.push(...validateObjectMeta(object.metadata, true).filter((i) => i.field !== 'metadata.name'));
  validateNode(object, schema, '', issues);
  validateListTypes(object, schema, '', issues);
  validateBuiltin(object, schema, '', issues);
  validateKindRules(`${apiVersion} ${kind}`, object, issues);
  return issues.map(strip);
}

const join2 = (path: string, name: string) => (path ? `${path}.${name}` : name);

/**
 * What Go's decoding and validation of built-in types refuse and a CRD's schema check would not: a
 * quantity that does not parse, and a required field that is present but empty (`""`, `[]`), which Go
 * cannot tell from a missing one.
 */
function validateBuiltin(value: Json, s: JSONSchemaProps, path: string, out: Issue[]): void {
  if (s.format === 'quantity') {
    if ((typeof value === 'string' || typeof value === 'number') && parseQuantity(value) === undefined) {
      out.push(
        issue(
          'Invalid',
          path,
          value,
          'quantities must match the regular expression ' + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
      );
    } else if (typeof value !== 'string' && typeof value !== 'number' && value !== null) {
      out.push(issue('TypeInvalid', path, value, 'must be a quantity: a string or a number'));
    }
    return;
  }
  if (Array.isArray(value)) {
    const items = s.items;
    if (items) value.forEach((item, i) => validateBuiltin(item, items, `${path}[${i}]`, out));
    return;
  }
  if (!isObject(value)) return;
  for (const r of s.required ?? []) {
    const v = value[r];
    if (v === '' || (Array.isArray(v) && v.length === 0)) out.push(issue('Required', join2(path, r), ''));
  }
  const additional = valueSchema(s);
  for (const [k, v] of Object.entries(value)) {
    const prop = s.properties?.[k] ?? additional;
    if (prop) validateBuiltin(v, prop, join2(path, k), out);
  }
}
