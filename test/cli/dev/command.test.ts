/**
 * `reconstruct dev` as a user starts it where it cannot run: one line that says what to do, exit status 2,
 * and no cluster started.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reconstruct } from '../../support/node-ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'dev-command-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('reconstruct dev', () => {
  it('outside a project: says to run it in one, or to name the kinds module', () => {
    const run = reconstruct(['dev'], { cwd: dir, timeout: 60_000 });
    expect(run.stderr).toBe(
      'reconstruct dev: no src/kinds.ts here: run it in a project reconstruct init made, or give --kinds MODULE\n',
    );
    expect(run.status).toBe(2);
    expect(existsSync(join(dir, '.cluster'))).toBe(false);
  });

  it('refuses an --inspect that is not [HOST:]PORT', () => {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'kinds.ts'), 'export const kinds = [];\n');
    const run = reconstruct(['dev', '--inspect=nine'], { cwd: dir, timeout: 60_000 });
    expect(run.stderr).toBe('reconstruct dev: --inspect=nine: give [HOST:]PORT\n');
    expect(run.status).toBe(2);
  });
});
