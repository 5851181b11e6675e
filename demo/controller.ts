/**
 * `reconstruct controller` as a child of the demo: text logs to a file, /healthz, /readyz and /metrics on
 * free loopback ports, stopped with SIGTERM like a pod (then SIGKILL if it does not finish in time).
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { get } from 'node:http';
import { freePort } from '../controller/runtime/server';
import { sleep } from '../controller/abortable';
import { exited, spawnDetached } from './process';

/** The controller's own bound on finishing in-flight work is 20 s; this leaves it room to exit. */
const STOP_GRACE_MS = 25_000;

function readyz(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(url, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export class ControllerProcess {
  private readonly exit: Promise<number>;

  private constructor(
    private readonly child: ChildProcess,
    readonly logFile: string,
    readonly healthPort: number,
    readonly metricsPort: number,
  ) {
    this.exit = exited(child);
  }

  static async start(options: {
    cli: string;
    kubeconfig: string;
    logFile: string;
  }): Promise<ControllerProcess> {
    const [healthPort, metricsPort] = [await freePort(), await freePort()];
    const log = openSync(options.logFile, 'a');
    try {
      writeSync(log, `--- reconstruct demo: controller started at ${new Date().toISOString()} ---\n`);
      const child = spawnDetached(
        process.execPath,
        [
          options.cli,
          'controller',
          '--log-format',
          'text',
          '--health-addr',
          `127.0.0.1:${healthPort}`,
          '--metrics-addr',
          `127.0.0.1:${metricsPort}`,
        ],
        { stdio: ['ignore', log, log], env: { ...process.env, KUBECONFIG: options.kubeconfig } },
      );
      return new ControllerProcess(child, options.logFile, healthPort, metricsPort);
    } finally {
      closeSync(log); // the child has its own copy
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get readyUrl(): string {
    return `http://127.0.0.1:${this.healthPort}/readyz`;
  }

  get metricsUrl(): string {
    return `http://127.0.0.1:${this.metricsPort}/metrics`;
  }

  /** Until /readyz answers 200 (its caches are synced); throws if it exits or takes longer than `timeoutMs`. */
  async waitReady(timeoutMs: number, signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!signal.aborted) {
      if (!this.running) throw new Error(`the controller exited (code ${await this.exit})`);
      if (await readyz(this.readyUrl)) return;
      if (Date.now() > deadline) throw new Error(`the controller was not ready after ${timeoutMs / 1000}s`);
      await sleep(250, signal);
    }
  }

  /** The last lines of its log. */
  tail(lines: number): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** SIGTERM, and SIGKILL if it has not exited after the grace period. Resolves with its exit code. */
  async stop(): Promise<number> {
    if (!this.running) return this.exit;
    this.child.kill('SIGTERM');
    const exitedInTime = new AbortController();
    void this.exit.then(() => exitedInTime.abort());
    await sleep(STOP_GRACE_MS, exitedInTime.signal);
    if (this.running) this.child.kill('SIGKILL');
    return this.exit;
  }

  /** For a demo that exits abruptly: no controller is left running against a cluster that goes away. */
  killNow(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}
