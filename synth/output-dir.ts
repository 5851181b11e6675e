/**
 * Writing a render into a folder so that a re-render leaves no stale files and nothing half-written:
 * every file is written beside its place and renamed into it (a reader sees the old file or the new one,
 * whole); the files an earlier render wrote and this one does not are removed; files the renderer did not
 * write (a kustomization.yaml, a README) are left alone. The folder's `.reconstruct-rendered` lists what
 * the last render wrote.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The list of the files the last render wrote into a folder, one name a line. */
export const RENDERED_LIST = '.reconstruct-rendered';

const plainName = (name: string) => name !== '' && !name.includes('/') && !name.startsWith('.');

/** The files an earlier render listed, leaving out any line that is not a plain file name of ours. */
function previousFiles(dir: string): string[] {
  const list = join(dir, RENDERED_LIST);
  if (!existsSync(list)) return [];
  return readFileSync(list, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(plainName);
}

/**
 * Replaces the earlier render in `dir` with `files` (name -> content). Returns the names it removed.
 * Throws (before renaming anything into place) when a file cannot be written.
 */
export function writeOutputDir(dir: string, files: ReadonlyMap<string, string>): { removed: string[] } {
  for (const name of files.keys()) {
    if (!plainName(name)) throw new Error(`not a plain file name: ${name}`);
  }
  mkdirSync(dir, { recursive: true });
  const previous = previousFiles(dir);
  const suffix = `.tmp-${process.pid}`;
  const staged: [string, string][] = [];
  try {
    for (const [name, content] of files) {
      const temp = join(dir, `.${name}${suffix}`);
      writeFileSync(temp, content);
      staged.push([temp, join(dir, name)]);
    }
  } catch (err) {
    for (const [temp] of staged) rmSync(temp, { force: true });
    throw err;
  }
  for (const [temp, target] of staged) renameSync(temp, target);
  const removed = previous.filter((name) => !files.has(name));
  for (const name of removed) rmSync(join(dir, name), { force: true });
  const list = join(dir, `${RENDERED_LIST}${suffix}`);
  writeFileSync(
    list,
    [...files.keys()]
      .sort()
      .map((n) => `${n}\n`)
      .join(''),
  );
  renameSync(list, join(dir, RENDERED_LIST));
  return { removed };
}
