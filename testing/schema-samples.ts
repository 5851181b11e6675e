/**
 * Random objects of a CRD version's schema, for property tests: a seeded generator (the same seed gives the
 * same objects, so a failure reproduces) that follows types, enums, bounds, required and optional fields
 * and list and map sizes. What it makes is then checked by the API server's rules (validateResource, CEL
 * included) and kept only when valid, with the schema's defaults applied, as the API server stores it.
 */
import RandExp from 'randexp';
import type { CustomResource } from '../constructs/kit/resource';
import type { CustomResourceDefinition, JSONSchemaProps } from '../constructs/kit/schema';
import { validateResource } from '../constructs/kit/validate';

/** A tiny seeded PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

class Sampler {
  constructor(private readonly random: () => number) {}

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }

  value(schema: JSONSchemaProps, depth: number): unknown {
    if (schema.enum?.length) return this.pick(schema.enum);
    if (schema['x-kubernetes-int-or-string']) {
      return this.random() < 0.5 ? this.int(0, 100) : `${this.int(0, 100)}%`;
    }
    switch (schema.type) {
      case 'object':
        return this.object(schema, depth);
      case 'array': {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? min + 3, min + 3);
        const items = schema.items ?? {};
        return Array.from({ length: this.int(min, max) }, () => this.value(items, depth + 1));
      }
      case 'string':
        return this.string(schema);
      case 'integer':
        return this.int(schema.minimum ?? 0, schema.maximum ?? Math.max(10, (schema.minimum ?? 0) + 10));
      case 'number':
        return this.int(schema.minimum ?? 0, schema.maximum ?? 10) + this.pick([0, 0.5]);
      case 'boolean':
        return this.random() < 0.5;
      default:
        return {};
    }
  }

  private object(schema: JSONSchemaProps, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required = new Set(schema.required ?? []);
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      // Optional fields: about half, fewer deeper down, so that objects stay small.
      if (required.has(key) || this.random() < 0.6 / (depth + 1)) out[key] = this.value(child, depth + 1);
    }
    const extra = schema.additionalProperties;
    if (typeof extra === 'object' && !schema.properties) {
      for (let i = this.int(schema.minProperties ?? 0, Math.min(schema.maxProperties ?? 2, 2)); i > 0; i--) {
        out[this.word(1, 8)] = this.value(extra, depth + 1);
      }
    }
    return out;
  }

  private string(schema: JSONSchemaProps): string {
    const min = schema.minLength ?? 1;
    const max = Math.min(schema.maxLength ?? min + 10, min + 10);
    const formatted = schema.format ? this.formatted(schema.format) : undefined;
    if (formatted !== undefined) return formatted;
    if (!schema.pattern) return this.word(min, max);
    // A string the pattern matches (randexp, driven by our seeded generator), within the length bounds when
    // a few tries find one; else the last, left to validation to throw out.
    const generator = new RandExp(schema.pattern);
    generator.max = Math.max(max, 4);
    generator.randInt = (a, b) => this.int(a, b);
    let candidate = '';
    for (let i = 0; i < 20; i++) {
      candidate = generator.gen();
      if (candidate.length >= min && candidate.length <= (schema.maxLength ?? Infinity)) return candidate;
    }
    return candidate;
  }

  /** A value of the string formats the API server checks; undefined for one it does not know. */
  private formatted(format: string): string | undefined {
    const byte = () => this.int(0, 255);
    const hex = (n: number) => Array.from({ length: n }, () => this.int(0, 15).toString(16)).join('');
    switch (format) {
      case 'date-time':
        return new Date(this.int(0, 2e9) * 1000).toISOString();
      case 'date':
        return new Date(this.int(0, 2e9) * 1000).toISOString().slice(0, 10);
      case 'duration':
        return `${this.int(1, 59)}${this.pick(['s', 'm', 'h'])}`;
      case 'ipv4':
        return [byte(), byte(), byte(), byte()].join('.');
      case 'ipv6':
        return Array.from({ length: 8 }, () => hex(4)).join(':');
      case 'cidr':
        return `${[byte(), byte(), byte(), 0].join('.')}/${this.int(8, 32)}`;
      case 'hostname':
        return `${this.word(1, 8)}.${this.word(1, 8)}.example`;
      case 'email':
        return `${this.word(1, 8)}@${this.word(1, 8)}.example`;
      case 'uri':
        return `https://${this.word(1, 8)}.example/${this.word(1, 8)}`;
      case 'uuid':
        return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
      case 'mac':
        return Array.from({ length: 6 }, () => hex(2)).join(':');
      case 'byte':
        return Buffer.from(this.word(1, 12)).toString('base64');
      default:
        return undefined;
    }
  }

  private word(min: number, max: number): string {
    const length = this.int(min, max);
    let word = '';
    for (let i = 0; i < length; i++) word += ALPHABET[this.int(0, ALPHABET.length - 1)];
    return word;
  }
}

/**
 * `count` valid objects of `version` of the CRD (spec, and status when the version has one), each as the
 * API server would store it (defaults applied). Throws when the schema lets it make fewer than a tenth of
 * them valid, naming the version and the last error.
 */
export function sampleResources(
  crd: CustomResourceDefinition,
  version: string,
  count: number,
  random: () => number,
): CustomResource[] {
  const entry = crd.spec.versions.find((v) => v.name === version);
  if (!entry) throw new Error(`${crd.metadata.name} has no version ${version}`);
  const properties = entry.schema.openAPIV3Schema.properties ?? {};
  const sampler = new Sampler(random);
  const out: CustomResource[] = [];
  let lastError = '';
  for (let attempt = 0; out.length < count && attempt < count * 10; attempt++) {
    const status = sampler.value(properties.status ?? {}, 0) as Record<string, unknown>;
    // The kit's status fields are the same in every version: not what a conversion is tested on.
    delete status.conditions;
    const candidate = {
      apiVersion: `${crd.spec.group}/${version}`,
      kind: crd.spec.names.kind,
      metadata: {
        name: `sample-${attempt}`,
        ...(crd.spec.scope === 'Namespaced' ? { namespace: 'default' } : {}),
      },
      spec: sampler.value(properties.spec ?? {}, 0),
      ...(Object.keys(status).length > 0 ? { status } : {}),
    };
    const { object, errors } = validateResource(crd, candidate);
    if (errors.length === 0) out.push(object as unknown as CustomResource);
    else lastError = `${errors[0].field}: ${errors[0].message}`;
  }
  if (out.length < count / 10) {
    throw new Error(
      `could make only ${out.length} valid ${version} objects of ${count} (last: ${lastError})`,
    );
  }
  return out;
}
