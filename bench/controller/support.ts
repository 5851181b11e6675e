/**
 * Small helpers every part of the controller benchmark uses: the clock, the log line, polling, a bounded pool
 * of requests, and quantiles.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sleep } from '../../controller/abortable';

/**
 * A path in the repository (`bench/peer-go/build.sh`), found by walking up from here: the bench runs
 * compiled (dist/bench/controller) and from source (its cluster tests).
 */
export function repositoryPath(relative: string): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const path = join(dir, relative);
    if (existsSync(path)) return path;
    if (dirname(dir) === dir) throw new Error(`${relative} is not in a folder above ${__dirname}`);
  }
}

/** Milliseconds on a monotonic clock. */
export const now = () => performance.now();

/** A progress line on stderr; the table alone goes to stdout. */
export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The middle value; the mean of the two middle ones for an even count (not the lower one, as quantile). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Polls `check` every `everyMs` until it returns true; false when `timeoutMs` ran out first. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (now() >= deadline) return false;
    await sleep(everyMs);
  }
}

/** Runs `task` on each item with at most `limit` in flight. */
export async function pool<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, loop));
}
