/** The controller benchmark's settings: its flags, their environment variables and defaults, and its help. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const HELP = `Usage: node dist/bench/controller/main.js [options]   (npm run bench:controller -- [options])

  --count N          Memcached resources (default 500) [BENCH_COUNT]
  --workers N        controller workers, and loops of the baseline (default 4) [BENCH_WORKERS]
  --concurrency N    create requests in flight (default 32) [BENCH_CONCURRENCY]
  --size N           spec.size of each resource (default 1) [BENCH_SIZE]
  --resync SECONDS   resync period of the steady-state phase (default 5) [BENCH_RESYNC]
  --updates N        single updates timed (default 20) [BENCH_UPDATES]
  --namespace NS     default reconstruct-bench-<random>; created and deleted by the run
  --deadline MIN     stop (and clean up) after this many minutes whatever happens (default 40)
  --cpu-prof DIR     run controller A under node --cpu-prof, profile written into DIR
  --json FILE        also write the figures as JSON
  --no-nodes         never add fake nodes nor a ServiceCIDR (both only ever on kwok clusters)
  --rounds N         controller/baseline pairs for the overhead ratio, its median (default 3) [BENCH_ROUNDS]
  --overhead-only    only phase 1 until the children are applied, and the baseline (no Ready, updates, resync)
  --no-warmup        skip the unmeasured baseline pass that warms up the API server and etcd first
  --no-baseline      the controller only: no baseline and no deletion between runs (a scale run of
                     thousands, which this machine's control plane takes many minutes to delete)
  -h, --help
`;

export interface Settings {
  count: number;
  workers: number;
  concurrency: number;
  size: number;
  resyncSeconds: number;
  updates: number;
  namespace: string;
  deadlineMs: number;
  cpuProfDir?: string;
  json?: string;
  addNodes: boolean;
  overheadOnly: boolean;
  warmup: boolean;
  /** Run the baseline (the direct apply) after the controller; off for a scale run. */
  baseline: boolean;
  rounds: number;
  /** Controller A keeps its own resync period (as users run it) instead of none during the phase. */
  ownResync?: boolean;
  /** After the single updates, watch controller A this many seconds idle (CPU, reconciles, writes). */
  idleSeconds?: number;
}

/** The integer value of a flag, `fallback` when it is absent; throws when it is not an integer >= min. */
export function int(flag: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag}: "${text}" is not an integer >= ${min}`);
  return n;
}

/** The settings from the command line and the environment; undefined after --help. Throws on a bad value. */
export function settings(): Settings | undefined {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      workers: { type: 'string' },
      concurrency: { type: 'string' },
      size: { type: 'string' },
      resync: { type: 'string' },
      updates: { type: 'string' },
      namespace: { type: 'string' },
      deadline: { type: 'string' },
      'cpu-prof': { type: 'string' },
      json: { type: 'string' },
      'no-nodes': { type: 'boolean' },
      'no-warmup': { type: 'boolean' },
      'no-baseline': { type: 'boolean' },
      'overhead-only': { type: 'boolean' },
      rounds: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return undefined;
  }
  const env = process.env;
  return {
    count: int('count', values.count ?? env.BENCH_COUNT, 500, 1),
    workers: int('workers', values.workers ?? env.BENCH_WORKERS, 4, 1),
    concurrency: int('concurrency', values.concurrency ?? env.BENCH_CONCURRENCY, 32, 1),
    size: int('size', values.size ?? env.BENCH_SIZE, 1, 0),
    resyncSeconds: int('resync', values.resync ?? env.BENCH_RESYNC, 5, 1),
    updates: int('updates', values.updates ?? env.BENCH_UPDATES, 20, 0),
    namespace: values.namespace ?? `reconstruct-bench-${Math.random().toString(16).slice(2, 8)}`,
    deadlineMs: int('deadline', values.deadline, 40, 1) * 60_000,
    cpuProfDir: values['cpu-prof'] ? resolve(values['cpu-prof']) : undefined,
    json: values.json,
    addNodes: !values['no-nodes'],
    overheadOnly: values['overhead-only'] ?? false,
    warmup: !values['no-warmup'],
    baseline: !values['no-baseline'],
    rounds: int('rounds', values.rounds ?? env.BENCH_ROUNDS, 3, 1),
  };
}
