/**
 * What the controller's main thread and its serving thread say to each other (thread.ts, endpoints.ts):
 * plain data, as `postMessage` copies it.
 */
import type { Level } from '../log';
import type { ReadyCheck } from '../runtime/server';

/** Where the kinds come from: the thread loads them again to convert (constructs/kind-modules.ts). */
export interface KindSources {
  /** Modules exporting kinds, as `--kinds` takes them (absolute paths). */
  readonly modules: readonly string[];
  /** Whether the built-in kinds are among them. */
  readonly builtin: boolean;
}

/** The thread's start: its workerData. */
export interface ServingData {
  /** Where /healthz and /readyz listen (`host:port`; port 0 picks one). */
  readonly healthAddress: string;
  /** Whether the health port serves /metrics too (asked of the main thread): on loopback only. */
  readonly metrics: boolean;
  /** /healthz fails once the main thread has said nothing for this long. */
  readonly livenessMs: number;
  /** What the conversion webhook converts with; without it, the thread serves no conversions. */
  readonly kinds?: KindSources;
}

export interface Certificate {
  readonly key: string;
  readonly cert: string;
}

/** From the main thread. `state` comes every second: what /readyz says, and that the main thread lives. */
export type ToThread =
  | { readonly type: 'state'; readonly ready: boolean; readonly checks: readonly ReadyCheck[] }
  | { readonly type: 'metrics'; readonly id: number; readonly text?: string; readonly error?: string }
  | {
      readonly type: 'serve-conversions';
      readonly id: number;
      readonly address: string;
      readonly certificate: Certificate;
    }
  | { readonly type: 'certificate'; readonly certificate: Certificate }
  | { readonly type: 'stop-conversions'; readonly id: number; readonly graceMs: number }
  | { readonly type: 'stop'; readonly id: number };

/** From the thread. `reply` answers a message with an `id`: the port bound, or why not. */
export type FromThread =
  | { readonly type: 'listening'; readonly port: number }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'reply'; readonly id: number; readonly port?: number; readonly error?: string }
  | {
      readonly type: 'log';
      readonly level: Level;
      readonly msg: string;
      readonly fields?: Record<string, unknown>;
    }
  | { readonly type: 'observe'; readonly seconds: number; readonly code: number }
  | { readonly type: 'metrics'; readonly id: number };

/** The end of a channel either side holds: a worker's parentPort, a Worker, a MessagePort. */
export interface Channel<In, Out> {
  postMessage(message: Out): void;
  on(event: 'message', listener: (message: In) => void): unknown;
}
