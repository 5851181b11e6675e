/**
 * A reflector and cache, like client-go's SharedInformer but for one consumer: LIST, then WATCH
 * from the list's resourceVersion, forever. It never goes silent: a clean close re-watches from
 * the last resourceVersion seen (bookmarks move it), 410 Gone relists and delivers what was
 * missed, any other error backs off and retries. A connection that dies without a word (a middlebox
 * dropping it, a network partition) is found by its deadline: each watch asks the server to end it after
 * `timeoutSeconds` (the server sends a bookmark just before), so one still open a few seconds past
 * that is dead; it is aborted, the idle pooled connections dropped, and the cache relisted.
 */
import { ApiError, isGone, type KubeClient, type WatchEvent } from './kube/client';
import { resourcePath, type ResourceType } from './kube/paths';
import { nullLogger, type Logger } from './log';
import { sleep } from './abortable';
import type { KubeObject, LabelMatch } from '../constructs/kit';

export type { KubeObject, LabelMatch };

/** Called synchronously, in event order; an exception is logged and does not stop the informer. */
export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** The object's last known state. */
  onDelete?(obj: T): void;
}

export interface InformerOptions {
  type: ResourceType;
  /** Watch one namespace only. Default: all namespaces (and always for cluster-scoped kinds). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Server-side timeout of each watch request: a random value between it and twice it (as client-go), so
   * that many informers do not re-watch in lockstep. It bounds how long a dead connection goes unnoticed
   * (see deadlineGraceMs): default 10 s, so at most 25 s, for one re-watch (from the watch cache, no
   * relist) per informer every 10-20 s.
   */
  watchTimeoutSeconds?: number;
  /** A watch not ended by the server this long after its timeoutSeconds is dead. Default: 5 000 ms. */
  deadlineGraceMs?: number;
  /** Also abort a watch that has sent nothing (no event, no bookmark) for this long. Default: none. */
  inactivityMs?: number;
  /** Retry delays after errors: doubling from initialMs up to maxMs, with jitter. Default: 800 ms to 30 s. */
  backoff?: { initialMs: number; maxMs: number };
  /** Page size of LIST requests. Default: 500. */
  pageSize?: number;
  /**
   * Ask the server for metadata only (PartialObjectMetadata), for a cache that needs to know what exists
   * but not what it holds. Objects then come as kind PartialObjectMetadata, apiVersion meta.k8s.io/v1.
   */
  metadataOnly?: boolean;
  /** Applied to every object before it is cached (after managedFields are dropped): keep what is read. */
  transform?: (obj: KubeObject) => KubeObject;
  /** Label keys to index: `list(namespace, { label, value })` on them is a lookup, not a scan. */
  indexLabels?: string[];
}

const LIST_PAGE_TIMEOUT_MS = 20_000;
const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const METADATA_LIST_ONLY =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** What an informer tells its owner besides the objects: restarts, and whether it can list at all. */
export interface InformerObserver {
  watchRestarts?(resource: string, reason: string): void;
  /** The informer synced, or its list or watch started or stopped failing (see `Informer.failure`). */
  stateChanged?(informer: Informer): void;
}

/** Why a watch ended. `deadline` and `inactive`: we ended it, taking its connection for dead. */
type WatchEnd = 'closed' | 'expired' | 'inactive' | 'deadline' | 'stopped';

export class Informer<T extends KubeObject = KubeObject> {
  /** namespace ('' for cluster-scoped) -> name -> object. */
  private readonly store = new Map<string, Map<string, T>>();
  /** label key -> label value -> the cached objects carrying it (see InformerOptions.indexLabels). */
  private readonly index = new Map<string, Map<string, Set<T>>>();
  private readonly resource: string;
  private readonly log: Logger;
  private resourceVersion?: string;
  private synced = false;
  private syncWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  private abort?: AbortController;
  private loop?: Promise<void>;
  /** Aborted by retryNow: cuts a backoff wait short. */
  private wake = new AbortController();
  private lastFailure?: unknown;

  constructor(
    private readonly client: KubeClient,
    private readonly options: InformerOptions,
    private readonly handlers: InformerHandlers<T> = {},
    log?: Logger,
    private readonly observer: InformerObserver = {},
  ) {
    const group = options.type.apiVersion.includes('/') ? options.type.apiVersion.split('/')[0] : '';
    this.resource = group ? `${options.type.plural}.${group}` : options.type.plural;
    for (const label of options.indexLabels ?? []) this.index.set(label, new Map());
    this.log = (log ?? nullLogger).child({
      resource: this.resource,
      ...(options.namespace ? { namespace: options.namespace } : {}),
    });
  }

  /** Starts listing and watching in the background; a no-op when running. */
  start(): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    this.loop = this.run(abort.signal);
  }

  /** Stops the watch; resolves once the loop has ended. Pending waitForSync calls reject. */
  async stop(): Promise<void> {
    const loop = this.loop;
    this.abort?.abort();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    waiters.forEach((w) => w.reject(new Error(`informer for ${this.resource} stopped before it synced`)));
    await loop;
    this.loop = undefined;
  }

  /** True once the first LIST has filled the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** `plural.group` (`plural` for the core group), as RBAC and `kubectl get` name it. */
  get resourceName(): string {
    return this.resource;
  }

  get type(): ResourceType {
    return this.options.type;
  }

  get namespace(): string | undefined {
    return this.options.namespace;
  }

  /** The error of the last list or watch, while the informer retries; undefined once one succeeds. */
  get failure(): unknown {
    return this.lastFailure;
  }

  /**
   * Retries at once if the informer is waiting out a backoff (its CRD was just installed, say); a
   * no-op otherwise.
   */
  retryNow(): void {
    this.wake.abort();
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signalError(signal));
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (err: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      };
      const onAbort = () => {
        this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
        reject(signalError(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(waiter);
    });
  }

  /** The cached object; namespace is ignored for cluster-scoped kinds. */
  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(this.nsKey(namespace))?.get(name);
  }

  /**
   * Cached objects of one namespace, or all of them when namespace is undefined; with `match`, only those
   * whose label has that value (a lookup when the label is indexed).
   */
  list(namespace?: string, match?: LabelMatch): T[] {
    const inNamespace = namespace !== undefined && this.options.type.namespaced;
    const indexed = match && this.index.get(match.label);
    if (match && indexed) {
      const found = [...(indexed.get(match.value) ?? [])];
      return inNamespace ? found.filter((o) => o.metadata.namespace === namespace) : found;
    }
    let out: T[];
    if (inNamespace) out = [...(this.store.get(namespace)?.values() ?? [])];
    else {
      out = [];
      for (const byName of this.store.values()) out.push(...byName.values());
    }
    return match ? out.filter((o) => o.metadata.labels?.[match.label] === match.value) : out;
  }

  /** Number of cached objects. */
  get size(): number {
    let n = 0;
    for (const byName of this.store.values()) n += byName.size;
    return n;
  }

  /** The resourceVersion the next watch starts from. */
  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** Re-delivers onUpdate(obj, obj) for every cached object (used for periodic resync). */
  resync(): void {
    for (const obj of this.list()) this.call('onUpdate', obj, obj);
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = this.options.backoff ?? { initialMs: 800, maxMs: 30_000 };
    let failures = 0;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal);
          needList = false;
        }
        const started = Date.now();
        const { end, events } = await this.watchOnce(signal, () => this.failed(undefined));
        if (end === 'stopped') break;
        this.observer.watchRestarts?.(this.resource, end === 'closed' ? 'timeout' : end);
        if (end === 'expired') {
          this.log.info('watch expired; relisting', { resourceVersion: this.resourceVersion });
          needList = true;
          failures = 0;
          continue;
        }
        if (end === 'inactive' || end === 'deadline') {
          // A healthy watch ends on time (and says something before: a bookmark), so this is a fault.
          this.log.warn('watch connection dead (no end by its deadline, or silent); relisting', {
            reason: end,
          });
          this.client.resetStalled?.();
          needList = true;
          continue;
        }
        // A server that closes every watch at once must not make us spin.
        if (end === 'closed' && events === 0 && Date.now() - started < 1000) {
          failures++;
          await sleep(jittered(backoff, failures), signal);
        } else {
          failures = 0;
        }
      } catch (err) {
        if (signal.aborted) break;
        // A watch from a too old resourceVersion relists at once; a list that fails so (its
        // continue token expired) is retried after a backoff like any other error.
        if (isGone(err) && !needList) {
          this.observer.watchRestarts?.(this.resource, 'expired');
          this.log.info('resourceVersion expired; relisting', { resourceVersion: this.resourceVersion });
          needList = true;
          continue;
        }
        // A watch refused outright (its CRD deleted, its permission revoked) lists again once allowed: the
        // list is what says it is back.
        if (err instanceof ApiError && (err.status === 403 || err.status === 404)) needList = true;
        failures++;
        const delayMs = jittered(backoff, failures);
        this.observer.watchRestarts?.(this.resource, 'error');
        // The same refusal again (a missing CRD, a forbidden list) is said once; its owner says what to do.
        const again = sameFailure(this.lastFailure, err);
        this.log[again ? 'debug' : 'warn'](needList ? 'list failed; retrying' : 'watch failed; retrying', {
          error: err instanceof Error ? err.message : String(err),
          status: err instanceof ApiError ? err.status : undefined,
          retryInMs: Math.round(delayMs),
          failures,
        });
        this.failed(err);
        // A retryNow during the failed request (or this wait) ends the wait at once.
        await sleep(delayMs, AbortSignal.any([signal, this.wake.signal]));
        if (this.wake.signal.aborted) {
          this.wake = new AbortController();
          failures = 0;
        }
      }
    }
  }

  /** Lists everything (paginated) and replaces the cache, delivering the differences. */
  private async relist(signal: AbortSignal): Promise<void> {
    const path = resourcePath(this.options.type, this.options.namespace);
    const items: T[] = [];
    let cont: string | undefined;
    let resourceVersion: string | undefined;
    let itemKind: string | undefined;
    do {
      const page = await this.client.request<{
        kind?: string;
        metadata?: { resourceVersion?: string; continue?: string };
        items?: T[];
      }>({
        method: 'GET',
        path,
        query: {
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          limit: this.options.pageSize ?? 500,
          continue: cont,
        },
        accept: this.options.metadataOnly ? METADATA_LIST_ONLY : undefined,
        // A page of 500 takes the API server well under a second: one that has no answer in 20 s met a
        // dead connection (a partition), and the retry should not wait out the 60 s default.
        timeoutMs: LIST_PAGE_TIMEOUT_MS,
        signal,
      });
      items.push(...(page.items ?? []));
      resourceVersion = page.metadata?.resourceVersion;
      cont = page.metadata?.continue || undefined;
      itemKind ??= page.kind?.replace(/List$/, '');
    } while (cont);
    if (signal.aborted) return;

    // List items carry no apiVersion/kind; handlers and the reconciler want them.
    for (const [i, item] of items.entries()) {
      item.apiVersion ??= this.options.type.apiVersion;
      if (itemKind) item.kind ??= itemKind;
      items[i] = this.prepare(item);
    }
    const old = this.store;
    const fresh = new Map<string, Map<string, T>>();
    for (const item of items) {
      const ns = this.nsKey(item.metadata.namespace);
      let byName = fresh.get(ns);
      if (!byName) fresh.set(ns, (byName = new Map<string, T>()));
      byName.set(item.metadata.name, item);
    }
    // Swap first, so handlers see the new cache; then tell them what changed.
    const previous = new Map(old);
    old.clear();
    for (const [ns, byName] of fresh) old.set(ns, byName);
    for (const byValue of this.index.values()) byValue.clear();
    for (const item of items) this.indexAdd(item);
    let added = 0;
    let updated = 0;
    let deleted = 0;
    for (const item of items) {
      const before = previous.get(this.nsKey(item.metadata.namespace))?.get(item.metadata.name);
      if (!before) {
        added++;
        this.call('onAdd', item);
      } else if (before.metadata.resourceVersion !== item.metadata.resourceVersion) {
        updated++;
        this.call('onUpdate', before, item);
      }
    }
    for (const [ns, byName] of previous) {
      for (const [name, before] of byName) {
        if (!fresh.get(ns)?.has(name)) {
          deleted++;
          this.call('onDelete', before);
        }
      }
    }
    this.resourceVersion = resourceVersion;
    this.log.debug('listed', { items: items.length, added, updated, deleted, resourceVersion });
    const first = !this.synced;
    this.synced = true;
    this.failed(undefined, first);
    if (first) {
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      waiters.forEach((w) => w.resolve());
    }
  }

  /** Records the latest failure (undefined: success) and tells the observer when that changes. */
  private failed(err: unknown, changed = false): void {
    const before = this.lastFailure;
    this.lastFailure = err;
    if (changed || !sameFailure(before, err)) {
      this.observer.stateChanged?.(this);
    }
  }

  /** One watch request, from the last resourceVersion, until it ends; throws on errors. */
  private async watchOnce(
    signal: AbortSignal,
    connected: () => void,
  ): Promise<{ end: WatchEnd; events: number }> {
    const abort = new AbortController();
    const onStop = () => abort.abort();
    signal.addEventListener('abort', onStop, { once: true });
    let dead: 'inactive' | 'deadline' | undefined;
    const kill = (why: 'inactive' | 'deadline') => () => {
      dead = why;
      abort.abort();
    };
    const { inactivityMs } = this.options;
    let watchdog: NodeJS.Timeout | undefined;
    const arm = () => {
      if (inactivityMs === undefined) return;
      if (watchdog) clearTimeout(watchdog);
      watchdog = setTimeout(kill('inactive'), inactivityMs);
    };
    const base = this.options.watchTimeoutSeconds ?? 10;
    const timeoutSeconds = Math.max(1, Math.round(base * (1 + Math.random())));
    const deadline = setTimeout(
      kill('deadline'),
      timeoutSeconds * 1000 + (this.options.deadlineGraceMs ?? 5000),
    );
    let events = 0;
    try {
      arm();
      const stream = this.client.watch({
        method: 'GET',
        path: resourcePath(this.options.type, this.options.namespace),
        query: {
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
        },
        accept: this.options.metadataOnly ? METADATA_ONLY : undefined,
        signal: abort.signal,
      });
      let first = true;
      for await (const event of stream) {
        if (first) connected();
        first = false;
        arm();
        events++;
        if (this.apply(event) === 'expired') return { end: 'expired', events };
      }
      return { end: 'closed', events };
    } catch (err) {
      if (signal.aborted) return { end: 'stopped', events };
      if (dead) return { end: dead, events };
      throw err;
    } finally {
      clearTimeout(deadline);
      if (watchdog) clearTimeout(watchdog);
      signal.removeEventListener('abort', onStop);
      // Ends the request if we returned early (expired).
      abort.abort();
    }
  }

  /** Applies one watch event to the cache and calls the handlers. */
  private apply(event: WatchEvent): 'expired' | undefined {
    const obj = event.object as T | undefined;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED': {
        if (!obj?.metadata?.name) return undefined;
        obj.apiVersion ??= this.options.type.apiVersion;
        const cached = this.prepare(obj);
        const ns = this.nsKey(cached.metadata.namespace);
        let byName = this.store.get(ns);
        if (!byName) this.store.set(ns, (byName = new Map<string, T>()));
        const before = byName.get(cached.metadata.name);
        byName.set(cached.metadata.name, cached);
        if (before) this.indexRemove(before);
        this.indexAdd(cached);
        this.resourceVersion = cached.metadata.resourceVersion ?? this.resourceVersion;
        if (before) this.call('onUpdate', before, cached);
        else this.call('onAdd', cached);
        return undefined;
      }
      case 'DELETED': {
        if (!obj?.metadata?.name) return undefined;
        obj.apiVersion ??= this.options.type.apiVersion;
        const ns = this.nsKey(obj.metadata.namespace);
        const byName = this.store.get(ns);
        const before = byName?.get(obj.metadata.name);
        if (before) this.indexRemove(before);
        byName?.delete(obj.metadata.name);
        if (byName?.size === 0) this.store.delete(ns);
        this.resourceVersion = obj.metadata.resourceVersion ?? this.resourceVersion;
        this.call('onDelete', obj);
        return undefined;
      }
      case 'BOOKMARK':
        this.resourceVersion = obj?.metadata?.resourceVersion ?? this.resourceVersion;
        return undefined;
      case 'ERROR': {
        const status = event.object as { code?: number; message?: string; reason?: string } | undefined;
        if (status?.code === 410) return 'expired';
        throw new ApiError(status?.code ?? 0, `watch ${this.resource}: ${status?.message ?? 'error event'}`, {
          reason: status?.reason,
          body: status,
        });
      }
      default:
        this.log.warn('unknown watch event type', { type: (event as { type: unknown }).type });
        return undefined;
    }
  }

  private call(handler: 'onAdd' | 'onDelete', obj: T): void;
  private call(handler: 'onUpdate', oldObj: T, newObj: T): void;
  private call(handler: keyof InformerHandlers<T>, a: T, b?: T): void {
    try {
      if (handler === 'onUpdate') this.handlers.onUpdate?.(a, b!);
      else this.handlers[handler]?.(a);
    } catch (err) {
      this.log.error('event handler failed', {
        handler,
        namespace: a.metadata.namespace,
        name: a.metadata.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** What the cache keeps of an object: no managedFields, then the transform. */
  private prepare(obj: T): T {
    stripManagedFields(obj);
    return this.options.transform ? (this.options.transform(obj) as T) : obj;
  }

  private indexAdd(obj: T): void {
    for (const [label, byValue] of this.index) {
      const value = obj.metadata.labels?.[label];
      if (value === undefined) continue;
      let objects = byValue.get(value);
      if (!objects) byValue.set(value, (objects = new Set()));
      objects.add(obj);
    }
  }

  private indexRemove(obj: T): void {
    for (const [label, byValue] of this.index) {
      const value = obj.metadata.labels?.[label];
      if (value === undefined) continue;
      const objects = byValue.get(value);
      objects?.delete(obj);
      if (objects?.size === 0) byValue.delete(value);
    }
  }

  private nsKey(namespace: string | undefined): string {
    return this.options.type.namespaced ? (namespace ?? '') : '';
  }
}

/** Doubling delay from initialMs, capped at maxMs, then a random point in its upper half. */
function jittered(backoff: { initialMs: number; maxMs: number }, failures: number): number {
  const delay = Math.min(backoff.maxMs, backoff.initialMs * Math.pow(2, Math.max(0, failures - 1)));
  return delay / 2 + (Math.random() * delay) / 2;
}

/** Whether two failures are the same refusal (same status and message), to log and report it once. */
function sameFailure(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  const status = (e: unknown) => (e instanceof ApiError ? e.status : undefined);
  const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
  return status(a) === status(b) && message(a) === message(b);
}

function signalError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/**
 * Drops metadata.managedFields before caching, as controller-runtime's TransformStripManagedFields does:
 * nothing reads them from the cache, and they are often the largest part of an object.
 */
function stripManagedFields(obj: KubeObject): void {
  delete obj.metadata.managedFields;
}
