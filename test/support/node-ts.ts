/**
 * A node of its own that runs the repository's TypeScript sources, for what a test cannot do inside jest:
 * the CLI as a user runs it, require hooks, a process's exit, ESM-only client-node. The sources load through
 * register-ts.js, transpiled as jest transpiles them; tsx, the other way, costs about a second of CPU more
 * per process (a second node, and every loaded file's source map kept).
 */
import { spawnSync, type SpawnSyncOptionsWithStringEncoding } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** Node's arguments that come before a TypeScript file to run, or before `-e` code that requires one. */
export const NODE_TS = ['--require', join(__dirname, 'register-ts.js')];

/** `reconstruct ARGS` from the sources (cli/main.ts) in a node of its own; its output as text. */
export function reconstruct(
  args: readonly string[],
  options: Omit<SpawnSyncOptionsWithStringEncoding, 'encoding'> = {},
) {
  return spawnSync(process.execPath, [...NODE_TS, join(ROOT, 'cli/main.ts'), ...args], {
    ...options,
    encoding: 'utf8',
  });
}
