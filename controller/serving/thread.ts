/**
 * The serving thread, as the main thread holds it: a worker thread (worker.ts, endpoints.ts) that answers
 * /healthz, /readyz and the conversion webhook, so that neither waits for the main thread's turn. The main
 * thread sends it what /readyz says every second (which is also how it knows the main thread lives),
 * answers its /metrics requests, and writes its log lines.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log';
import type { ConversionEndpoint } from '../runtime/conversion-server';
import type { ReadyCheck } from '../runtime/server';
import type { Certificate, FromThread, KindSources, ServingData, ToThread } from './messages';

export interface ServingThreadOptions {
  /** Where /healthz and /readyz listen. */
  readonly healthAddress: string;
  /** What /readyz says, and /metrics on the health port (loopback only) when given. */
  readonly ready: () => boolean;
  readonly checks: () => readonly ReadyCheck[];
  readonly metrics?: () => Promise<string>;
  /** The kinds' modules, for the conversions; without them the thread serves none. */
  readonly kinds?: KindSources;
  /**
   * /healthz fails once the main thread has been silent this long: a thread that answers the probes is
   * not enough, the controller must be alive too. @default 30 s
   */
  readonly livenessMs?: number;
  /** How often the main thread says what /readyz says. @default 1 s */
  readonly stateEveryMs?: number;
  readonly log: Logger;
  /** A conversion's duration and HTTP status (the webhook latency histogram). */
  readonly observe?: (seconds: number, httpStatus: number) => void;
}

export const LIVENESS_MS = 30_000;

export class ServingThread {
  private readonly timer: NodeJS.Timeout;
  private readonly replies = new Map<
    number,
    { resolve: (port?: number) => void; reject: (e: Error) => void }
  >();
  private nextId = 0;
  private listening?: { resolve: (port: number) => void; reject: (e: Error) => void };
  private closed = false;

  /** Starts the thread and resolves once /healthz listens; rejects with why it cannot. */
  static async start(options: ServingThreadOptions): Promise<ServingThread> {
    const thread = new ServingThread(options);
    try {
      thread.healthPort = await new Promise<number>(
        (resolve, reject) => (thread.listening = { resolve, reject }),
      );
    } catch (err) {
      await thread.worker.terminate();
      throw err;
    }
    return thread;
  }

  /** The port /healthz and /readyz listen on. */
  healthPort = 0;
  private readonly worker: Worker;

  private constructor(private readonly options: ServingThreadOptions) {
    const data: ServingData = {
      healthAddress: options.healthAddress,
      metrics: options.metrics !== undefined,
      livenessMs: options.livenessMs ?? LIVENESS_MS,
      ...(options.kinds ? { kinds: options.kinds } : {}),
    };
    this.worker = startWorker(data);
    this.worker.on('message', (message: FromThread) => this.receive(message));
    this.worker.on('error', (err) => {
      options.log.error('the serving thread failed', { error: err.message });
      this.fail(err);
    });
    this.worker.on('exit', (code) => {
      if (!this.closed) options.log.error('the serving thread stopped', { code });
      this.fail(new Error(`the serving thread stopped (exit code ${code})`));
    });
    this.sendState();
    this.timer = setInterval(() => this.sendState(), options.stateEveryMs ?? 1000);
    this.timer.unref();
  }

  /** Whether it can serve conversions (it was given the kinds' modules). */
  get converts(): boolean {
    return this.options.kinds !== undefined;
  }

  /** Serves the conversion webhook from the thread; rejects with why it cannot (the address, a module). */
  async serveConversions(address: string, certificate: Certificate): Promise<ConversionEndpoint> {
    const port = (await this.call((id) => ({ type: 'serve-conversions', id, address, certificate })))!;
    return {
      port,
      setCertificate: (next) =>
        this.post({ type: 'certificate', certificate: { key: next.key, cert: next.cert } }),
      stop: async (graceMs = 2000) =>
        void (await this.call((id) => ({ type: 'stop-conversions', id, graceMs }))),
    };
  }

  /** Stops serving and ends the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    try {
      await this.call((id) => ({ type: 'stop', id }));
    } catch {
      // A thread already gone has nothing left to stop.
    }
    this.closed = true;
    await this.worker.terminate();
  }

  private sendState(): void {
    try {
      this.post({ type: 'state', ready: this.options.ready(), checks: this.options.checks() });
    } catch (err) {
      this.options.log.warn('could not say what /readyz says', { error: (err as Error).message });
    }
  }

  private post(message: ToThread): void {
    this.worker.postMessage(message);
  }

  private call(message: (id: number) => ToThread): Promise<number | undefined> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.replies.set(id, { resolve, reject });
      this.post(message(id));
    });
  }

  private receive(message: FromThread): void {
    switch (message.type) {
      case 'listening':
        return this.listening?.resolve(message.port);
      case 'failed':
        return this.listening?.reject(new Error(message.message));
      case 'reply': {
        const waiting = this.replies.get(message.id);
        this.replies.delete(message.id);
        if (message.error !== undefined) waiting?.reject(new Error(message.error));
        else waiting?.resolve(message.port);
        return;
      }
      case 'log':
        return this.options.log[message.level](message.msg, message.fields);
      case 'observe':
        return this.options.observe?.(message.seconds, message.code);
      case 'metrics': {
        const { id } = message;
        const render = this.options.metrics ?? (() => Promise.reject(new Error('no metrics here')));
        void render().then(
          (text) => this.post({ type: 'metrics', id, text }),
          (err: unknown) => this.post({ type: 'metrics', id, error: String(err) }),
        );
        return;
      }
    }
  }

  /** Everything still waiting for the thread fails with `err`. */
  private fail(err: Error): void {
    this.listening?.reject(err);
    for (const waiting of this.replies.values()) waiting.reject(err);
    this.replies.clear();
  }
}

/**
 * The worker: the compiled worker.js beside this file; from the TypeScript sources (the unit tests), the
 * .ts entry through tsx, which compiles the thread's modules as it loads them.
 */
function startWorker(data: ServingData): Worker {
  const compiled = join(__dirname, 'worker.js');
  if (existsSync(compiled)) return new Worker(compiled, { workerData: data });
  const tsx = require.resolve('tsx/cjs/api', { paths: [process.cwd(), __dirname] });
  const entry = join(__dirname, 'worker.ts');
  const source = `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`;
  return new Worker(source, { eval: true, workerData: data });
}
