/** Child processes for the demo: kubectl calls, scripts, and ports for the controller to listen on. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion and collects its output; never rejects for a non-zero exit. Killed after
 * `timeoutMs`, as a hung kubectl must not freeze the live view.
 */
export function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: 127, stdout: '', stderr: `${command}: ${e.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8') + (signal ? `${command} killed by ${signal}\n` : '');
      resolve({ code: code ?? 128, stdout: Buffer.concat(out).toString('utf8'), stderr });
    });
    child.stdin.on('error', () => undefined); // the command may exit without reading its input
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Starts a process in its own process group, so that a Ctrl-C on the terminal reaches only the demo,
 * which then stops its children in order (a script tearing a cluster down must not be interrupted).
 */
export function spawnDetached(command: string, args: string[], options: SpawnOptions): ChildProcess {
  return spawn(command, args, { ...options, detached: true });
}

/** Resolves with the exit code (128 + n for a signal) once the process has exited. */
export function exited(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(128);
  return new Promise((resolve) => {
    child.once('error', () => resolve(127));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
