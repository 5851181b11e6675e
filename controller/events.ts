/**
 * Kubernetes Events about our custom resources, with a spam filter: the same event for the same object is
 * sent at most once per window, so a resource stuck in a failing state cannot flood the API server.
 */
import type { CustomResource } from '../constructs/resource';
import type { Writer } from './api';
import { isNamespaceTerminating } from './kube/client';
import { EVENT } from './kube/paths';
import type { Logger } from './log';

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  private readonly sent = new Map<string, number>();

  constructor(
    private readonly writer: Writer,
    private readonly log: Logger,
    private readonly component = 'reconstruct',
    private readonly windowMs = 10 * 60_000,
    private readonly now = () => Date.now(),
  ) {}

  /** Records an event; never throws (an event is worth less than the reconcile that emits it). */
  async emit(
    object: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>,
    type: EventType,
    reason: string,
    message: string,
  ): Promise<void> {
    const key = [object.metadata.uid, type, reason, message].join('\u0000');
    const now = this.now();
    const last = this.sent.get(key);
    if (last !== undefined && now - last < this.windowMs) return;
    this.sent.set(key, now);
    if (this.sent.size > 10_000) this.forgetOlderThan(now - this.windowMs);

    const { name, namespace, uid, resourceVersion } = object.metadata;
    // Events of cluster-scoped objects live in the default namespace, as kubectl describe expects.
    const eventNamespace = namespace ?? 'default';
    const time = new Date(now).toISOString();
    try {
      await this.writer.create(EVENT, eventNamespace, {
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
      });
    } catch (err) {
      // A namespace being deleted refuses new objects; its resources are going too, so this is no news.
      const level = isNamespaceTerminating(err) ? 'debug' : 'warn';
      this.log[level]('cannot record event', {
        kind: object.kind,
        namespace,
        name,
        reason,
        error: String(err),
      });
    }
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [key, at] of this.sent) if (at < cutoff) this.sent.delete(key);
  }
}
