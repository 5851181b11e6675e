/**
 * Traces of the reconciles, seen in a real OpenTelemetry Collector (scripts/otel/collector, built from the
 * Go module proxy) that the controller sends to over OTLP/HTTP (`--otlp-endpoint`): a Memcached's
 * reconcile span with its attributes, its phases, the apply of each child and the API requests under it,
 * each with the right parent; its trace id in the controller's log lines and the resource's Events; and a
 * CacheFleet whose children are Memcached resources, whose reconciles link to the fleet's trace.
 */
import { TRACE_ID_ANNOTATION, memcachedKind } from '../../constructs';
import { startCollector, type ReceivedSpan, type RunningCollector } from '../support/collector';
import { startController, watchingOnly, type RunningController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  installCrds,
  kubectl,
  waitFor,
} from '../support/kubectl';
import { memcached } from '../fixtures/resources';
import { cacheFleetKind } from '../fixtures/kinds/cache-fleet';
import { join } from 'node:path';

jest.setTimeout(240_000);

let ns: string;
let collector: RunningCollector | undefined;
let controller: RunningController | undefined;

beforeAll(async () => {
  collector = await startCollector();
  installCrds([memcachedKind, cacheFleetKind]);
  ns = createNamespace('tracing');
  controller = await startController(
    [
      ...watchingOnly(ns, 'tracing'),
      '--kinds',
      join(__dirname, '../fixtures/kinds/cache-fleet.ts'),
      '--otlp-endpoint',
      collector.endpoint,
    ],
    // Spans go out at once, not in batches of 5 s: the test waits less.
    { OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_SERVICE_NAME: 'reconstruct-tracing-test' },
  );
});
afterAll(async () => {
  await controller?.stop('SIGTERM');
  await collector?.stop();
  if (ns) deleteNamespace(ns);
});

const ours = () =>
  collector!.spans().filter((s) => s.resource['service.name'] === 'reconstruct-tracing-test');
const byId = (spans: ReceivedSpan[]) => new Map(spans.map((s) => [s.spanId, s]));

/**
 * The first trace of a reconcile of `kind` `name` with a span `span` (of that `outcome`, when given: a
 * first apply may fail while the API server maps a kind just installed), once the collector has it whole.
 */
async function traceOf(kind: string, name: string, span: string, outcome?: string): Promise<ReceivedSpan[]> {
  let found: ReceivedSpan[] = [];
  await waitFor(
    () => {
      const spans = ours();
      const roots = spans.filter(
        (s) => s.name === `reconcile ${kind}` && s.attributes['reconstruct.name'] === name,
      );
      for (const root of roots) {
        const trace = spans.filter((s) => s.traceId === root.traceId);
        const wanted = (s: ReceivedSpan) =>
          s.name === span && (outcome === undefined || s.attributes['reconstruct.outcome'] === outcome);
        if (trace.some(wanted) && trace.some((s) => s.name === 'status')) {
          found = trace;
          return true;
        }
      }
      return false;
    },
    { what: `a trace of ${kind} ${name} with a span ${span} ${outcome ?? ''}`, timeoutMs: 60_000 },
  );
  return found;
}

it("sends a reconcile's spans to the collector, with the right parents and attributes", async () => {
  applyYaml(JSON.stringify(memcached('traced', { size: 1 }, ns)));
  const trace = await traceOf('Memcached', 'traced', 'apply Deployment traced', 'created');
  const one = (name: string) => {
    const found = trace.filter((s) => s.name === name);
    expect(found.map((s) => s.name)).toEqual([name]);
    return found[0];
  };
  const root = one('reconcile Memcached');
  expect(root.parentSpanId).toBe('');
  expect(root.attributes).toMatchObject({
    'reconstruct.kind': 'Memcached',
    'k8s.namespace.name': ns,
    'reconstruct.name': 'traced',
    'reconstruct.generation': 1,
  });
  expect(root.resource['service.version']).toEqual(expect.any(String));
  for (const phase of ['inputs', 'finalize', 'synthesize', 'apply', 'prune', 'status'])
    expect(one(phase).parentSpanId).toBe(root.spanId);
  const deployment = one('apply Deployment traced');
  expect(deployment.parentSpanId).toBe(one('apply').spanId);
  // The server-side apply of the Deployment, a request under its child's span.
  const patch = trace.find((s) => s.name === 'PATCH deployments');
  expect(patch?.parentSpanId).toBe(deployment.spanId);
  expect(patch?.attributes).toMatchObject({
    'http.request.method': 'PATCH',
    'http.response.status_code': 201, // created by the apply
  });
  // The status write, under the status phase (of the reconcile that writes it: a first one may hold it).
  const written = await traceOf('Memcached', 'traced', 'PATCH memcacheds/status');
  const status = written.find((s) => s.name === 'PATCH memcacheds/status')!;
  expect(byId(written).get(status.parentSpanId)?.name).toBe('status');

  // The trace id in the reconcile's log lines, and on the resource's Events.
  const logged = controller!.logs
    .filter((l) => l.includes('"created children"') && l.includes('"name":"traced"'))
    .map((l) => JSON.parse(l) as { trace_id?: string });
  expect(logged.map((l) => l.trace_id)).toContain(root.traceId);
  // An Event (a change of the spec updates the Deployment) names the trace of the reconcile that emitted it.
  kubectl(['patch', 'memcached', 'traced', '-n', ns, '--type=merge', '-p', '{"spec":{"size":2}}']);
  type Event = {
    reason: string;
    involvedObject: { name: string };
    metadata: { annotations?: Record<string, string> };
  };
  let updated: Event | undefined;
  await waitFor(
    () =>
      (updated = getJson<{ items: Event[] }>(['events', '-n', ns]).items.find(
        (e) => e.involvedObject.name === 'traced' && e.reason === 'Updated',
      )),
    { what: 'the Updated event', timeoutMs: 30_000 },
  );
  const eventTrace = updated!.metadata.annotations?.[TRACE_ID_ANNOTATION];
  await waitFor(() => ours().some((s) => s.traceId === eventTrace && s.name === 'reconcile Memcached'), {
    what: "the Event's trace in the collector",
  });
  const update = ours().filter((s) => s.traceId === eventTrace);
  expect(update.find((s) => s.name === 'reconcile Memcached')?.attributes['reconstruct.generation']).toBe(2);
  expect(update.find((s) => s.name === 'apply Deployment traced')?.attributes['reconstruct.outcome']).toBe(
    'updated',
  );
});

it("links the reconciles of a resource written by another kind's reconcile to that trace", async () => {
  applyYaml(
    JSON.stringify({
      apiVersion: cacheFleetKind.apiVersion,
      kind: cacheFleetKind.kind,
      metadata: { name: 'fleet', namespace: ns },
      spec: { caches: 2 },
    }),
  );
  const fleet = await traceOf('CacheFleet', 'fleet', 'apply Memcached fleet-0', 'created');
  const written = fleet.find((s) => s.name === 'apply Memcached fleet-0')!;
  const cache = await traceOf('Memcached', 'fleet-0', 'apply Deployment fleet-0');
  const root = cache.find((s) => s.name === 'reconcile Memcached')!;
  expect(root.traceId).not.toBe(written.traceId);
  // Linked to the span of the fleet's apply that wrote it.
  expect(root.links).toEqual([{ traceId: written.traceId, spanId: written.spanId }]);
});
