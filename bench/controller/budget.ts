/**
 * The CPU budget of the controller: its CPU per created resource and per single update, beside the minimal
 * apply loop's (phases/baseline.ts) doing the same work in the same run. docs/BENCHMARKS.md keeps them per
 * release; a change that raises either by more than 10 % says why.
 *
 * The loop runs in the benchmark's own process, beside what that process does in every run (the creates,
 * the patches, its watch): its CPU per create is the benchmark process's CPU in the baseline run less its
 * CPU in the controller's run of the same creates, never below 0; per update, the process's CPU in the
 * loop's updates, its patches and watch included (an upper bound).
 */
import type { CpuSpent } from './proc';

/** The figures of a run by name, as report.ts's Results (not imported: report.ts prints these rows). */
type Results = Readonly<Record<string, unknown>>;

/** CPU in milliseconds per item of work: the controller's, and the minimal loop's. */
export interface Budget {
  readonly controllerMs: number;
  readonly loopMs: number;
}

const spent = (r: Results, key: string, process: string) => (r[key] as CpuSpent | undefined)?.[process];

function budgetOf(
  r: Results,
  controllerKey: string,
  loopKey: string,
  items: number,
  /** The benchmark process's CPU without the loop, to take off; none: all of it is the loop's. */
  withoutKey?: string,
): Budget | undefined {
  const controller = spent(r, controllerKey, 'controller');
  const withLoop = spent(r, loopKey, 'benchmark');
  const without = withoutKey === undefined ? 0 : spent(r, withoutKey, 'benchmark');
  if (controller === undefined || withLoop === undefined || without === undefined || items <= 0)
    return undefined;
  return {
    controllerMs: (controller / items) * 1000,
    loopMs: (Math.max(0, withLoop - without) / items) * 1000,
  };
}

/** Per created resource, until every resource's children are applied. */
export const createBudget = (r: Results, count: number) =>
  budgetOf(r, 'controllerCpuUntilApplied', 'directCpuUntilApplied', count, 'controllerCpuUntilApplied');

/**
 * Per single update, the controller's until Ready again; the loop's: the benchmark process while it
 * patched, synthesized, applied and watched (nothing taken off: while the controller's updates ran, that
 * process also waited for Ready, which costs it more than the loop does).
 */
export const updateBudget = (r: Results, updates: number) => budgetOf(r, 'updateCpu', 'floorCpu', updates);

/** The budget's rows of the report. */
export function budgetRows(r: Results, count: number, updates: number): [string, string, string][] {
  const row = (what: string, b: Budget | undefined): [string, string, string] => [
    what,
    b ? `${b.controllerMs.toFixed(2)} / ${b.loopMs.toFixed(2)} ms` : 'n/a',
    b && b.loopMs > 0 ? `${(b.controllerMs / b.loopMs).toFixed(2)}x the loop's` : '',
  ];
  return [
    row('CPU per created resource: controller / minimal loop', createBudget(r, count)),
    row('CPU per single update: controller / minimal loop', updateBudget(r, updates)),
  ];
}
