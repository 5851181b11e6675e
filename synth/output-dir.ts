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
const RENDERED_LIST = '.reconstruct-rendered';

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
 * A render into `dir`, written file by file as the resources are rendered: each file goes beside its
 * place at once (nothing of it stays in memory) and `commit` renames them all into place, or `abort`
 * removes them. Only the names are kept, to report a second output of the same name and to list them.
 */
export class OutputDir {
  private readonly suffix = `.tmp-${process.pid}`;
  /** The files written so far: name -> what it was written for. */
  private readonly written = new Map<string, string>();

  /** Creates `dir` when missing; throws when it cannot. */
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** What an earlier `write` of `name` was for, if there was one. */
  writtenFor(name: string): string | undefined {
    return this.written.get(name);
  }

  get size(): number {
    return this.written.size;
  }

  /** Writes `content` beside its place, as `name`, for `what` (said when a later output has the same name). */
  write(name: string, content: string, what: string): void {
    if (!plainName(name)) throw new Error(`not a plain file name: ${name}`);
    writeFileSync(this.temp(name), content);
    this.written.set(name, what);
  }

  /** Renames every file written into place and removes the files of the earlier render this one did not write. */
  commit(): { removed: string[] } {
    const previous = previousFiles(this.dir);
    for (const name of this.written.keys()) renameSync(this.temp(name), join(this.dir, name));
    const removed = previous.filter((name) => !this.written.has(name));
    for (const name of removed) rmSync(join(this.dir, name), { force: true });
    const list = join(this.dir, `${RENDERED_LIST}${this.suffix}`);
    writeFileSync(
      list,
      [...this.written.keys()]
        .sort()
        .map((n) => `${n}\n`)
        .join(''),
    );
    renameSync(list, join(this.dir, RENDERED_LIST));
    return { removed };
  }

  /** Removes every file written, leaving the earlier render as it was. */
  abort(): void {
    for (const name of this.written.keys()) rmSync(this.temp(name), { force: true });
  }

  private temp(name: string): string {
    return join(this.dir, `.${name}${this.suffix}`);
  }
}
