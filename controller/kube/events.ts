/**
 * Kubernetes Events about our custom resources, aggregated as client-go's recorder does: the same event for
 * the same object within a window is one Event whose `count` and `lastTimestamp` grow (one patch for any
 * number of repeats that wait together), so `kubectl describe` says `x12 over 5m` and a resource stuck in a
 * failing state cannot flood the API server.
 * Events are sent in the background, one at a time, as client-go's broadcaster does, and they yield to the
 * reconciles: while resources wait in the work queue, events go out at a trickle (Warnings first), and the
 * rest follow once the queue is empty. A burst of new resources then costs the API server and etcd one
 * write per child, not one more per resource, until the children are there; nobody waits for an event.
 * An event that meets no answer (a network fault) or an overloaded server is tried again, with backoff,
 * as client-go's broadcaster does (12 tries), and keeps its place at the head of the queue.
 */
import type { CustomResource } from '../../constructs/kit';
import { sleep } from '../abortable';
import type { Writer } from './writer';
import { isNamespaceTerminating, isNotFound, isTransient, isAlreadyExists } from './errors';
import { EVENT } from '../../constructs/kit/api-kind';
import type { Logger } from '../log';

type EventType = 'Normal' | 'Warning';

interface EventRecorderOptions {
  /** `source.component` and `reportingComponent`. Default: reconstruct. */
  component?: string;
  /** The spam filter's window. Default: 10 minutes. */
  windowMs?: number;
  /** The clock (ms). Default: Date.now. */
  now?: () => number;
  /** Events waiting beyond this are dropped, as client-go's broadcaster drops them (its queue holds 1,000). */
  maxPending?: number;
  /** Whether reconciles are waiting (the work queue is not empty). Default: never. */
  busy?: () => boolean;
  /** While busy, at most one event per this many ms. Default: 1000 (one per second). */
  busyIntervalMs?: number;
  /** How the sender waits for its next turn while busy, or before a retry (for tests). Default: setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** The first retry's delay after a network fault; each next one doubles, up to 16 times it. Default: 1000. */
  retryMs?: number;
  /** Annotations of a new Event, asked where it is emitted (the trace id of the reconcile: controller/tracing). */
  annotations?: () => Record<string, string> | undefined;
}

/** One event as sent in the current window: what a repeat patches. */
interface Sent {
  readonly at: number;
  readonly namespace: string;
  /** The Event's name, once its creation answered. */
  name?: string;
  count: number;
  last: number;
  /** A patch of the count waits in the queue: further repeats ride on it. */
  patching: boolean;
  readonly event: { metadata: { name: string; namespace: string } } & Record<string, unknown>;
}

interface Pending {
  /** A new Event, or a repeat's patch of the one sent. */
  readonly action: 'create' | 'patch';
  readonly sent: Sent;
  readonly about: Record<string, unknown>;
  /** Tries so far that met a network fault or an overloaded server. */
  readonly tries?: number;
}

/** Tries of one event, as client-go's maxTriesPerEvent. */
const MAX_TRIES = 12;

/** What the recorder writes Events through: creates, and merge patches of a repeat's count. */
export type EventWriter = Pick<Writer, 'create' | 'mergePatch'>;

/** Where the reconcile's events go: the EventRecorder, a dry run's nothing, the in-memory cluster's list. */
export interface EventSink {
  emit(
    object: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>,
    type: EventType,
    reason: string,
    message: string,
  ): void;
}

/** No answer (status 0: a network fault, a timeout), or the server asks to come back later. */
function worthRetrying(err: unknown): boolean {
  return isTransient(err);
}

export class EventRecorder implements EventSink {
  private readonly sent = new Map<string, Sent>();
  /** Warnings go out before Normal events. */
  private readonly pending: Record<EventType, Pending[]> = { Warning: [], Normal: [] };
  private sending?: Promise<void>;
  private dropped = 0;
  private lastSentAt = -Infinity;
  private serial = 0;
  private draining = 0;
  private readonly component: string;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxPending: number;
  private readonly busy: () => boolean;
  private readonly busyIntervalMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly retryMs: number;
  private readonly annotations: () => Record<string, string> | undefined;

  constructor(
    private readonly writer: EventWriter,
    private readonly log: Logger,
    options: EventRecorderOptions = {},
  ) {
    this.component = options.component ?? 'reconstruct';
    this.windowMs = options.windowMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
    this.maxPending = options.maxPending ?? 1000;
    this.busy = options.busy ?? (() => false);
    this.busyIntervalMs = options.busyIntervalMs ?? 1000;
    this.sleep = options.sleep ?? ((ms) => sleep(ms));
    this.retryMs = options.retryMs ?? 1000;
    this.annotations = options.annotations ?? (() => undefined);
  }

  /** Queues an event for the background sender; never throws, never waits. */
  emit(
    object: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    const key = [object.metadata.uid, type, reason, message].join('\u0000');
    const now = this.now();
    const { name, namespace, uid, resourceVersion } = object.metadata;
    const about = { kind: object.kind, namespace, name, reason };
    const earlier = this.sent.get(key);
    if (earlier !== undefined && now - earlier.at < this.windowMs) {
      earlier.count++;
      earlier.last = now;
      if (earlier.patching) return;
      if (this.waiting() >= this.maxPending) {
        if (this.dropped++ === 0) this.log.warn('too many events waiting; dropping', about);
        return;
      }
      earlier.patching = true;
      this.pending[type].push({ action: 'patch', sent: earlier, about });
      this.kick();
      return;
    }
    if (this.waiting() >= this.maxPending) {
      if (this.dropped++ === 0) this.log.warn('too many events waiting; dropping', about);
      return;
    }
    if (this.sent.size > 10_000) this.forgetOlderThan(now - this.windowMs);

    // Events of cluster-scoped objects live in the default namespace, as kubectl describe expects.
    const eventNamespace = namespace ?? 'default';
    const annotations = this.annotations();
    const time = new Date(now).toISOString();
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${name}.${this.suffix(now)}`,
        namespace: eventNamespace,
        ...(annotations ? { annotations } : {}),
      },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name,
        namespace,
        uid,
        resourceVersion,
      },
      type,
      reason,
      message,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: this.component,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    };
    const sent: Sent = { at: now, namespace: eventNamespace, count: 1, last: now, patching: false, event };
    this.sent.set(key, sent);
    this.pending[type].push({ action: 'create', sent, about });
    this.kick();
  }

  /** Sends every queued event (or fails it), busy or not, and resolves once the last one is done. */
  async drain(): Promise<void> {
    this.draining++;
    try {
      while (this.sending) await this.sending;
    } finally {
      this.draining--;
    }
  }

  private waiting(): number {
    return this.pending.Warning.length + this.pending.Normal.length;
  }

  /** How long the next event waits: while reconciles wait, one event per busyIntervalMs; else (or draining) 0. */
  private waitBeforeNext(): number {
    if (this.draining > 0 || !this.busy()) return 0;
    const now = this.now();
    if (now < this.lastSentAt) this.lastSentAt = now; // the wall clock stepped back
    return this.lastSentAt + this.busyIntervalMs - now;
  }

  private kick(): void {
    if (this.sending) return;
    this.sending = this.send().finally(() => {
      this.sending = undefined;
      // Queued after the loop's last look and before this callback.
      if (this.waiting() > 0) this.kick();
    });
  }

  private async send(): Promise<void> {
    while (this.waiting() > 0) {
      const wait = this.waitBeforeNext();
      if (wait > 0) {
        await this.sleep(wait);
        continue; // busy still?
      }
      const next = this.pending.Warning.shift() ?? this.pending.Normal.shift();
      if (!next) break;
      const { action, sent, about } = next;
      this.lastSentAt = this.now();
      try {
        if (action === 'create') await this.create(sent, sent.event);
        else await this.sendRepeat(sent);
      } catch (err) {
        const tries = (next.tries ?? 0) + 1;
        if (worthRetrying(err) && tries < MAX_TRIES) {
          // First in line again: the events behind it would meet the same fault.
          const type = sent.event.type as EventType;
          this.pending[type].unshift({ ...next, tries });
          const delay = this.retryMs * 2 ** Math.min(tries - 1, 4);
          this.log.debug('cannot record event yet; retrying', {
            ...about,
            tries,
            retryInMs: delay,
            error: String(err),
          });
          await this.sleep(delay / 2 + (Math.random() * delay) / 2);
          continue;
        }
        // A namespace being deleted refuses new objects; its resources are going too, so this is no news.
        const level = isNamespaceTerminating(err) ? 'debug' : 'warn';
        this.log[level]('cannot record event', { ...about, tries, error: String(err) });
      }
    }
    if (this.dropped > 0) {
      this.log.warn('events dropped while too many were waiting', { dropped: this.dropped });
      this.dropped = 0;
    }
  }

  /** A repeat: the Event's count and last time, or a new Event with the count if that one is gone. */
  private async sendRepeat(repeat: Sent): Promise<void> {
    repeat.patching = false;
    const patch = { count: repeat.count, lastTimestamp: new Date(repeat.last).toISOString() };
    if (repeat.name) {
      try {
        await this.writer.mergePatch(EVENT, repeat.namespace, repeat.name, patch);
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err; // an Event lives an hour: then a new one says the count
      }
    }
    await this.create(repeat, { ...repeat.event, ...patch });
  }

  /**
   * Creates the Event and keeps its name, which repeats patch. The name is ours, fixed when the event was
   * emitted, so a try whose answer a network fault ate and the try after it make one Event, not two: the
   * second is refused as already there (client-go's recorder names its events the same way).
   */
  private async create(sent: Sent, event: { metadata: { name: string } }): Promise<void> {
    try {
      await this.writer.create(EVENT, sent.namespace, event);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    sent.name = event.metadata.name;
  }

  /** A suffix no other Event of this recorder has: the time in ms, then a serial number, in hex. */
  private suffix(now: number): string {
    const serial = (this.serial = (this.serial + 1) % 0x10000);
    return `${Math.floor(now).toString(16)}${serial.toString(16).padStart(4, '0')}`;
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [key, sent] of this.sent) if (sent.at < cutoff) this.sent.delete(key);
  }
}
