/**
 * The dev loop's controller: `reconstruct controller` on the project's kinds in a child process, replaced
 * by a new one on each good build. The next one is always started ahead (./standby.ts: the libraries
 * loaded, waiting), so a replacement costs the old one's stop, the kinds' load and the caches' first list.
 * Its log goes to a file; its warnings and errors also to the terminal.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sleep } from '../../controller/abortable';
import { freePort } from '../../controller/runtime/server';
import type { RunMessage } from './standby';

/** How long a replaced controller may take to finish its in-flight work before it is killed. */
const STOP_GRACE_MS = 3_000;

export interface DevControllerOptions {
  /** The project: the controller's working folder (its --kinds module is relative to it). */
  readonly projectDir: string;
  readonly kubeconfig: string;
  readonly logFile: string;
  /** `reconstruct controller`'s arguments besides the ports (--kinds, --no-builtin-kinds, ...). */
  readonly argv: readonly string[];
  readonly inspect?: RunMessage['inspect'];
  /** A warning or error line of the controller's log, for the terminal. */
  readonly onProblem: (line: string) => void;
}

interface Running {
  readonly child: ChildProcess;
  readonly exit: Promise<number>;
  readonly healthPort: number;
}

const exitOf = (child: ChildProcess): Promise<number> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? 128);
    else child.once('exit', (code) => resolve(code ?? 128));
  });

function readyz(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(`http://127.0.0.1:${port}/readyz`, { timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export class DevController {
  private current: Running | undefined;
  private standby: { child: ChildProcess; ready: Promise<void> } | undefined;

  constructor(private readonly options: DevControllerOptions) {}

  /** The child that waits for its turn, started now. */
  private startStandby(): { child: ChildProcess; ready: Promise<void> } {
    const { projectDir, kubeconfig, logFile, onProblem } = this.options;
    const child = fork(join(__dirname, 'standby.js'), [], {
      cwd: projectDir,
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        appendFileSync(logFile, `${line}\n`);
        if (/ (WARN|ERROR) /.test(line) || !/^\d\d:\d\d:\d\d\.\d{3} /.test(line)) onProblem(line);
      });
    }
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the controller's standby exited (code ${code})`)));
    });
    ready.catch(() => undefined); // awaited by run(); a standby never used may exit unobserved
    return { child, ready };
  }

  /** Whether a controller runs now (one that crashed does not). */
  get running(): boolean {
    const child = this.current?.child;
    return !!child && child.exitCode === null && child.signalCode === null;
  }

  /** Starts the standby now, so that the first build does not wait for its libraries to load. */
  prepare(): void {
    this.standby ??= this.startStandby();
  }

  /** Starts the first controller, or replaces the running one; resolves once the new one is ready. */
  async run(): Promise<{ readyMs: number }> {
    const started = Date.now();
    const next = this.standby ?? this.startStandby();
    this.standby = undefined;
    await this.stopCurrent();
    await next.ready;
    const [healthPort, webhookPort] = [await freePort(), await freePort()];
    const message: RunMessage = {
      argv: [
        ...this.options.argv,
        '--health-addr',
        `127.0.0.1:${healthPort}`,
        '--metrics-addr',
        '0',
        '--webhook-addr',
        `127.0.0.1:${webhookPort}`,
        '--shutdown-timeout',
        String(STOP_GRACE_MS / 1000),
        '--log-format',
        'text',
      ],
      ...(this.options.inspect ? { inspect: this.options.inspect } : {}),
    };
    appendFileSync(
      this.options.logFile,
      `--- reconstruct dev: controller started at ${new Date().toISOString()} ---\n`,
    );
    next.child.send(message);
    const running = { child: next.child, exit: exitOf(next.child), healthPort };
    this.current = running;
    void running.exit.then((code) => {
      // Not stopped by the loop: it crashed, or failed at start (the lines before say why).
      if (this.current === running)
        this.options.onProblem(`exited (code ${code}); the next good save starts it again`);
    });
    this.standby = this.startStandby();
    await this.waitReady(running);
    return { readyMs: Date.now() - started };
  }

  private async waitReady(running: Running): Promise<void> {
    let exited: number | undefined;
    void running.exit.then((code) => (exited = code));
    for (;;) {
      if (exited !== undefined)
        throw new Error(`the controller exited (code ${exited}): see ${this.options.logFile}`);
      if (await readyz(running.healthPort)) return;
      await sleep(50);
    }
  }

  private async stopCurrent(): Promise<void> {
    const running = this.current;
    this.current = undefined;
    if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
    running.child.kill('SIGTERM');
    const timer = setTimeout(() => running.child.kill('SIGKILL'), STOP_GRACE_MS + 1_000);
    await running.exit;
    clearTimeout(timer);
  }

  /** Stops the controller and the standby. */
  async stop(): Promise<void> {
    this.standby?.child.kill('SIGTERM');
    this.standby = undefined;
    await this.stopCurrent();
  }
}
