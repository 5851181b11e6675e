/**
 * The spans of a reconcile (controller/tracing), on the in-memory cluster with the OpenTelemetry SDK's own
 * in-memory exporter: the reconcile's span and its attributes, a span per phase and per child applied,
 * each a child of the right one; the trace id in the log lines; the link to the trace that wrote the
 * resource; and nothing at all when tracing is off.
 */
import { context, trace, type Span, type Tracer } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import {
  DEPLOYMENT,
  SECRET,
  TRACEPARENT_ANNOTATION,
  TRACE_ID_ANNOTATION,
  memcachedKind,
} from '../../../constructs';
import { EventRecorder } from '../../../controller/kube/events';
import { createLogger } from '../../../controller/log';
import { Tracing, groupKind } from '../../../controller/tracing/tracing';
import { FakeProvider, InMemoryCluster } from '../../../testing';
import { ExternalRunner } from '../../../controller/external/runner';
import { dnsRecordKind, type ProviderRecord } from '../../fixtures/kinds/dns-record';
import { NS, kinds } from '../reconcile/reconciler-helpers';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracing = new Tracing(provider.getTracer('test'), new Set([groupKind(memcachedKind)]));

let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster(kinds);
  exporter.reset();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const spans = () => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan => {
  const found = spans().filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0];
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('a reconcile, traced', () => {
  it('is one span with the resource, a child span per phase, and one per child applied under apply', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await cluster.reconciler({ tracing }).reconcile(memcachedKind, NS, 'cache');
    const root = named('reconcile Memcached');
    expect(parentOf(root)).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'reconstruct.kind': 'Memcached',
      'k8s.namespace.name': NS,
      'reconstruct.name': 'cache',
      'reconstruct.generation': 1,
    });
    const phases = spans().filter((s) => parentOf(s) === root.spanContext().spanId);
    expect(phases.map((s) => s.name).sort()).toEqual(
      [
        'apply',
        'external',
        'external finalize',
        'finalize',
        'inputs',
        'prune',
        'status',
        'synthesize',
      ].sort(),
    );
    for (const s of spans()) expect(s.spanContext().traceId).toBe(root.spanContext().traceId);
    const apply = named('apply');
    const deployment = named('apply Deployment cache');
    expect(parentOf(deployment)).toBe(apply.spanContext().spanId);
    expect(deployment.attributes).toMatchObject({
      'reconstruct.child.kind': 'Deployment',
      'reconstruct.outcome': 'created',
    });
    expect(named('apply Service cache').attributes['reconstruct.outcome']).toBe('created');
  });

  it("names a drifted child's field on its apply span", async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await cluster.reconciler({ tracing }).reconcile(memcachedKind, NS, 'cache');
    cluster.patch(DEPLOYMENT, NS, 'cache', { spec: { replicas: 7 } });
    exporter.reset();
    await cluster.reconciler({ tracing }).reconcile(memcachedKind, NS, 'cache');
    expect(named('apply Deployment cache').attributes).toMatchObject({
      'reconstruct.outcome': 'updated',
      'reconstruct.drifted_field': 'spec.replicas',
    });
  });

  it("puts the trace id in the reconcile's log lines", async () => {
    const lines: string[] = [];
    cluster.log = createLogger({ write: (line) => lines.push(line), level: 'info' });
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await cluster.reconciler({ tracing }).reconcile(memcachedKind, NS, 'cache');
    const traceId = named('reconcile Memcached').spanContext().traceId;
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; trace_id?: string });
    expect(logged.map((l) => l.msg)).toContain('created children');
    for (const line of logged) expect(line.trace_id).toBe(traceId);
  });

  it('records a failed reconcile as an error on its span', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    const reconciler = cluster.reconciler({ tracing });
    cluster.refuse('apply', new Error('etcdserver: request timed out'));
    await expect(reconciler.reconcile(memcachedKind, NS, 'cache')).rejects.toThrow('timed out');
    expect(named('reconcile Memcached').status).toMatchObject({
      code: 2,
      message: expect.stringContaining(
        'apply Deployment cache: Error: etcdserver: request timed out',
      ) as string,
    });
    const child = named('apply Deployment cache');
    expect(child.attributes['reconstruct.outcome']).toBe('failed');
    expect(child.status).toMatchObject({ code: 2, message: expect.stringContaining('timed out') as string });
  });
});

describe("a kind's work outside Kubernetes", () => {
  it('is a span per handler call, a child of the external phase of the reconcile that started it', async () => {
    const provider = new FakeProvider<ProviderRecord>();
    const kind = dnsRecordKind(provider);
    const dns = new InMemoryCluster([kind]);
    dns.put(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dns-provider', namespace: 'default' },
      data: { token: Buffer.from('t0ken').toString('base64') },
    });
    dns.external = new ExternalRunner({ reader: dns.writer(), enqueue: () => undefined, tracing });
    dns.putResource(kind, 'www', { zone: 'example.com', name: 'www', values: ['192.0.2.1'] }, 'default');
    const reconciler = dns.reconciler({ tracing });
    await reconciler.reconcile(kind, 'default', 'www'); // its finalizer first
    exporter.reset();
    await reconciler.reconcile(kind, 'default', 'www');
    await dns.external.idle();
    const call = spans().find((s) => s.name.startsWith('external ') && s.name !== 'external finalize')!;
    expect(call.name).toBe('external observe');
    expect(call.attributes['reconstruct.external.action']).toBe('observe');
    const phase = spans().find((s) => s.spanContext().spanId === parentOf(call));
    expect(phase?.name).toBe('external');
    expect(phase?.spanContext().traceId).toBe(named('reconcile DnsRecord').spanContext().traceId);
    expect(provider.calls.map((c) => c.op)).toContain('get');
    expect(call.attributes['reconstruct.external.failure']).toBeUndefined();
  });
});

describe('the link between two reconciles', () => {
  it("links a resource's reconcile to the trace whose traceparent it carries", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    cluster.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    cluster.patch(memcachedKind, NS, 'cache', {
      metadata: { annotations: { [TRACEPARENT_ANNOTATION]: `00-${traceId}-b7ad6b7169203331-01` } },
    });
    await cluster.reconciler({ tracing }).reconcile(memcachedKind, NS, 'cache');
    const root = named('reconcile Memcached');
    expect(root.links.map((l) => l.context.traceId)).toEqual([traceId]);
    expect(root.spanContext().traceId).not.toBe(traceId);
  });

  it('gives the traceparent of the active span to a resource of our kinds, and to nothing else', async () => {
    const memcached = {
      apiVersion: memcachedKind.apiVersion,
      kind: 'Memcached',
      metadata: { name: 'x', annotations: { keep: 'me' } },
    };
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } };
    expect(tracing.withTraceparent(memcached)).toBe(memcached); // outside a span
    await tracing.span('parent', {}, (span) => {
      const { traceId, spanId } = (span as Span).spanContext();
      expect(tracing.withTraceparent(memcached).metadata.annotations).toEqual({
        keep: 'me',
        [TRACEPARENT_ANNOTATION]: `00-${traceId}-${spanId}-01`,
      });
      expect(tracing.withTraceparent(deployment)).toBe(deployment);
      return Promise.resolve();
    });
    expect(
      tracing.linksOf({ metadata: { name: 'x', annotations: { [TRACEPARENT_ANNOTATION]: 'garbage' } } }),
    ).toBeUndefined();
  });
});

describe('events', () => {
  it('carry the trace id of the reconcile that emitted them, and none outside one', async () => {
    const created: { metadata: { annotations?: Record<string, string> } }[] = [];
    const writer = {
      create: (_type: unknown, _ns: unknown, body: unknown) => {
        created.push(body as (typeof created)[number]);
        return Promise.resolve(body);
      },
      mergePatch: () => Promise.reject(new Error('no patch expected')),
    };
    const events = new EventRecorder(writer, createLogger({ write: () => {} }), {
      annotations: tracing.eventAnnotations,
    });
    const about = (name: string) => ({
      apiVersion: memcachedKind.apiVersion,
      kind: 'Memcached',
      metadata: { name, namespace: NS, uid: name },
    });
    let traceId = '';
    await tracing.span('reconcile', {}, (span) => {
      traceId = (span as Span).spanContext().traceId;
      events.emit(about('a'), 'Normal', 'Created', 'inside');
      return Promise.resolve();
    });
    events.emit(about('b'), 'Normal', 'Created', 'outside');
    await events.drain();
    expect(created.map((e) => e.metadata.annotations)).toEqual([
      { [TRACE_ID_ANNOTATION]: traceId },
      undefined,
    ]);
  });
});

describe('a reconcile the sampler leaves out', () => {
  it('starts no span but its own, and names no trace in its log lines', async () => {
    const unsampled = new NodeTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer('test');
    let started = 0;
    const counting = {
      startSpan: (...args: Parameters<Tracer['startSpan']>) => {
        started++;
        return unsampled.startSpan(...args);
      },
      startActiveSpan: (...args: unknown[]) => {
        started++;
        return (unsampled.startActiveSpan as (...a: unknown[]) => unknown)(...args);
      },
    } as Tracer;
    const lines: string[] = [];
    cluster.log = createLogger({ write: (line) => lines.push(line), level: 'info' });
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await cluster.reconciler({ tracing: new Tracing(counting) }).reconcile(memcachedKind, NS, 'cache');
    expect(started).toBe(1);
    expect(cluster.any(DEPLOYMENT, NS, 'cache')).toBeDefined();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain('trace_id');
  });
});

describe('off (the default)', () => {
  it('makes no span and changes nothing the reconcile writes', async () => {
    cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await cluster.reconciler({ tracing: Tracing.off }).reconcile(memcachedKind, NS, 'cache');
    const off = cluster.takeWrites().map((w) => `${w.verb} ${w.kind}/${w.name}`);
    expect(spans()).toEqual([]);
    expect(Tracing.off.traceId()).toBeUndefined();
    const other = new InMemoryCluster(kinds);
    other.putResource(memcachedKind, 'cache', { size: 2 }, NS);
    await other.reconciler({ tracing }).reconcile(memcachedKind, NS, 'cache');
    expect(other.takeWrites().map((w) => `${w.verb} ${w.kind}/${w.name}`)).toEqual(off);
    expect(spans().length).toBeGreaterThan(0);
  });
});
