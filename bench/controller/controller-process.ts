/**
 * One process of the controller under test: started from its Launch, ready once its readiness URL answers,
 * its memory polled from /proc every 100 ms, its metrics scraped on demand, stopped with SIGTERM.
 *
 * Its logs go to a file, as a container runtime keeps them: a pipe read by this process would block the
 * controller's writes whenever the benchmark, busy on the same two cores, is slow to read (Node writes to
 * pipes synchronously), and charge that stall to the controller.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../../controller/abortable';
import type { ControllerUnderTest, Launch, LaunchOptions } from './controller-under-test';
import { Snapshot } from './metrics';
import { memoryKiB } from './proc';
import { now, until } from './support';

let logDir: string | undefined;
let logFiles = 0;

/** Controllers still running: killed if the bench exits early. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** The folder of the controllers' logs, once one has started. */
export const controllerLogDir = () => logDir;

/** Removes the controllers' logs (after a run that succeeded: a failed run keeps them). */
export function removeControllerLogs(): void {
  if (logDir) rmSync(logDir, { recursive: true, force: true });
}

/** Asks every controller still running to stop, without waiting. */
export function terminateAll(): void {
  for (const proc of running) proc.kill('SIGTERM');
}

export class ControllerProcess {
  peakRssKiB = 0;
  hwmKiB = 0;
  rssKiB = 0;
  /** RSS when it first answered ready: what it holds before any resource. */
  readyRssKiB = 0;
  private readonly poller: NodeJS.Timeout;
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly target: ControllerUnderTest,
    readonly proc: ChildProcess,
    readonly launch: Launch,
    readonly logFile: string,
  ) {
    this.exited = new Promise((r) => proc.once('exit', (code) => r(code)));
    this.poller = setInterval(() => this.pollMemory(), 100);
  }

  /** Starts a process of `target` and waits until it is ready; throws with its last log lines if it is not. */
  static async start(target: ControllerUnderTest, options: LaunchOptions): Promise<ControllerProcess> {
    const launch = await target.launch(options);
    logDir ??= mkdtempSync(join(tmpdir(), 'reconstruct-bench-'));
    const logFile = join(logDir, `controller-${++logFiles}.log`);
    const stderr = openSync(logFile, 'w');
    const proc = spawn(launch.command, launch.args, { stdio: ['ignore', 'ignore', stderr], env: launch.env });
    closeSync(stderr); // the child has its own copy
    running.add(proc);
    const controller = new ControllerProcess(target, proc, launch, logFile);
    const ready = await until(async () => {
      if (proc.exitCode !== null) return true;
      const res = await fetch(launch.readyUrl).catch(() => undefined);
      return res?.status === 200 && ((await launch.ready?.().catch(() => false)) ?? true);
    }, 60_000);
    if (proc.exitCode !== null || !ready) {
      await controller.stop();
      throw new Error(`the controller did not become ready:\n${controller.logs().slice(-20).join('\n')}`);
    }
    controller.pollMemory();
    controller.readyRssKiB = controller.rssKiB;
    return controller;
  }

  /** Its log lines so far. */
  logs(): string[] {
    return readFileSync(this.logFile, 'utf8').split('\n').filter(Boolean);
  }

  /** Its log lines so far that report errors. */
  errorLines(): string[] {
    return this.logs().filter((line) => this.target.isErrorLine(line));
  }

  private pollMemory(): void {
    if (this.proc.pid === undefined || this.proc.exitCode !== null) return;
    const memory = memoryKiB(this.proc.pid);
    if (!memory) return; // gone meanwhile, or no /proc
    this.rssKiB = memory.rss;
    this.hwmKiB = Math.max(this.hwmKiB, memory.hwm);
    this.peakRssKiB = Math.max(this.peakRssKiB, this.rssKiB, this.hwmKiB);
  }

  async metrics(): Promise<Snapshot> {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(this.launch.metricsUrl, { signal: AbortSignal.timeout(10_000) });
        return new Snapshot(await res.text(), this.target.metrics, now());
      } catch (err) {
        if (attempt >= 3) throw err;
        await sleep(500);
      }
    }
  }

  /** Writes stayed the same for `quietMs` (polled every 250 ms); false when `timeoutMs` ran out first. */
  async settle(quietMs: number, timeoutMs: number): Promise<boolean> {
    let last = -1;
    let since = now();
    return until(
      async () => {
        const m = await this.metrics();
        const writes = m.writes();
        if (writes !== last || m.queueDepth() > 0) {
          last = writes;
          since = now();
        }
        return now() - since >= quietMs;
      },
      timeoutMs,
      250,
    );
  }

  async stop(): Promise<number | null> {
    this.pollMemory();
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 30_000);
    const code = await this.exited;
    clearTimeout(timer);
    clearInterval(this.poller);
    running.delete(this.proc);
    return code;
  }
}
