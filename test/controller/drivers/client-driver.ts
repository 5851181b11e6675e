/**
 * Exercises the kube client against the cluster of KUBECONFIG, in namespace DRIVER_CONFIG.namespace,
 * and prints one JSON line per step: {t:'step', step, ok, status, reason, ...} and finally
 * {t:'requests', calls: ['verb:code', ...]}.
 */
import { loadClient, type KubeClient } from '../../../controller/kube/client';
import { ApiError } from '../../../controller/kube/errors';
import type { KubeRequest } from '../../../controller/kube/http';
import { CONFIG_MAP } from '../../../constructs/kit';
import { memcachedKind } from '../../../constructs/memcached';
import { KubeWriter } from '../../../controller/kube/writer';
import { resourcePath } from '../../../controller/kube/paths';

const { namespace } = JSON.parse(process.env.DRIVER_CONFIG ?? '{}') as { namespace: string };
const print = (line: Record<string, unknown>) => process.stdout.write(JSON.stringify(line) + '\n');

interface ConfigMap {
  metadata: { name: string; resourceVersion?: string; managedFields?: { manager: string }[] };
  data?: Record<string, string>;
}

async function main() {
  const client = loadClient({ userAgent: 'client-driver' });
  const calls: string[] = [];
  client.onRequest = (verb, code, seconds) => {
    calls.push(`${verb}:${code}`);
    if (!(seconds >= 0)) throw new Error(`bad seconds ${seconds}`);
  };
  /** One request, or one call of the code under test that makes requests (the Writer's); `T` is the body answered. */
  const step = async <T = ConfigMap>(
    name: string,
    req: KubeRequest | (() => Promise<unknown>),
    extract: (body: T) => unknown = () => undefined,
  ) => {
    try {
      const body = (typeof req === 'function' ? await req() : await client.request(req)) as T;
      print({ t: 'step', step: name, ok: true, value: extract(body) });
      return body;
    } catch (err) {
      const e = err as ApiError;
      print({
        t: 'step',
        step: name,
        ok: false,
        apiError: err instanceof ApiError,
        status: e.status,
        reason: e.reason,
        message: e.message,
      });
      return undefined;
    }
  };
  const cm = (name: string) => resourcePath(CONFIG_MAP, namespace, name);
  const collection = resourcePath(CONFIG_MAP, namespace);
  const memcached = {
    apiVersion: memcachedKind.apiVersion,
    kind: memcachedKind.kind,
    metadata: { name: 'x', namespace },
    spec: { size: 1 },
  };
  const body = (name: string, data: Record<string, string>, rv?: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(rv ? { resourceVersion: rv } : {}) },
    data,
  });

  await step('get-missing', { method: 'GET', path: cm('x') });
  const created = await step(
    'create',
    { method: 'POST', path: collection, body: body('x', { a: '1' }) },
    (b) => b.data,
  );
  await step('create-again', { method: 'POST', path: collection, body: body('x', { a: '1' }) });
  await step('merge-patch', { method: 'PATCH', path: cm('x'), body: { data: { b: '2' } } }, (b) => b.data);
  await step('update-stale', {
    method: 'PUT',
    path: cm('x'),
    body: body('x', { c: '3' }, created?.metadata.resourceVersion),
  });
  await step(
    'apply',
    {
      method: 'PATCH',
      path: cm('x'),
      query: { fieldManager: 'client-driver', force: true },
      contentType: 'application/apply-patch+yaml',
      body: body('x', { d: '4' }),
    },
    (b) => ({ data: b.data, managers: b.metadata.managedFields?.map((f) => f.manager) }),
  );
  // The Writer's applies skip the API server's strict second parse (fieldValidation=Ignore): a field the
  // schema does not know must still be refused, for a built-in kind and for a custom resource alike.
  const writer = new KubeWriter(client, 'client-driver');
  await step('writer-apply', () => writer.apply(CONFIG_MAP, body('x', { e: '5' })));
  await step('writer-apply-unknown-field', () =>
    writer.apply(CONFIG_MAP, { ...body('x', {}), datta: { e: '5' } }),
  );
  await step('writer-apply-unknown-spec-field', () =>
    writer.apply(memcachedKind, { ...memcached, spec: { size: 1, sise: 2 } }),
  );
  await step('writer-apply-resource', () => writer.apply(memcachedKind, memcached));
  await step('writer-apply-unknown-status-field', () =>
    writer.applyStatus(memcachedKind, memcached, { nodes: [], nodez: ['a'] }),
  );
  // Gone at once: a controller other tests run cluster-wide must not find it when the namespace goes.
  await step('delete-resource', { method: 'DELETE', path: resourcePath(memcachedKind, namespace, 'x') });
  await step('create-invalid', { method: 'POST', path: collection, body: body('Not_Valid', {}) });
  await step<{ items: ConfigMap[] }>('list', { method: 'GET', path: collection, query: { limit: 1 } }, (b) =>
    b.items.map((i) => i.metadata.name),
  );

  const events: string[] = [];
  for await (const event of client.watch({
    method: 'GET',
    path: collection,
    query: { fieldSelector: 'metadata.name=x', timeoutSeconds: 1 },
  })) {
    events.push(`${event.type}:${(event.object as ConfigMap).metadata.name}`);
  }
  print({ t: 'step', step: 'watch-until-server-closes', ok: true, value: events });

  // Aborted once it streams (its first event, x's ADDED): a timer could fire before a busy server has
  // answered, and the request would count as never answered (watch:0).
  const abort = new AbortController();
  try {
    for await (const event of client.watch({ method: 'GET', path: collection, signal: abort.signal })) {
      void event;
      abort.abort();
    }
    print({ t: 'step', step: 'watch-abort', ok: true });
  } catch (err) {
    const e = err as ApiError;
    print({ t: 'step', step: 'watch-abort', ok: false, apiError: err instanceof ApiError, reason: e.reason });
  }

  await step('delete', { method: 'DELETE', path: cm('x') });
  await step('get-deleted', { method: 'GET', path: cm('x') });
  print({ t: 'requests', calls });
  await streamsOverLimit(client, collection);
}

/**
 * More watches than the server lets one HTTP/2 connection carry (its SETTINGS_MAX_CONCURRENT_STREAMS):
 * a second connection takes the rest, and requests still go through at once, where a stream over the
 * limit would wait until a watch ends (a lease renewal among them loses the lease). Prints the
 * connections with every watch open, the slowest of 10 GETs, and the streams once the watches ended.
 */
async function streamsOverLimit(client: KubeClient, collection: string): Promise<void> {
  const stats = () => client.connections?.() ?? [];
  const limit = stats().find((c) => c.protocol === 'h2')?.maxStreams ?? 0;
  const streams = () => stats().reduce((sum, c) => sum + c.streams, 0);
  const count = limit + 20;
  const abort = new AbortController();
  const watching = Array.from({ length: count }, async (_, i) => {
    const req = { method: 'GET' as const, path: collection, query: { labelSelector: `w=${i}` } };
    try {
      for await (const event of client.watch({ ...req, signal: abort.signal })) void event;
    } catch {
      // Aborted below.
    }
  });
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  };
  await until(() => streams() >= count);
  const open = stats();
  let slowestGetMs = 0;
  for (let i = 0; i < 10; i++) {
    const started = Date.now();
    await client.request({ method: 'GET', path: collection, query: { limit: 1 } });
    slowestGetMs = Math.max(slowestGetMs, Date.now() - started);
  }
  abort.abort();
  await Promise.all(watching);
  await until(() => streams() === 0);
  const value = { protocol: client.protocol, limit, count, open, slowestGetMs, after: streams() };
  print({ t: 'step', step: 'streams-over-limit', ok: limit > 0, value });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    print({ t: 'fatal', error: String(err) });
    process.exit(1);
  },
);
