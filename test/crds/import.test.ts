/**
 * The CRDs as a cdk8s user consumes them: `cdk8s import` of each generates typed classes, with no field
 * left as `any` (an int-or-string field without `anyOf` would be); of a kind with several versions, a class
 * per version.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { toYaml } from '../../synth/yaml';
import { bannerKind } from '../fixtures/kinds/versioned';

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

const ROOT = join(__dirname, '../..');
const CRDS = join(ROOT, 'crds');

describe.each(readdirSync(CRDS).filter((f) => f.endsWith('.yaml')))('cdk8s import crds/%s', (file) => {
  let out: string;
  let code: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'import-'));
    const run = spawnSync(
      join(ROOT, 'node_modules/.bin/cdk8s'),
      ['import', join(CRDS, file), '--language', 'typescript', '--output', out],
      { cwd: out, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status).toBe(0);
    code = readdirSync(out)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(join(out, f), 'utf8'))
      .join('\n');
  }, 60_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('types every field: none is `any`, except core types passed through as written', () => {
    expect(code).toMatch(/export class \w+ extends ApiObject/);
    // x-kubernetes-preserve-unknown-fields: the CRD says "any fields", so the import says `any`.
    const passedThrough = new Set<string>();
    const walk = (schema: Schema, name: string) => {
      if (schema['x-kubernetes-preserve-unknown-fields'] === true && !schema.properties)
        passedThrough.add(name);
      for (const [child, s] of Object.entries(schema.properties ?? {})) walk(s, child);
      if (schema.items) walk(schema.items, name);
    };
    const crd = parse(readFileSync(join(CRDS, file), 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
    };
    walk(crd.spec.versions[0].schema.openAPIV3Schema, '');
    const untyped = code
      .split('\n')
      .map((line) => /readonly (\w+)\??: any;/.exec(line)?.[1])
      .filter((name) => name !== undefined && !passedThrough.has(name));
    expect(untyped).toEqual([]);
  });
});

describe('cdk8s import of a CRD with several versions (Banner: v1beta1, the hub, and v1alpha1)', () => {
  it('makes a class per version: the first the CRD lists unsuffixed, the others suffixed with the version', () => {
    const out = mkdtempSync(join(tmpdir(), 'import-'));
    try {
      const file = join(out, 'banners.yaml');
      writeFileSync(file, toYaml(bannerKind.crd));
      const run = spawnSync(
        join(ROOT, 'node_modules/.bin/cdk8s'),
        ['import', file, '--language', 'typescript', '--output', out],
        { cwd: out, encoding: 'utf8', timeout: 60_000 },
      );
      expect(run.status).toBe(0);
      const code = readdirSync(out)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(join(out, f), 'utf8'))
        .join('\n');
      const classes = [
        ...code.matchAll(/export class (\w+) extends ApiObject \{[^}]*?apiVersion: '([^']+)'/g),
      ].map(([, name, apiVersion]) => [name, apiVersion]);
      expect(classes).toEqual([
        ['Banner', 'versions.example.com/v1beta1'],
        ['BannerV1Alpha1', 'versions.example.com/v1alpha1'],
      ]);
      // Each with its own version's spec: v1alpha1's text, v1beta1's message.
      expect(code).toMatch(/export interface BannerSpec \{[^}]*readonly message: string;/);
      expect(code).toMatch(/export interface BannerV1Alpha1Spec \{[^}]*readonly text: string;/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
