/**
 * Writes constructs/kit/validate/kubernetes-openapi.json: the OpenAPI v3 schemas of the built-in kinds a
 * construct may make, as the API server serves them (`/openapi/v3`), so that the offline renderer checks
 * children against the Kubernetes version the package targets without downloading anything.
 *
 *   bash scripts/cluster/with-cluster.sh npx tsx scripts/openapi/generate.ts           # (npm run gen:openapi)
 *   bash scripts/cluster/with-cluster.sh npx tsx scripts/openapi/generate.ts --check   # fails when out of date
 *
 * It asks the cluster KUBECONFIG points at, through `kubectl get --raw`, for the group-versions of the kit's
 * API kinds (constructs/kit/api-kind.ts), keeps the kinds that can be created there (a POST on a collection
 * path) and the schemas they reach, and leaves out what validation does not read: descriptions, defaults,
 * patch strategies. `allOf: [{$ref}]` becomes the `$ref`, which is the schema's name alone.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as apiKinds from '../../constructs/kit/api-kind';
import type { ApiKind } from '../../constructs/kit/api-kind';

export const OUTPUT = join(__dirname, '..', '..', 'constructs', 'kit', 'validate', 'kubernetes-openapi.json');

/**
 * apiextensions.k8s.io is left out: its one kind, CustomResourceDefinition, is not a child a construct
 * makes, and its schema (JSONSchemaProps, recursive) is a third of the size of all the others.
 */
const LEFT_OUT = new Set(['apiextensions.k8s.io/v1']);

/** The fields of a schema that validation reads; everything else is dropped. */
const KEPT = new Set([
  'type',
  'format',
  'enum',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'nullable',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
]);

const REF_PREFIX = '#/components/schemas/';

type Schema = { [key: string]: unknown };

interface OpenApiDocument {
  paths?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: Schema }> } } }>;
  components?: { schemas?: Record<string, Schema> };
}

/** What the file holds. */
export interface KubernetesOpenApi {
  /** The API server's version, e.g. `v1.36.3`. */
  readonly kubernetes: string;
  /** `<apiVersion> <Kind>` to the name of its schema. */
  readonly kinds: Record<string, string>;
  /** By name; `$ref` holds a name of this map. */
  readonly schemas: Record<string, Schema>;
}

function kubectl(...args: string[]): string {
  return execFileSync('kubectl', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/** The group-versions of the kit's API kinds, in their order. */
function groupVersions(): string[] {
  const kinds = Object.values(apiKinds).filter(
    (v): v is ApiKind => typeof v === 'object' && v !== null && 'apiVersion' in v && 'plural' in v,
  );
  return [...new Set(kinds.map((k) => k.apiVersion))].filter((gv) => !LEFT_OUT.has(gv));
}

/** `schema` stripped down to what validation reads, its references by name. */
function compact(schema: Schema): Schema {
  const allOf = schema.allOf as Schema[] | undefined;
  if (allOf?.length === 1 && typeof allOf[0].$ref === 'string') return compact(allOf[0]);
  if (typeof schema.$ref === 'string') return { $ref: schema.$ref.slice(REF_PREFIX.length) };
  // IntOrString and Quantity: a oneOf of types, told apart by format.
  if (schema.format === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  if (Array.isArray(schema.oneOf)) {
    const types = (schema.oneOf as Schema[]).map((s) => s.type).sort();
    if (types.join() === 'number,string') return { format: 'quantity' };
    throw new Error(`a oneOf of ${types.join(', ')}: not known to the validator`);
  }
  // An object of any fields (RawExtension, FieldsV1): the API server keeps what it holds.
  if (schema.type === 'object' && !schema.properties && !schema.additionalProperties) {
    return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!KEPT.has(key)) continue;
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([p, s]) => [p, compact(s)]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && typeof value === 'object') {
      out[key] = compact(value as Schema);
    } else out[key] = value;
  }
  return out;
}

/** The names of the schemas `schema` refers to, directly. */
function refsOf(schema: unknown, into: string[] = []): string[] {
  if (Array.isArray(schema)) for (const s of schema) refsOf(s, into);
  else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') into.push(value);
      else refsOf(value, into);
    }
  }
  return into;
}

/** The kinds of one group-version that can be created, with their schema names. */
function creatableKinds(apiVersion: string, doc: OpenApiDocument): [string, string][] {
  const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}/` : `/api/${apiVersion}/`;
  const out: [string, string][] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const rest = path.slice(prefix.length);
    // A collection: `<plural>` or `namespaces/{namespace}/<plural>`, not an object or a subresource.
    if (!path.startsWith(prefix) || !/^(namespaces\/\{namespace\}\/)?[a-z0-9]+$/.test(rest)) continue;
    const ref = Object.values(item.post?.requestBody?.content ?? {})[0]?.schema?.$ref;
    if (typeof ref !== 'string') continue;
    const name = ref.slice(REF_PREFIX.length);
    const gvks = (doc.components?.schemas?.[name]?.['x-kubernetes-group-version-kind'] ?? []) as {
      group: string;
      version: string;
      kind: string;
    }[];
    const gvk = gvks.find((g) => (g.group ? `${g.group}/${g.version}` : g.version) === apiVersion);
    if (gvk) out.push([`${apiVersion} ${gvk.kind}`, name]);
  }
  return out;
}

/** The file's content, from the cluster KUBECONFIG points at. */
export function generate(): KubernetesOpenApi {
  const version = (JSON.parse(kubectl('version', '-o', 'json')) as { serverVersion: { gitVersion: string } })
    .serverVersion.gitVersion;
  const kinds: Record<string, string> = {};
  const all: Record<string, Schema> = {};
  for (const apiVersion of groupVersions()) {
    const path = apiVersion.includes('/')
      ? `/openapi/v3/apis/${apiVersion}`
      : `/openapi/v3/api/${apiVersion}`;
    const doc = JSON.parse(kubectl('get', '--raw', path)) as OpenApiDocument;
    for (const [kind, name] of creatableKinds(apiVersion, doc)) kinds[kind] = name;
    Object.assign(all, doc.components?.schemas ?? {});
  }
  const schemas: Record<string, Schema> = {};
  const pending = Object.values(kinds);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (schemas[name]) continue;
    const schema = all[name];
    if (!schema) throw new Error(`no schema ${name}`);
    schemas[name] = compact(schema);
    pending.push(...refsOf(schemas[name]));
  }
  const sorted = <T>(record: Record<string, T>) =>
    Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    );
  return { kubernetes: version, kinds: sorted(kinds), schemas: sorted(schemas) };
}

function main(args: string[]): number {
  const text = `${JSON.stringify(generate())}\n`;
  if (args.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OUTPUT, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (current === text) return 0;
    process.stderr.write(`${OUTPUT} is out of date: run npm run gen:openapi\n`);
    return 1;
  }
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${OUTPUT}: ${text.length} bytes\n`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
