/**
 * Tracing turned on, or not, from the standard OpenTelemetry variables and the controller's flags.
 *
 * On when an OTLP endpoint is given (`--otlp-endpoint`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT`) or `OTEL_TRACES_EXPORTER` names `otlp` or `console`; never with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Off by default: the SDK is not even loaded.
 * Spans go out in batches over OTLP/HTTP (JSON), to `<endpoint>/v1/traces` (the exporter reads the
 * rest of `OTEL_EXPORTER_OTLP_*`: headers, timeout); sampled by `--trace-sampling RATIO` (parent-based:
 * a resource linked to another's trace is sampled on its own) or `OTEL_TRACES_SAMPLER`, default every
 * reconcile; the resource is `service.name` reconstruct-controller unless `OTEL_SERVICE_NAME` or
 * `OTEL_RESOURCE_ATTRIBUTES` say otherwise.
 */
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from '../log';
import type { Kind } from '../../constructs/kit';
import { Tracing, groupKind } from './tracing';

export interface TracingSettings {
  /** The OTLP/HTTP endpoint (`http://collector:4318`); spans go to its `/v1/traces`. */
  endpoint?: string;
  /** The share of reconciles traced, 0 to 1 (parent-based). @default - OTEL_TRACES_SAMPLER, else 1 */
  sampleRatio?: number;
}

/** What `startTracing` started: its spans, and the flush of what is still buffered at shutdown. */
export interface TracingHandle {
  readonly tracing: Tracing;
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Where spans go, when they go anywhere: an OTLP endpoint's traces URL, or `console`. */
export function tracesDestination(settings: TracingSettings, env: Env): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = settings.endpoint?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (settings.endpoint?.trim()) return `${base!.replace(/\/+$/, '')}/v1/traces`;
  if (traces) return traces;
  if (base) return `${base.replace(/\/+$/, '')}/v1/traces`;
  if (exporters.includes('otlp')) return 'http://localhost:4318/v1/traces';
  if (exporters.includes('console')) return 'console';
  return undefined;
}

/**
 * Starts the OpenTelemetry SDK when tracing is wanted (see the module comment): a tracer provider with a
 * batch span processor, registered as the global one (its AsyncLocalStorage context manager carries the
 * active span through a reconcile's promises). Tracing.off otherwise.
 */
export function startTracing(
  settings: TracingSettings,
  log: Logger,
  about: {
    version: string;
    instance: string;
    /** A member of a sharded controller: its name, on every span. */
    member?: string;
    /** The controller's kinds: a child of one of them carries the traceparent of the reconcile that wrote it. */
    kinds: readonly Pick<Kind, 'apiVersion' | 'kind'>[];
  },
  env: Env = process.env,
): TracingHandle {
  const destination = tracesDestination(settings, env);
  if (!destination) return { tracing: Tracing.off, shutdown: () => Promise.resolve() };
  // Loaded only here: a controller without tracing does not load the SDK at all.
  const node = load<typeof import('@opentelemetry/sdk-trace-node')>('@opentelemetry/sdk-trace-node');
  const resources = load<typeof import('@opentelemetry/resources')>('@opentelemetry/resources');
  const exporter =
    destination === 'console'
      ? new node.ConsoleSpanExporter()
      : new (load<typeof import('@opentelemetry/exporter-trace-otlp-http')>(
          '@opentelemetry/exporter-trace-otlp-http',
        ).OTLPTraceExporter)({ url: destination });
  const ours = resources.resourceFromAttributes({
    'service.name': 'reconstruct-controller',
    'service.version': about.version,
    'service.instance.id': about.instance,
    ...(about.member ? { 'reconstruct.shard.member': about.member } : {}),
  });
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over ours.
  const resource = ours.merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const ratio = settings.sampleRatio;
  const provider = new node.NodeTracerProvider({
    resource,
    ...(ratio !== undefined
      ? { sampler: new node.ParentBasedSampler({ root: new node.TraceIdRatioBasedSampler(ratio) }) }
      : {}),
    spanProcessors: [new node.BatchSpanProcessor(exporter)],
  });
  provider.register();
  const tracer: Tracer = provider.getTracer('reconstruct', about.version);
  log.info('tracing on', {
    destination,
    ...(ratio !== undefined ? { sampleRatio: ratio } : {}),
  });
  return {
    tracing: new Tracing(tracer, new Set(about.kinds.map(groupKind))),
    shutdown: () =>
      provider.shutdown().catch((err: unknown) => log.warn('traces not all sent', { error: String(err) })),
  };
}

function load<T>(module: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when tracing is on, not at start
  return require(module) as T;
}
