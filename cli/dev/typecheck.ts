/**
 * The dev loop's gate: the project's own TypeScript (its `typescript` package and tsconfig.json) checking
 * the project in watch mode, as `tsc --noEmit --watch` does, incrementally (a save re-checks what it
 * touches). Each check ends in a result: the errors, each with its file, line and column.
 */
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import type * as TS from 'typescript';

type TypeScript = typeof TS;

/** One finished check. */
export interface CheckResult {
  /** `src/web-app/web-app.ts:12:7 - error TS2322: ...`, relative to the project. */
  readonly errors: readonly string[];
}

/** The project's TypeScript, or the line that says how to add it. */
export function projectTypeScript(projectDir: string): TypeScript | string {
  try {
    const path = require.resolve('typescript', { paths: [projectDir] });
    return createRequire(__filename)(path) as TypeScript;
  } catch {
    return `needs TypeScript in the project to check it: npm install --save-dev typescript`;
  }
}

/** A diagnostic as tsc prints it, its file relative to the project. */
export function formatDiagnostic(ts: TypeScript, d: TS.Diagnostic, projectDir: string): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const category = ts.DiagnosticCategory[d.category].toLowerCase();
  if (!d.file || d.start === undefined) return `${category} TS${d.code}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${relative(projectDir, d.file.fileName)}:${line + 1}:${character + 1} - ${category} TS${d.code}: ${text}`;
}

/** tsc's watch status codes: a check starts (first, or on a change). */
const STARTING = new Set([6031, 6032]);

/**
 * Checks the project of `tsconfig` now and again on every change of its files; `onResult` after each check.
 * Emits nothing (noEmit): the running build is loaded from the sources, not from tsc's output.
 */
export function watchTypes(
  ts: TypeScript,
  tsconfig: string,
  projectDir: string,
  handlers: { onStart(): void; onResult(result: CheckResult): void },
): { close(): void } {
  let errors: string[] = [];
  const host = ts.createWatchCompilerHost(
    tsconfig,
    { noEmit: true },
    ts.sys,
    ts.createSemanticDiagnosticsBuilderProgram,
    (d) => {
      if (d.category === ts.DiagnosticCategory.Error) errors.push(formatDiagnostic(ts, d, projectDir));
    },
    (d, _newLine, _options, errorCount) => {
      if (STARTING.has(d.code)) {
        errors = [];
        handlers.onStart();
      } else if (errorCount !== undefined) {
        handlers.onResult({ errors });
      }
    },
  );
  const program = ts.createWatchProgram(host);
  return { close: () => program.close() };
}
