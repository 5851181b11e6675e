/**
 * Runs a driver (a small TypeScript program under this folder that uses the controller's runtime
 * layer against the real cluster) as a child process: `node --import tsx DRIVER`, one process, so
 * that killing it really kills it. Jest cannot load @kubernetes/client-node (ESM-only); the child
 * can. Drivers print one JSON object per line on stdout and take commands on stdin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

export interface DriverLine {
  t: string;
  [k: string]: unknown;
}

export interface Driver {
  readonly process: ChildProcess;
  /** Every line printed so far, with the time (Date.now()) it arrived. */
  readonly lines: (DriverLine & { at: number })[];
  /** Resolves the first line (from index `from` on) matching pred; rejects after timeoutMs. */
  waitFor(
    pred: (line: DriverLine) => boolean,
    what: string,
    timeoutMs?: number,
    from?: number,
  ): Promise<DriverLine & { at: number }>;
  send(command: string): void;
  /** Kills it (default SIGKILL) and resolves once it exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves the exit code once it exited by itself. */
  readonly exited: Promise<number | null>;
  /** Its stderr so far (structured logs). */
  stderr(): string;
  /**
   * Resolves once its stderr matches; rejects after timeoutMs. Stdout and stderr are two pipes: a line
   * logged before a line printed may still arrive after it.
   */
  waitForLog(pattern: RegExp, what: string, timeoutMs?: number): Promise<void>;
}

export function startDriver(file: string, config: Record<string, unknown>): Driver {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(__dirname, file)], {
    cwd: ROOT,
    env: { ...process.env, DRIVER_CONFIG: JSON.stringify(config) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: (DriverLine & { at: number })[] = [];
  const waiters = new Set<() => void>();
  let out = '';
  let err = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const text = out.slice(0, nl).trim();
      out = out.slice(nl + 1);
      if (!text) continue;
      try {
        lines.push({ ...(JSON.parse(text) as DriverLine), at: Date.now() });
      } catch {
        lines.push({ t: 'garbage', text, at: Date.now() });
      }
    }
    waiters.forEach((w) => w());
  });
  proc.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    if (process.env.RECONSTRUCT_TEST_LOGS) process.stderr.write(chunk);
    waiters.forEach((w) => w());
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  void exited.then(() => waiters.forEach((w) => w()));

  return {
    process: proc,
    lines,
    exited,
    stderr: () => err,
    send: (command) => void proc.stdin.write(`${command}\n`),
    kill: async (signal = 'SIGKILL') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
    waitFor: (pred, what, timeoutMs = 30_000, from = 0) =>
      waitUntil(() => lines.slice(from).find(pred), what, timeoutMs),
    waitForLog: async (pattern, what, timeoutMs = 15_000) => {
      await waitUntil(() => pattern.test(err) || undefined, what, timeoutMs);
    },
  };

  /** Resolves the first truthy result of `probe`, re-run on every line out; rejects on exit or timeout. */
  function waitUntil<T>(probe: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = probe();
        if (hit) {
          done();
          resolve(hit);
        } else if (proc.exitCode !== null || proc.signalCode !== null) {
          done();
          reject(
            new Error(`driver ${file} exited (${proc.exitCode ?? proc.signalCode}) before ${what}\n${err}`),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; driver printed:\n` +
              lines.map((l) => JSON.stringify(l)).join('\n') +
              `\nstderr:\n${err.slice(-4000)}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }
}
