import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { transpileModule } from 'typescript';

const ROOT = join(__dirname, '../..');

export interface CompiledModule {
  /** The compiled CommonJS file. */
  readonly file: string;
  /** Removes it and its directory (afterAll). */
  remove(): void;
}

/**
 * A module of the repository (a path from its root) compiled to CommonJS in a directory of its own, for a
 * test that runs it in a node of its own: jest's module loader bypasses require hooks, and its tests share
 * one V8. The module may import node's own modules and packages, not other files of the repository.
 */
export function compileApart(source: string): CompiledModule {
  const dir = mkdtempSync(join(tmpdir(), 'reconstruct-apart-'));
  const file = join(dir, basename(source).replace(/\.ts$/, '.js'));
  const code = readFileSync(join(ROOT, source), 'utf8');
  writeFileSync(file, transpileModule(code, { compilerOptions: { module: 1 /* CommonJS */ } }).outputText);
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
