/**
 * Traces of the reconciles (OpenTelemetry): a span per reconcile, child spans per phase, per child
 * applied, per external handler call and per API request, each a child of the span active where it starts
 * (the context follows the reconcile's promises, AsyncLocalStorage). A resource a reconcile of another
 * kind of ours wrote carries that reconcile's `traceparent` in an annotation: its own reconciles link to it.
 *
 * Off by default, and then nothing but a branch: `Tracing.off` runs each function as it is, makes no
 * span, reads no context. setup.ts turns it on from the OTEL_* variables and the controller's flags.
 */
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TRACEPARENT_ANNOTATION, TRACE_ID_ANNOTATION, type KubeObject } from '../../constructs/kit';

const propagator = new W3CTraceContextPropagator();
const carrierGetter = {
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
  get: (carrier: Record<string, string>, key: string) => carrier[key],
};
const carrierSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

export class Tracing {
  /** No spans: every function runs as it is. */
  static readonly off = new Tracing(undefined);

  /**
   * @param tracer none: off
   * @param kinds the kinds of this controller, as `group/Kind`: a child of one of them carries the traceparent
   */
  constructor(
    private readonly tracer: Tracer | undefined,
    private readonly kinds: ReadonlySet<string> = new Set(),
  ) {}

  get on(): boolean {
    return this.tracer !== undefined;
  }

  /**
   * The tracer, when a span started now would be recorded: not when off, nor inside a trace the sampler
   * left out (its spans would be dropped anyway; not starting them saves a context switch per phase).
   */
  private recording(): Tracer | undefined {
    if (!this.tracer) return undefined;
    const active = trace.getActiveSpan();
    return !active || active.isRecording() ? this.tracer : undefined;
  }

  /** The active span, when it is recorded (sampled). */
  private static recorded(): Span | undefined {
    const active = trace.getActiveSpan();
    return active?.isRecording() ? active : undefined;
  }

  /**
   * Runs `fn` in a span named `name`, a child of the active one: its outcome ends it (an error is recorded
   * on it and thrown again). `fn` is given the span to add attributes to, when there is one.
   */
  span<T>(
    name: string,
    attributes: Attributes,
    fn: (span: Span | undefined) => Promise<T>,
    links?: Link[],
  ): Promise<T> {
    const tracer = this.recording();
    if (!tracer) return fn(undefined);
    return tracer.startActiveSpan(name, { attributes, ...(links ? { links } : {}) }, async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        failed(span, err);
        throw err;
      } finally {
        span.end();
      }
    });
  }

  /** A phase of the reconcile: a span of that name around `fn`, or `fn` as it is. */
  phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.recording() ? this.span(name, {}, fn) : fn();
  }

  /** `fn`, to run later (a queue's turn) in the context active now: its spans are children of today's. */
  bind<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return this.tracer && Tracing.recorded() ? context.bind(context.active(), fn) : fn;
  }

  /** `span` for work that does not wait (a synthesis). */
  spanSync<T>(name: string, attributes: Attributes, fn: (span: Span | undefined) => T): T {
    const tracer = this.recording();
    if (!tracer) return fn(undefined);
    return tracer.startActiveSpan(name, { attributes }, (span) => {
      try {
        return fn(span);
      } catch (err) {
        failed(span, err);
        throw err;
      } finally {
        span.end();
      }
    });
  }

  /**
   * A span that ended already, a child of the active one: an API request, reported once its answer is in
   * (KubeClient.onRequest). None outside a span: the informers' lists and watches are no reconcile's.
   */
  ended(name: string, attributes: Attributes, seconds: number, error?: unknown): void {
    const tracer = this.tracer;
    if (!tracer || !Tracing.recorded()) return;
    const end = Date.now();
    const span = tracer.startSpan(name, { attributes, startTime: end - seconds * 1000 });
    if (error !== undefined) failed(span, error);
    span.end(end);
  }

  /** Marks `span` (when there is one) as failed with `message`. */
  failed(span: Span | undefined, message: string): void {
    if (span) span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  /**
   * The active trace's id, for the log lines and events of the reconcile; undefined when off, outside one,
   * or in one the sampler left out (there is nothing to find by that id).
   */
  traceId(): string | undefined {
    if (!this.tracer) return undefined;
    const ctx = Tracing.recorded()?.spanContext();
    return ctx && trace.isSpanContextValid(ctx) ? ctx.traceId : undefined;
  }

  /** `{ trace_id }` for a logger's fields, or nothing. */
  logFields(): Record<string, string> {
    const id = this.traceId();
    return id ? { trace_id: id } : {};
  }

  /** The annotation an Event carries to name the trace of the reconcile that emitted it, or none. */
  eventAnnotations = (): Record<string, string> | undefined => {
    const id = this.traceId();
    return id ? { [TRACE_ID_ANNOTATION]: id } : undefined;
  };

  /**
   * `object` with the active span's `traceparent` annotation when it is a resource of one of our kinds:
   * its reconciles link to this one. As it is otherwise, when off, or outside a span.
   */
  withTraceparent<T extends KubeObject>(object: T): T {
    if (!this.tracer || !this.kinds.has(groupKind(object)) || !Tracing.recorded()) return object;
    const carrier: Record<string, string> = {};
    propagator.inject(context.active(), carrier, carrierSetter);
    if (!carrier.traceparent) return object;
    const annotations = { ...object.metadata.annotations, [TRACEPARENT_ANNOTATION]: carrier.traceparent };
    return { ...object, metadata: { ...object.metadata, annotations } };
  }

  /** The link to the reconcile that wrote `object`, from its `traceparent` annotation, if it has a valid one. */
  linksOf(object: Pick<KubeObject, 'metadata'> | undefined): Link[] | undefined {
    const traceparent = object?.metadata.annotations?.[TRACEPARENT_ANNOTATION];
    if (!this.tracer || !traceparent) return undefined;
    const extracted = propagator.extract(ROOT_CONTEXT, { traceparent }, carrierGetter);
    const spanContext = trace.getSpanContext(extracted);
    return spanContext && trace.isSpanContextValid(spanContext) ? [{ context: spanContext }] : undefined;
  }
}

/** `group/Kind` of an object or kind (`/Kind` in the core group). */
export function groupKind(object: { readonly apiVersion?: string; readonly kind?: string }): string {
  const apiVersion = object.apiVersion ?? '';
  const slash = apiVersion.lastIndexOf('/');
  return `${slash < 0 ? '' : apiVersion.slice(0, slash)}/${object.kind ?? ''}`;
}

function failed(span: Span, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  span.recordException(err instanceof Error ? err : message);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
