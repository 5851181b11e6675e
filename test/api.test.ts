/**
 * The package's exported API is deliberate: every name the entry point exports is listed in docs/API.md,
 * and every name listed there is exported. Read with the TypeScript compiler, so types count too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { repositoryOptions, withoutClientNodeTypes } from './support/ts-program';

const ROOT = join(__dirname, '..');

const options = { ...repositoryOptions(), noEmit: true };
/** One program for both entry points: most of their files are the same, read and checked once. */
const program = ts.createProgram(
  ['index.ts', 'testing/index.ts'].map((file) => join(ROOT, file)),
  options,
  withoutClientNodeTypes(ts.createCompilerHost(options)),
);

function exportedNames(file: string): string[] {
  const entry = join(ROOT, file);
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!);
  return checker.getExportsOfModule(module!).map((s) => s.name);
}

const TESTING = '## `cdk8s-reconstruct/testing`';

/**
 * Every `name` in backticks in the first column of the tables of docs/API.md: those of the main entry
 * point before the testing section, those of `cdk8s-reconstruct/testing` in it (the CLI section is prose).
 */
function documentedNames(entry: 'main' | 'testing'): string[] {
  const [main, rest] = readFileSync(join(ROOT, 'docs/API.md'), 'utf8').split('## The CLI')[0].split(TESTING);
  const text = entry === 'main' ? main : rest;
  return [...text.matchAll(/^\|([^|]*)\|.*\|$/gm)].flatMap((row) =>
    [...row[1].matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]),
  );
}

describe.each([
  ['main', 'index.ts'],
  ['testing', 'testing/index.ts'],
] as const)('the exported API of the %s entry point (docs/API.md)', (entry, file) => {
  const exported = new Set(exportedNames(file));
  const documented = new Set(documentedNames(entry));

  it('documents every export', () => {
    expect([...exported].filter((n) => !documented.has(n)).sort()).toEqual([]);
  });

  it('exports everything it documents', () => {
    expect([...documented].filter((n) => !exported.has(n)).sort()).toEqual([]);
  });
});
