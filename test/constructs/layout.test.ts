/**
 * A kind is one definition in one folder: everything outside constructs/<kind>/ takes a list of kinds and
 * names none. Code lines (not comments) of the shared layers must not mention a built-in kind.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { builtinKinds } from '../../constructs';
import { kebabCase } from '../../synth/artifacts';
import { sampleFile } from '../fixtures/resources';

const ROOT = join(__dirname, '../..');
const SHARED = ['index.ts', 'cli', 'controller', 'synth', 'testing', 'constructs/kit'];

function sources(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full).flatMap((entry) => sources(join(path, entry)));
}

/** The lines of a TypeScript file that are code, not comments. */
function codeLines(file: string): { line: number; text: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((text, i) => ({ line: i + 1, text: text.replace(/\/\/.*$/, '') }))
    .filter(({ text }) => !/^\s*(\*|\/\*\*|\/\*)/.test(text) && text.trim() !== '');
}

describe.each(builtinKinds.map((k) => [k.kind, k] as const))('the built-in kind %s', (_name, kind) => {
  const folder = join(ROOT, 'constructs', kebabCase(kind.typeName));

  it('lives in one folder: its definition, schema, construct and generated types', () => {
    for (const file of ['index.ts', 'schema.ts', 'types.generated.ts']) {
      expect(existsSync(join(folder, file))).toBe(true);
    }
  });

  it('has a sample and a test of its own', () => {
    expect(existsSync(sampleFile(kind))).toBe(true);
    expect(existsSync(join(ROOT, 'test/constructs', `${kebabCase(kind.typeName)}.test.ts`))).toBe(true);
  });

  it('is named by no code in the shared layers (cli, controller, synth, the kit)', () => {
    // Whole words: `LoadBalancer` is not the Balancer kind.
    // A kind named like an API word (`Cluster`, a CRD's scope) is looked for by its type name instead.
    const API_WORDS = new Set(['Cluster', 'Namespaced']);
    const words = [API_WORDS.has(kind.kind) ? kind.typeName : kind.kind, kind.plural, kind.group];
    const names = words.map(
      (n) => new RegExp(`(^|[^A-Za-z0-9_])${n.replace(/\./g, '\\.')}($|[^A-Za-z0-9_])`),
    );
    const mentions = SHARED.flatMap(sources)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((file) =>
        codeLines(file)
          .filter(({ text }) => names.some((n) => n.test(text)))
          .map(({ line, text }) => `${relative(ROOT, file)}:${line}: ${text.trim()}`),
      );
    expect(mentions).toEqual([]);
  });
});
