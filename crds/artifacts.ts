/**
 * Everything derived from the CRD definitions in crds/*.ts: the YAML files and the TypeScript types of
 * the specs and statuses. `npm run gen` writes them; test/crds/artifacts.test.ts fails when they drift.
 */
import { compile } from 'json-schema-to-typescript';
import * as prettier from 'prettier';
import { crds } from './index';
import type { JSONSchemaProps } from './schema';
import { crdFileName, crdToYaml } from './yaml';

export const TYPES_FILE = 'types.generated.ts';

/** Rewrites Kubernetes schema extensions into plain JSON Schema that the type generator understands. */
function toJsonSchema(schema: JSONSchemaProps): Record<string, unknown> {
  if (schema['x-kubernetes-int-or-string']) {
    return { tsType: 'number | string', ...(schema.description ? { description: schema.description } : {}) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-') || key === 'default' || key === 'format') continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JSONSchemaProps>).map(([k, v]) => [k, toJsonSchema(v)]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && typeof value === 'object') {
      out[key] = toJsonSchema(value as JSONSchemaProps);
    } else {
      out[key] = value;
    }
  }
  if (schema.type === 'object' && schema.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

async function renderTypes(): Promise<string> {
  const parts = ['// Generated from crds/*.ts by `npm run gen`. Do not edit.\n'];
  for (const crd of crds) {
    const kind = crd.spec.names.kind;
    const root = crd.spec.versions[0].schema.openAPIV3Schema.properties ?? {};
    for (const [part, schema] of [
      ['Spec', root.spec],
      ['Status', root.status],
    ] as const) {
      if (!schema) continue;
      const ts = await compile(toJsonSchema(schema), `${kind}${part}`, {
        bannerComment: '',
        additionalProperties: false,
        format: false,
        strictIndexSignatures: false,
        ignoreMinAndMaxItems: true,
      });
      parts.push(ts);
    }
  }
  const config = await prettier.resolveConfig(__filename);
  return prettier.format(parts.join('\n'), { ...config, parser: 'typescript' });
}

/** File name (relative to crds/) to content, for every generated artefact. */
export async function renderArtifacts(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const crd of crds) files.set(crdFileName(crd), crdToYaml(crd));
  files.set(TYPES_FILE, await renderTypes());
  return files;
}
