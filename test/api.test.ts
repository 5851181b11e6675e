/**
 * The package's exported API is deliberate: every name the entry point exports is listed in docs/API.md,
 * and every name listed there is exported. Read with the TypeScript compiler, so types count too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..');

function exportedNames(): string[] {
  const entry = join(ROOT, 'index.ts');
  const program = ts.createProgram([entry], {
    strict: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!);
  return checker.getExportsOfModule(module!).map((s) => s.name);
}

/** Every `name` in backticks in the first column of the tables of docs/API.md (the CLI section is prose). */
function documentedNames(): string[] {
  const text = readFileSync(join(ROOT, 'docs/API.md'), 'utf8').split('## The CLI')[0];
  return [...text.matchAll(/^\|([^|]*)\|.*\|$/gm)].flatMap((row) =>
    [...row[1].matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]),
  );
}

describe('the exported API (docs/API.md)', () => {
  const exported = new Set(exportedNames());
  const documented = new Set(documentedNames());

  it('documents every export', () => {
    expect([...exported].filter((n) => !documented.has(n)).sort()).toEqual([]);
  });

  it('exports everything it documents', () => {
    expect([...documented].filter((n) => !exported.has(n)).sort()).toEqual([]);
  });
});
