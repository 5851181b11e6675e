/**
 * A V8 CPU profile (`node --cpu-prof`, as `npm run bench:controller -- --cpu-prof DIR` writes one for the
 * controller) read by phase of the reconcile: each sample's time goes to the phase of the nearest frame of
 * ours on its stack (from the leaf up), so that JSON.stringify called by the apply phase counts as the
 * apply's and the same function called by the watch as the caches'. Prints a table, the share of each
 * phase in the CPU the process spent (idle excluded), and its heaviest functions.
 *
 *   node dist/bench/profile-phases.js FILE.cpuprofile [--top N] [--window burst|untilReady|updates]
 *   node dist/bench/profile-phases.js BEFORE.cpuprofile AFTER.cpuprofile [--window ...]
 *
 * Given two profiles (a change's before and after, each with its windows.json), prints each phase's CPU
 * side by side, with the change.
 *
 * `--window` keeps the samples of one phase of the bench: bench:controller writes where each began and
 * ended, on the profile's own clock, into `windows.json` beside the profile.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface Profile {
  /** µs on the monotonic clock (process.hrtime's), where the first sample's delta starts. */
  startTime?: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The phases, each by the files (and V8's own frames) whose frames are its; the first that matches wins. */
const PHASES: readonly (readonly [string, RegExp])[] = [
  ['ready-why reads', /controller\/reconcile\/troubles|kube\/live-reads|kit\/pod-trouble/],
  [
    'status and decision',
    /reconcile\/(status|decide|summary|waits|recheck|intent)|controller\/health\/|kit\/(child-readiness|kit-view)/,
  ],
  [
    'synthesize (construct, cdk8s)',
    /reconcile\/synthesize|kit\/synthesize|node_modules\/(cdk8s|constructs)|constructs\/(memcached|kit)\//,
  ],
  [
    'apply (compare, write)',
    /reconcile\/(apply|converge|adopt|replace|write-only)|controller\/drift\/|kube\/(writer|merge-patch)/,
  ],
  ['prune', /reconcile\/prune/],
  ['rollout, suspend, sharding', /reconcile\/(rollout|suspend)|controller\/sharding\//],
  ['reconcile (other)', /controller\/reconcile\//],
  ['watches and caches', /runtime\/(informer|store|cache|watches|predicates|kind-reads)|kube\/watch/],
  ['queue and workers', /runtime\/(queue|manager|worker|turns)/],
  ['API client (HTTP, JSON)', /controller\/kube\//],
  ['metrics, log, events', /runtime\/metrics|controller\/log|kube\/events/],
  ['controller (other)', /controller\//],
  ['garbage collection', /^\(garbage collector\)$/],
];
const IDLE = new Set(['(idle)', '(program)']);

function phaseOf(frame: CallFrame): string | undefined {
  const where = frame.url ? frame.url : `(${frame.functionName.replace(/[()]/g, '')})`;
  for (const [phase, pattern] of PHASES) if (pattern.test(where)) return phase;
  return undefined;
}

/**
 * CPU time (µs) by phase, and by function within each phase, of a profile (idle excluded); with a window
 * ([from, to] in µs on the profile's clock), of the samples taken within it.
 */
export function phaseTimes(
  profile: Profile,
  window?: readonly [number, number],
): {
  total: number;
  phases: Map<string, number>;
  functions: Map<string, Map<string, number>>;
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const known = new Map<number, string>();
  const phaseOfNode = (id: number): string => {
    const cached = known.get(id);
    if (cached) return cached;
    const node = byId.get(id)!;
    const own =
      node.callFrame.functionName === '(garbage collector)' ? 'garbage collection' : phaseOf(node.callFrame);
    const up = parent.get(id);
    const phase = own ?? (up === undefined ? OUTSIDE : phaseOfNode(up));
    known.set(id, phase);
    return phase;
  };
  const phases = new Map<string, number>();
  const functions = new Map<string, Map<string, number>>();
  let total = 0;
  let at = profile.startTime ?? 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (window && (at < window[0] || at > window[1])) return;
    if (IDLE.has(node.callFrame.functionName)) return;
    total += us;
    const phase = phaseOfNode(id);
    phases.set(phase, (phases.get(phase) ?? 0) + us);
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '')}:${lineNumber + 1}`;
    const fns = functions.get(phase) ?? new Map<string, number>();
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    functions.set(phase, fns);
  });
  return { total, phases, functions };
}

/** Where a sample with no frame of ours on its stack goes. */
export const OUTSIDE = 'outside the controller (Node, libraries)';

const USAGE =
  'Usage: node dist/bench/profile-phases.js FILE.cpuprofile [AFTER.cpuprofile] [--top N] [--window burst|untilReady|updates]\n';

function main(): void {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '3' }, window: { type: 'string' } },
  });
  if (positionals.length < 1 || positionals.length > 2) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const times = positionals.map((file) => {
    const window = values.window === undefined ? undefined : windowOf(file, values.window);
    return { window, ...phaseTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile, window) };
  });
  const { window } = times[0];
  const span = window
    ? ` in the window '${values.window}' (${((window[1] - window[0]) / 1e6).toFixed(1)} s)`
    : '';
  process.stdout.write(
    times.length === 1
      ? `CPU in the profile${span} (idle excluded): ${seconds(times[0].total)} s\n\n${table(times[0], Number(values.top))}`
      : `CPU${span ? ` by the windows '${values.window}'` : ''} (idle excluded): ${seconds(times[0].total)} s before, ` +
          `${seconds(times[1].total)} s after\n\n${comparison(times[0], times[1])}`,
  );
}

type Times = ReturnType<typeof phaseTimes>;
const seconds = (us: number) => (us / 1e6).toFixed(2);

/** One profile's phases, heaviest first, with their heaviest functions. */
function table({ total, phases, functions }: Times, top: number): string {
  const rows = [...phases.entries()].sort((a, b) => b[1] - a[1]);
  let out = '| phase | CPU, s | share | heaviest functions (self time) |\n| --- | ---: | ---: | --- |\n';
  for (const [phase, us] of rows) {
    const heaviest = [...(functions.get(phase) ?? new Map<string, number>()).entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, t]) => `${fn} ${((100 * t) / total).toFixed(1)} %`)
      .join('; ');
    out += `| ${phase} | ${seconds(us)} | ${((100 * us) / total).toFixed(1)} % | ${heaviest} |\n`;
  }
  return out;
}

/** Two profiles' phases side by side, the heaviest before first, with the change. */
export function comparison(before: Times, after: Times): string {
  const names = [...new Set([...before.phases.keys(), ...after.phases.keys()])].sort(
    (a, b) => (before.phases.get(b) ?? 0) - (before.phases.get(a) ?? 0),
  );
  let out = '| phase | before, s | after, s | change |\n| --- | ---: | ---: | ---: |\n';
  for (const name of [...names, 'total']) {
    const b = name === 'total' ? before.total : (before.phases.get(name) ?? 0);
    const a = name === 'total' ? after.total : (after.phases.get(name) ?? 0);
    const change = b > 0 ? `${a >= b ? '+' : ''}${((100 * (a - b)) / b).toFixed(0)} %` : 'new';
    out += `| ${name} | ${seconds(b)} | ${seconds(a)} | ${change} |\n`;
  }
  return out;
}

/** A phase's [from, to] from the windows.json bench:controller wrote beside the profile. */
function windowOf(file: string, name: string): [number, number] {
  const path = join(dirname(file), 'windows.json');
  let windows: Record<string, [number, number]>;
  try {
    windows = JSON.parse(readFileSync(path, 'utf8')) as Record<string, [number, number]>;
  } catch (err) {
    process.stderr.write(
      `--window: cannot read ${path} (${(err as Error).message}); bench:controller writes it\n`,
    );
    process.exit(2);
  }
  const window = windows[name];
  if (!window) {
    process.stderr.write(`--window: ${path} has no '${name}' (it has: ${Object.keys(windows).join(', ')})\n`);
    process.exit(2);
  }
  return window;
}

if (require.main === module) main();
