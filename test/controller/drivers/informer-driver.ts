/**
 * Runs an Informer on ConfigMaps against the cluster of KUBECONFIG and prints what it sees, one
 * JSON object per line: {t:'add'|'update'|'delete', name, data, rv}, {t:'synced'}, {t:'restart',
 * reason}, {t:'cache', items}. Config: DRIVER_CONFIG (JSON, see below).
 *
 * Commands on stdin:
 *   cache    print the cache ({t:'cache', items: {name: data}})
 *   index V  print the names list(namespace, {label: config.indexLabel, value: V}) returns ({t:'index', names})
 *   resync   informer.resync()
 *   hold     end the current watch and hold the next one until `release`, which then answers
 *            with the API server's "too old resourceVersion" event (ERROR, Status 410 Expired):
 *            the informer must relist and deliver what changed meanwhile from the real server.
 *            (A real 410 needs the watch cache to have dropped the resourceVersion, which a young
 *            cluster never does within a test: it replays even resourceVersion 1, compacted or not.)
 *   release  see hold
 *   stop     informer.stop(), print {t:'stopped'}, exit 0
 */
import { createInterface } from 'node:readline';
import { Informer } from '../../../controller/runtime/informer';
import { loadClient, type KubeClient } from '../../../controller/kube/client';
import type { KubeRequest } from '../../../controller/kube/http';
import type { WatchEvent } from '../../../controller/kube/watch';
import { CONFIG_MAP, type ApiKind, type KubeObject } from '../../../constructs/kit';
import { createLogger } from '../../../controller/log';

interface Config {
  namespace: string;
  labelSelector?: string;
  watchTimeoutSeconds?: number;
  inactivityMs?: number;
  pageSize?: number;
  /** Handlers throw for objects whose name starts with this. */
  throwOn?: string;
  /** Default: ConfigMaps. */
  type?: ApiKind;
  metadataOnly?: boolean;
  /** A label the informer indexes (see the `index` command). */
  indexLabel?: string;
}

const config = JSON.parse(process.env.DRIVER_CONFIG ?? '{}') as Config;
const print = (line: Record<string, unknown>) => process.stdout.write(JSON.stringify(line) + '\n');
const log = createLogger({ level: 'debug', format: 'json' });

const real = loadClient({ userAgent: 'informer-driver' });
const requests: string[] = [];
real.onRequest = (verb, code) => requests.push(`${verb}:${code}`);

// The test's levers on the watch stream, from outside the informer.
let hold: { release: Promise<void>; resolve: () => void } | undefined;
let endCurrent: (() => void) | undefined;

const client: KubeClient = {
  request: (req) => real.request(req),
  watch: (req: KubeRequest): AsyncIterable<WatchEvent> => ({
    async *[Symbol.asyncIterator]() {
      if (hold) {
        await hold.release;
        hold = undefined;
        yield {
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            message: `too old resource version: ${String(req.query?.resourceVersion)} (0)`,
            reason: 'Expired',
            code: 410,
          },
        };
        return;
      }
      const ctl = new AbortController();
      const onOuter = () => ctl.abort();
      if (req.signal?.aborted) ctl.abort();
      req.signal?.addEventListener('abort', onOuter, { once: true });
      let ended = false;
      endCurrent = () => {
        ended = true;
        ctl.abort();
      };
      try {
        for await (const event of real.watch({ ...req, signal: ctl.signal })) yield event;
      } catch (err) {
        // `hold` ends the stream as a server closing it would.
        if (ended && !req.signal?.aborted) return;
        throw err;
      } finally {
        req.signal?.removeEventListener('abort', onOuter);
      }
    },
  }),
};

const describe = (obj: KubeObject) => ({
  name: obj.metadata.name,
  data: (obj as { data?: unknown }).data,
  rv: obj.metadata.resourceVersion,
  kind: obj.kind,
  apiVersion: obj.apiVersion,
});
const maybeThrow = (obj: KubeObject) => {
  if (config.throwOn && obj.metadata.name.startsWith(config.throwOn))
    throw new Error(`handler fails on purpose`);
};

const informer = new Informer(
  client,
  {
    type: config.type ?? CONFIG_MAP,
    namespace: config.namespace,
    labelSelector: config.labelSelector,
    watchTimeoutSeconds: config.watchTimeoutSeconds,
    inactivityMs: config.inactivityMs,
    pageSize: config.pageSize,
    metadataOnly: config.metadataOnly,
    indexLabels: config.indexLabel ? [config.indexLabel] : undefined,
    backoff: { initialMs: 100, maxMs: 1000 },
  },
  {
    onAdd: (obj) => {
      print({ t: 'add', ...describe(obj) });
      maybeThrow(obj);
    },
    onUpdate: (oldObj, newObj) => {
      print({ t: 'update', ...describe(newObj), oldRv: oldObj.metadata.resourceVersion });
      maybeThrow(newObj);
    },
    onDelete: (obj) => {
      print({ t: 'delete', ...describe(obj) });
      maybeThrow(obj);
    },
  },
  log,
  { watchRestarts: (resource, reason) => print({ t: 'restart', resource, reason }) },
);

informer.start();
informer.waitForSync().then(
  () =>
    print({ t: 'synced', size: informer.size, lists: requests.filter((r) => r.startsWith('list')).length }),
  (err: unknown) => print({ t: 'error', error: String(err) }),
);

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, arg] = line.trim().split(/\s+/);
  switch (command) {
    case 'index':
      print({
        t: 'index',
        names: informer
          .list(config.namespace, { label: config.indexLabel ?? '', value: arg ?? '' })
          .map((o) => o.metadata.name)
          .sort(),
      });
      break;
    case 'cache':
      print({
        t: 'cache',
        items: Object.fromEntries(
          informer.list(config.namespace).map((o) => [o.metadata.name, describe(o).data]),
        ),
        get: informer.get(config.namespace, 'a') ? 'a' : undefined,
        requests,
      });
      break;
    case 'resync':
      informer.resync();
      print({ t: 'resynced' });
      break;
    case 'hold': {
      let resolve!: () => void;
      const release = new Promise<void>((r) => (resolve = r));
      hold = { release, resolve };
      endCurrent?.();
      print({ t: 'holding' });
      break;
    }
    case 'release':
      hold?.resolve();
      print({ t: 'released' });
      break;
    case 'stop':
      void informer.stop().then(() => {
        print({ t: 'stopped' });
        process.exit(0);
      });
      break;
  }
});
