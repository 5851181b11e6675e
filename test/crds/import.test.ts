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
const FILES = readdirSync(CRDS).filter((f) => f.endsWith('.yaml'));

/**
 * Every CRD, crds/*.yaml and Banner's, imported at once as a user imports a bundle of CRDs: one run of the
 * CLI instead of one each (about 1.5 s of CPU apiece), each group's classes in a file of its own, the same
 * as an import of the group's CRD alone writes.
 */
let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'import-'));
  const bundle = join(out, 'crds.yaml');
  const crds = FILES.map((file) => readFileSync(join(CRDS, file), 'utf8'));
  writeFileSync(bundle, [...crds, toYaml(bannerKind.crd)].join('---\n'));
  // --no-check-upgrade: no look on the network for a newer cdk8s-cli.
  const run = spawnSync(
    join(ROOT, 'node_modules/.bin/cdk8s'),
    ['import', bundle, '--language', 'typescript', '--output', out, '--no-check-upgrade'],
    { cwd: out, encoding: 'utf8', timeout: 60_000 },
  );
  expect(run.status).toBe(0);
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The classes the import wrote for the CRDs of `group`. */
const importedFor = (group: string) => readFileSync(join(out, `${group}.ts`), 'utf8');

describe.each(FILES)('cdk8s import crds/%s', (file) => {
  const crd = parse(readFileSync(join(CRDS, file), 'utf8')) as {
    spec: { group: string; versions: { schema: { openAPIV3Schema: Schema } }[] };
  };

  it('types every field: none is `any`, except core types passed through as written', () => {
    const code = importedFor(crd.spec.group);
    expect(code).toMatch(/export class \w+ extends ApiObject/);
    // x-kubernetes-preserve-unknown-fields: the CRD says "any fields", so the import says `any`.
    const passedThrough = new Set<string>();
    const walk = (schema: Schema, name: string) => {
      if (schema['x-kubernetes-preserve-unknown-fields'] === true && !schema.properties)
        passedThrough.add(name);
      for (const [child, s] of Object.entries(schema.properties ?? {})) walk(s, child);
      if (schema.items) walk(schema.items, name);
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
    const code = importedFor(bannerKind.crd.spec.group);
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
  });
});
