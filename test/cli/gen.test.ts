import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reconstruct } from '../support/node-ts';
import { compileSnippets } from '../support/snippets';

const ROOT = join(__dirname, '../..');
const TYPES = 'constructs/{kind}/types.generated.ts';
const FIXTURES = join(__dirname, '../fixtures/kinds');

/** `reconstruct gen --check` as `npm run gen` would run it, in `cwd`. */
function check(cwd = ROOT): { status: number | null; stderr: string } {
  const run = reconstruct(['gen', '--check', '--crds', 'crds', '--types', TYPES], { cwd });
  return { status: run.status, stderr: run.stderr };
}

/** A copy of the parts of the repository gen reads and writes. */
function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gen-'));
  for (const part of ['crds', 'constructs']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  return dir;
}

describe('generated artefacts (crds/*.yaml, constructs/<kind>/types.generated.ts)', () => {
  it('are up to date with the kind definitions', () => {
    const { status, stderr } = check();
    expect(stderr).not.toMatch(/out of date|no definition/);
    expect(status).toBe(0);
  });

  // One copy and one run for the three (each run of the CLI loads every kind): each is reported on its own.
  it('reports a CRD and types edited by hand and a generated CRD whose kind is gone; leaves files it did not write alone', () => {
    const dir = copy();
    try {
      const edit = (file: string, from: string, to: string) => {
        const path = join(dir, file);
        const before = readFileSync(path, 'utf8');
        expect(before).toContain(from);
        writeFileSync(path, before.replace(from, to));
      };
      edit('crds/cache.example.com_memcacheds.yaml', 'minimum: 0', 'minimum: 1');
      edit('constructs/memcached/types.generated.ts', 'size: number', 'size: string');
      const mark = readFileSync(join(dir, 'crds/cache.example.com_memcacheds.yaml'), 'utf8').split('\n')[0];
      writeFileSync(join(dir, 'crds/example.com_gones.yaml'), `${mark}\nkind: CustomResourceDefinition\n`);
      writeFileSync(join(dir, 'crds/mine.yaml'), 'kind: ConfigMap\n');
      const { status, stderr } = check(dir);
      expect(stderr).toContain('crds/cache.example.com_memcacheds.yaml is out of date');
      expect(stderr).toContain('constructs/memcached/types.generated.ts is out of date');
      expect(stderr).toContain('crds/example.com_gones.yaml has no definition');
      expect(stderr).not.toContain('mine.yaml');
      expect(status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * `reconstruct gen --types` of the kinds of `module` (a path), in a node of its own as `check` (the type
 * generator's formatter imports dynamically, which jest's module loader does not): the types file written.
 */
function genTypes(module: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gen-types-'));
  try {
    const file = join(dir, 'types.ts');
    const run = reconstruct(['gen', '--kinds', module, '--crds', dir, '--types', file], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The names a generated module exports, in order. */
const exported = (code: string) => [...code.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);

/** The TypeScript errors of `code`, compiled as a module of test/cli against the repository's sources. */
function errorsOf(code: string): string[] {
  const block = { doc: 'generated-types', lang: 'ts', line: 1, heading: '', code };
  return compileSnippets([block], () => 'test/cli')[0].errors;
}

describe('reconstruct gen --types of a kind with several versions (Banner: v1beta1, the hub, and v1alpha1)', () => {
  let types: string;
  beforeAll(() => {
    types = genTypes(join(FIXTURES, 'versioned.ts'));
  }, 30_000);

  it("names each version's types with the version; the hub's keep their names and get versioned aliases", () => {
    expect(exported(types)).toEqual([
      'BannerSpec',
      'BannerSpecWithDefaults',
      'BannerStatus',
      'BannerV1beta1Spec',
      'BannerV1beta1SpecWithDefaults',
      'BannerV1beta1Status',
      'BannerV1alpha1Spec',
      'BannerV1alpha1SpecWithDefaults',
      'BannerV1alpha1Status',
    ]);
    expect(types).toContain('export type BannerV1beta1Spec = BannerSpec;');
    expect(types).toContain('export type BannerV1beta1SpecWithDefaults = BannerSpecWithDefaults;');
    expect(types).toContain('export type BannerV1beta1Status = BannerStatus;');
  });

  it("compiles, each version's types saying what its own schema says", () => {
    const checks = `
      import type * as hand from '../fixtures/kinds/versioned';
      const beta: BannerV1beta1SpecWithDefaults = { message: 'hi', style: 'formal', replicas: 2 };
      const alpha: BannerV1alpha1SpecWithDefaults = { text: 'hi', formal: false, color: 'red' };
      const alphaStatus: BannerV1alpha1Status = { up: true, conditions: [] };
      const betaStatus: BannerV1beta1Status = { readyReplicas: 1 };
      // @ts-expect-error v1alpha1 has no message
      const noMessage: BannerV1alpha1Spec = { message: 'hi' };
      // @ts-expect-error formal has a default: with the defaults it is there
      const noFormal: BannerV1alpha1SpecWithDefaults = { text: 'hi' };
      // @ts-expect-error color is one of red, green, blue
      const pink: BannerV1alpha1Spec = { text: 'hi', color: 'pink' };
      // What the fixture writes by hand, the generated types are.
      const asHand: [hand.BannerV1alpha1Spec, hand.BannerV1alpha1Status, hand.BannerSpec] = [alpha, alphaStatus, beta];
      export { betaStatus, noMessage, noFormal, pink, asHand };
    `;
    expect(errorsOf(`${types}\n${checks}`)).toEqual([]);
  }, 60_000);

  it("leaves the hub's types as the kind with one version generates them", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gen-one-'));
    try {
      const module = join(dir, 'banner-one.ts');
      // Banner as it was before v1alpha1: the same definition without its versions.
      writeFileSync(
        module,
        `import { CONFIG_MAP, defineKind } from '${join(ROOT, 'index')}';
        import { Banner, bannerKind } from '${join(FIXTURES, 'versioned')}';
        const { apiVersion, kind, plural, schema } = bannerKind;
        export const kinds = [defineKind({ apiVersion, kind, plural, schema, construct: Banner, children: [CONFIG_MAP] })];
        `,
      );
      const alone = genTypes(module);
      expect(exported(alone)).toEqual(['BannerSpec', 'BannerSpecWithDefaults', 'BannerStatus']);
      expect(types.startsWith(alone)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('reconstruct gen --types of a kind with one version', () => {
  it('writes its three types and no versioned names', () => {
    expect(exported(genTypes(join(FIXTURES, 'greeting.ts')))).toEqual([
      'GreetingSpec',
      'GreetingSpecWithDefaults',
      'GreetingStatus',
    ]);
  }, 30_000);
});
