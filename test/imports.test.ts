/**
 * No two files import each other, directly or around a loop: a circle makes the load order decide what a
 * module sees (an import that is still undefined), and it is usually a type or a helper living in the
 * wrong file. Every relative import of every .ts file counts, type-only ones, re-exports, `require` and
 * `import()` too (a late import is a circle hidden, not broken).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..');
/** Not the repository's own code: dependencies, build output, the local cluster's files. */
const SKIP = new Set(['node_modules', 'dist', 'coverage', '.cluster', '.git']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The .ts file a relative specifier names (`./kind`, `../kit`, `./kit/index`), or undefined. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Each file's relative imports (what the TypeScript compiler's pre-pass reads, comments and strings aside). */
function importGraph(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .filter(({ fileName }) => fileName.startsWith('.'))
        .map(({ fileName }) => resolveSpecifier(file, fileName))
        .filter((target): target is string => target !== undefined);
      return [file, [...new Set(targets)]];
    }),
  );
}

/** One loop of imports per circle, `a -> b -> a`: depth-first, a back edge closes a loop. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string) => {
    path.push(file);
    onPath.add(file);
    for (const next of graph.get(file) ?? []) {
      if (onPath.has(next)) found.push([...path.slice(path.indexOf(next)), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return found;
}

it('finds a circle where there is one', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts', 'd.ts']],
    ['d.ts', []],
  ]);
  expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  expect(circles(new Map([['a.ts', ['a.ts']]]))).toEqual([['a.ts', 'a.ts']]);
  expect(circles(new Map([['a.ts', ['b.ts']]]))).toEqual([]);
});

it('has no circle of imports among its .ts files', () => {
  const graph = importGraph(sources(ROOT));
  expect(graph.size).toBeGreaterThan(100);
  const named = circles(graph).map((loop) => loop.map((file) => relative(ROOT, file)).join(' -> '));
  expect(named).toEqual([]);
});
