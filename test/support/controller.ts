/**
 * Runs the real controller (`node dist/cli/main.js controller`, built by `npm run build`) as a child
 * process against the test cluster, the way a user runs it. Tests observe it through kubectl and
 * through its /readyz and /metrics endpoints.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../controller/server';
import { waitFor } from './kubectl';

const CLI = join(__dirname, '../../dist/cli/main.js');

export interface RunningController {
  readonly process: ChildProcess;
  readonly healthPort: number;
  /** Everything it logged so far (JSON lines). */
  readonly logs: string[];
  metrics(): Promise<string>;
  /** Sends SIGTERM (or `signal`) and resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

async function fetchText(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

/** Starts a controller and waits until /readyz says its caches have synced. */
export async function startController(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningController> {
  const healthPort = await freePort();
  const proc = spawn(
    process.execPath,
    [
      CLI,
      'controller',
      '--health-addr',
      `127.0.0.1:${healthPort}`,
      '--metrics-addr',
      '0',
      '--log-format',
      'json',
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'pipe'] },
  );
  const logs: string[] = [];
  let buffered = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    logs.push(...lines);
    if (process.env.RECONSTRUCT_TEST_LOGS) lines.forEach((l) => process.stderr.write(`${l}\n`));
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${healthPort}`;
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`controller exited ${proc.exitCode}:\n${logs.join('\n')}`);
      return (await fetchText(`${base}/readyz`).catch(() => ({ status: 0 }))).status === 200;
    },
    { what: 'the controller to be ready', timeoutMs: 60_000 },
  );
  return {
    process: proc,
    healthPort,
    logs,
    metrics: async () => (await fetchText(`${base}/metrics`)).text,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** Sum of a Prometheus counter's samples whose labels match `filter`. */
export function counter(
  metrics: string,
  name: string,
  filter: (labels: string) => boolean = () => true,
): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    const match = new RegExp(`^${name}(?:\\{(.*)\\})? ([0-9.e+-]+)$`).exec(line);
    if (match && filter(match[1] ?? '')) total += Number(match[2]);
  }
  return total;
}
