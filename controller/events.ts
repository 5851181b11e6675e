/**
 * Kubernetes Events about our custom resources, with a spam filter: the same event for the same object is
 * sent at most once per window, so a resource stuck in a failing state cannot flood the API server.
 * Events are sent in the background, one at a time, as client-go's broadcaster does: a burst of new
 * resources must not double the writes competing with the applies, and an event never delays a reconcile.
 */
import type { CustomResource } from '../constructs/resource';
import type { Writer } from './api';
import { isNamespaceTerminating } from './kube/client';
import { EVENT } from './kube/paths';
import type { Logger } from './log';

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  private readonly sent = new Map<string, number>();
  private readonly pending: { namespace: string; event: object; about: Record<string, unknown> }[] = [];
  private sending?: Promise<void>;
  private dropped = 0;

  constructor(
    private readonly writer: Writer,
    private readonly log: Logger,
    private readonly component = 'reconstruct',
    private readonly windowMs = 10 * 60_000,
    private readonly now = () => Date.now(),
    /** Events waiting beyond this are dropped, as client-go's broadcaster drops them (its queue holds 1,000). */
    private readonly maxPending = 1000,
  ) {}

  /** Queues an event for the background sender; never throws, never waits. */
  emit(
    object: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    const key = [object.metadata.uid, type, reason, message].join('\u0000');
    const now = this.now();
    const last = this.sent.get(key);
    if (last !== undefined && now - last < this.windowMs) return;
    const { name, namespace, uid, resourceVersion } = object.metadata;
    const about = { kind: object.kind, namespace, name, reason };
    if (this.pending.length >= this.maxPending) {
      if (this.dropped++ === 0) this.log.warn('too many events waiting; dropping', about);
      return;
    }
    this.sent.set(key, now);
    if (this.sent.size > 10_000) this.forgetOlderThan(now - this.windowMs);

    // Events of cluster-scoped objects live in the default namespace, as kubectl describe expects.
    const eventNamespace = namespace ?? 'default';
    const time = new Date(now).toISOString();
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${name}.`, namespace: eventNamespace },
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
    this.pending.push({ namespace: eventNamespace, event, about });
    this.kick();
  }

  /** Resolves once every queued event has been sent (or has failed). */
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private kick(): void {
    if (this.sending) return;
    this.sending = this.send().finally(() => {
      this.sending = undefined;
      // Queued after the loop's last look and before this callback.
      if (this.pending.length > 0) this.kick();
    });
  }

  private async send(): Promise<void> {
    for (let next = this.pending.shift(); next; next = this.pending.shift()) {
      const { namespace, event, about } = next;
      try {
        await this.writer.create(EVENT, namespace, event);
      } catch (err) {
        // A namespace being deleted refuses new objects; its resources are going too, so this is no news.
        const level = isNamespaceTerminating(err) ? 'debug' : 'warn';
        this.log[level]('cannot record event', { ...about, error: String(err) });
      }
    }
    if (this.dropped > 0) {
      this.log.warn('events dropped while too many were waiting', { dropped: this.dropped });
      this.dropped = 0;
    }
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [key, at] of this.sent) if (at < cutoff) this.sent.delete(key);
  }
}
