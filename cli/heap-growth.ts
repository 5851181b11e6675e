/**
 * Caps how far V8 lets the controller's heap grow past what its last full collection kept.
 *
 * V8 sets the next full collection's threshold at the live heap times a factor it picks from how fast
 * the program allocates against how fast it collects: up to 4 when allocation is fast. A controller
 * allocates fastest in its start-up pass and in bursts (every resource synthesized, mostly short-lived
 * garbage that a small young generation promotes), and the old generation grew to two or three times
 * what it kept: a controller restarted over 10,000 resources peaked at 399-403 MB of RSS with 106 MB of
 * live heap. With the factor held at 1.2 it peaks at 214-226 MB (docs/BENCHMARKS.md, "What dominates
 * the memory").
 *
 * The flag is V8's own (`--heap-growing-percent`), which NODE_OPTIONS refuses; V8 reads it at every
 * full collection, so setting it once the process runs takes effect. A user who gives it on node's
 * command line keeps theirs (`node --heap-growing-percent=0` is V8's own policy).
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to 1.2 times what the last full collection kept. */
export const HEAP_GROWING_PERCENT = 20;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/** The V8 flag to set, or undefined when node's command line already sets it. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((arg) => FLAG.test(arg))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Applies heapGrowthFlag to this process. Called by `reconstruct controller` before it starts. */
export function capHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapGrowthFlag(execArgv);
  if (flag) setFlagsFromString(flag);
}
