/**
 * The dev loop's gate: the project's TypeScript checking it in watch mode. A real TypeScript (this
 * repository's) on a project of its own in a temporary folder: a first check, a save with a type error (its
 * file, line and column), and a save that fixes it.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectTypeScript, watchTypes, type CheckResult } from '../../../cli/dev/typecheck';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dev-typecheck-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['src'] }),
  );
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const replicas: number = 1;\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The results of the checks, as they come; `next()` waits for the following one. */
function results(ts: ReturnType<typeof projectTypeScript>) {
  if (typeof ts === 'string') throw new Error(ts);
  const seen: CheckResult[] = [];
  let wake: (() => void) | undefined;
  let starts = 0;
  const watcher = watchTypes(ts, join(dir, 'tsconfig.json'), dir, {
    onStart: () => starts++,
    onResult: (r) => {
      seen.push(r);
      wake?.();
    },
  });
  const next = async (n: number) => {
    while (seen.length < n) await new Promise<void>((resolve) => (wake = resolve));
    return seen[n - 1];
  };
  return { next, close: () => watcher.close(), starts: () => starts };
}

describe('watchTypes', () => {
  it('checks at once, then on each save: errors with file, line and column, then none', async () => {
    const checks = results(projectTypeScript(process.cwd()));
    try {
      expect((await checks.next(1)).errors).toEqual([]);
      writeFileSync(
        join(dir, 'src', 'a.ts'),
        "export const replicas: number = 1;\nexport const port: number = 'x';\n",
      );
      const broken = await checks.next(2);
      expect(broken.errors).toHaveLength(1);
      expect(broken.errors[0]).toMatch(
        /^src\/a\.ts:2:14 - error TS2322: Type 'string' is not assignable to type 'number'\./,
      );
      writeFileSync(join(dir, 'src', 'a.ts'), 'export const replicas: number = 2;\n');
      expect((await checks.next(3)).errors).toEqual([]);
      expect(checks.starts()).toBe(3);
    } finally {
      checks.close();
    }
  }, 30_000);
});

describe('projectTypeScript', () => {
  it('says how to add TypeScript to a project that has none', () => {
    expect(projectTypeScript('/')).toBe(
      'needs TypeScript in the project to check it: npm install --save-dev typescript',
    );
  });
});
