/**
 * The watches of the objects inputs name (controller/inputs/watches.ts), on a small API server in memory
 * that answers a list and streams a watch of one name: each object is watched once however many resources
 * read it; a change enqueues exactly its readers, once; the first list enqueues them only if the object
 * moved since they read it; a watch ends when its last reader lets go; a watch refused is said once, and
 * the object is then read by a GET; a Secret the spec names is polled by GETs instead.
 */
import { CONFIG_MAP, SECRET, type KubeObject } from '../../../constructs';
import type { KubeClient } from '../../../controller/kube/client';
import { ApiError } from '../../../controller/kube/errors';
import type { KubeRequest } from '../../../controller/kube/http';
import type { WatchEvent } from '../../../controller/kube/watch';
import { ReferenceWatches } from '../../../controller/inputs/watches';
import { recordingLogger } from '../../support/logger';
import { waitFor } from '../../support/kubectl';
import { sleep } from '../../../controller/abortable';

const NS = 'web';
const settings = (rv: string, theme = 'dark'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: NS, resourceVersion: rv },
  data: { theme },
});
const ref = { type: CONFIG_MAP, namespace: NS, name: 'settings' };

/** One ConfigMap namespace's worth of API server: lists by name, streams what `send` sends to each watch. */
function server(objects: Map<string, KubeObject>, refuse = false) {
  const requests: string[] = [];
  const streams = new Set<(event: WatchEvent | undefined) => void>();
  const nameOf = (req: KubeRequest) => String(req.query?.fieldSelector).replace('metadata.name=', '');
  const client: KubeClient = {
    request: async <T>(req: KubeRequest): Promise<T> => {
      await Promise.resolve(); // answered on a later turn, as over the network
      if (!req.query?.fieldSelector) {
        requests.push(`get ${req.path}`);
        const found = objects.get(req.path.split('/').pop()!);
        if (!found) throw new ApiError(404, 'not found', { reason: 'NotFound' });
        return found as T;
      }
      requests.push(`list ${req.query?.fieldSelector}`);
      if (refuse) throw new ApiError(403, 'configmaps is forbidden', { reason: 'Forbidden' });
      const found = objects.get(nameOf(req));
      const body = {
        kind: 'ConfigMapList',
        metadata: { resourceVersion: '100' },
        items: found ? [found] : [],
      };
      // The body is the list the reflector asked for, read as its T as it reads JSON.
      return body as T;
    },
    watch: (req: KubeRequest): AsyncIterable<WatchEvent> => {
      requests.push(`watch ${req.query?.fieldSelector}`);
      const queued: WatchEvent[] = [];
      let wake: (() => void) | undefined;
      const push = (event: WatchEvent | undefined) => {
        if (event) queued.push(event);
        wake?.();
      };
      return {
        async *[Symbol.asyncIterator]() {
          streams.add(push);
          req.signal?.addEventListener('abort', () => push(undefined));
          try {
            while (!req.signal?.aborted) {
              const event = queued.shift();
              if (event) yield event;
              else await new Promise<void>((r) => (wake = r));
            }
          } finally {
            streams.delete(push);
          }
        },
      };
    },
  };
  const send = (event: WatchEvent) => streams.forEach((push) => push(event));
  return { client, requests, send, watching: () => streams.size };
}

function watches(objects: Map<string, KubeObject>, refuse = false) {
  const api = server(objects, refuse);
  const enqueued: string[] = [];
  const { log, lines } = recordingLogger();
  const refs = new ReferenceWatches(api.client, { enqueue: (key) => enqueued.push(key), log, pollMs: 200 });
  refs.start();
  return { ...api, refs, enqueued, lines };
}

let running: ReferenceWatches | undefined;
afterEach(() => running?.stop());

it('watches an object once for all its readers, and a change enqueues each of them once', async () => {
  const w = watches(new Map([['settings', settings('1')]]));
  running = w.refs;
  w.refs.track('shop', [{ ...ref, seen: '1' }]);
  w.refs.track('blog', [{ ...ref, seen: '1' }]);
  await waitFor(() => w.refs.get(ref) !== undefined, { what: 'the watch synced' });
  // Synced as they read it: no news. One list, one watch, by name.
  expect(w.requests).toEqual(['list metadata.name=settings', 'watch metadata.name=settings']);
  expect(w.enqueued).toEqual([]);
  expect(w.refs.get(ref)?.object?.data).toEqual({ theme: 'dark' });

  w.send({ type: 'MODIFIED', object: settings('2', 'light') });
  await waitFor(() => w.enqueued.length === 2, { what: 'the readers enqueued' });
  expect(w.enqueued.sort()).toEqual(['blog', 'shop']);
  expect(w.refs.get(ref)?.object?.data).toEqual({ theme: 'light' });

  // A reader that lets go hears no more; the last one ends the watch.
  w.refs.forget('blog');
  w.send({ type: 'DELETED', object: settings('3', 'light') });
  await waitFor(() => w.enqueued.length === 3, { what: 'the remaining reader enqueued' });
  expect(w.enqueued[2]).toBe('shop');
  expect(w.refs.get(ref)).toEqual({ object: undefined });
  w.refs.track('shop', []);
  await waitFor(() => w.watching() === 0, { what: 'the watch ended' });
  expect(w.refs.size).toBe(0);
  expect(w.refs.get(ref)).toBeUndefined();
});

it('enqueues the readers when the first list finds the object otherwise than they read it', async () => {
  const w = watches(new Map([['settings', settings('2')]]));
  running = w.refs;
  w.refs.track('shop', [{ ...ref, seen: '1' }]);
  await waitFor(() => w.enqueued.length === 1, { what: 'the reader enqueued' });
  expect(w.enqueued).toEqual(['shop']);

  await w.refs.stop();
  // Read as absent, created before the watch began: news too.
  const again = watches(new Map([['settings', settings('5')]]));
  running = again.refs;
  again.refs.track('blog', [{ ...ref, seen: null }]);
  await waitFor(() => again.enqueued.length === 1, { what: 'the reader enqueued' });
});

it('says once that an object cannot be watched, tries no more, and leaves it to a GET per reconcile', async () => {
  const w = watches(new Map([['settings', settings('1')]]), true);
  running = w.refs;
  w.refs.track('shop', [{ ...ref, seen: '1' }]);
  const said = () =>
    w.lines.filter((l) => l.msg.startsWith('an input cannot be watched')).map((l) => l.fields?.object);
  await waitFor(() => said().length > 0, { what: 'the warning' });
  expect(w.refs.get(ref)).toBeUndefined();
  // Not tried again (the reflector's backoff would try every 30 s at most, warning each time).
  await sleep(2_000);
  expect(w.requests).toEqual(['list metadata.name=settings']);
  expect(said()).toEqual(['v1/ConfigMap/web/settings']);
});

it('polls a Secret the spec names (no watch, no list), and enqueues its readers when it changed', async () => {
  const secret = (rv: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: NS, resourceVersion: rv },
  });
  const objects = new Map([['db', secret('1')]]);
  const w = watches(objects);
  running = w.refs;
  const db = { type: SECRET, namespace: NS, name: 'db' };
  w.refs.track('shop', [{ ...db, seen: '1', poll: true }]);
  await waitFor(() => w.requests.length >= 2, { what: 'two looks' });
  expect(w.enqueued).toEqual([]);
  expect(w.refs.get(db)).toBeUndefined(); // the reader reads it by a GET
  objects.set('db', secret('2'));
  await waitFor(() => w.enqueued.length === 1, { what: 'the reader enqueued' });
  // Its reconcile read version 2: the next looks find nothing new.
  w.refs.track('shop', [{ ...db, seen: '2', poll: true }]);
  const looks = w.requests.length;
  await waitFor(() => w.requests.length >= looks + 2, { what: 'two more looks' });
  expect(w.enqueued).toEqual(['shop']);
  objects.delete('db');
  await waitFor(() => w.enqueued.length === 2, { what: 'the reader enqueued for the deletion' });
  expect(new Set(w.requests)).toEqual(new Set(['get /api/v1/namespaces/web/secrets/db']));
});
