/**
 * An informer's reflector, as client-go's: LIST, then WATCH from the list's resourceVersion, forever,
 * feeding what it reads into the informer's Store (./store). It never goes silent: a clean close
 * re-watches from the last resourceVersion seen (bookmarks move it), 410 Gone relists and delivers what
 * was missed, any other error backs off and retries. A connection that dies without a word (a middlebox
 * dropping it, a network partition) is found by silence: the API server's watch cache sends a bookmark
 * on every watch at least once a minute, so a watch silent for 75 s is dead; and by its deadline, a few
 * seconds past the `timeoutSeconds` it asked the server to end it after (5-10 minutes). The manager's
 * ConnectionProbe finds the common case, every connection dead at once, within seconds and ends the
 * watch through `connectionLost`. A dead watch is aborted, the idle pooled connections dropped, and the
 * cache relisted.
 */
import type { KubeObject } from '../../constructs/kit';
import { linkedSignal, sleep } from '../abortable';
import type { KubeClient } from '../kube/client';
import { ApiError, isGone, isForbidden, isNotFound } from '../kube/errors';
import { resourcePath } from '../kube/paths';
import type { WatchEvent } from '../kube/watch';
import type { Logger } from '../log';
import type { Store } from './store';
import type { ReflectorEvents, ReflectorOptions } from './reflector-options';

export type { ReflectorOptions, ReflectorEvents } from './reflector-options';

const LIST_PAGE_TIMEOUT_MS = 20_000;
const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const METADATA_LIST_ONLY =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** Why a watch ended. `deadline` and `inactive`: we ended it, taking its connection for dead. */
type WatchEnd = 'closed' | 'expired' | 'inactive' | 'deadline' | 'stopped';

export class Reflector<T extends KubeObject> {
  private resourceVersion?: string;
  private synced = false;
  private abort?: AbortController;
  private loop?: Promise<void>;
  /** Aborted by retryNow: cuts a backoff wait short. */
  private wake = new AbortController();
  private lastFailure?: unknown;
  /** When a watch last delivered something (an event or a bookmark), by Date.now(). */
  private heardAt = 0;
  /** Ends the open watch as dead; set while one is open. */
  private endWatch?: () => void;

  /** `resource` names it in messages: `plural.group`. */
  constructor(
    private readonly client: KubeClient,
    private readonly options: ReflectorOptions,
    private readonly store: Store<T>,
    private readonly resource: string,
    private readonly log: Logger,
    private readonly events: ReflectorEvents,
  ) {}

  /** Starts listing and watching in the background; a no-op when running. */
  start(): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    this.loop = this.run(abort.signal);
  }

  /** Stops the watch (at once); resolves once the loop has ended. */
  async stop(): Promise<void> {
    const loop = this.loop;
    this.abort?.abort();
    await loop;
    this.loop = undefined;
  }

  /** True once the first LIST has filled the store. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The error of the last list or watch, while it retries; undefined once one succeeds. */
  get failure(): unknown {
    return this.lastFailure;
  }

  /** The resourceVersion the next watch starts from. */
  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /**
   * Forgets what it listed, so that the next start lists again (with options changed meanwhile: a new
   * shard selector) and counts as synced only then. Call while stopped.
   */
  reset(): void {
    this.resourceVersion = undefined;
    this.synced = false;
    this.lastFailure = undefined;
    this.events.stateChanged();
  }

  /** Retries at once if waiting out a backoff; a no-op otherwise. */
  retryNow(): void {
    this.wake.abort();
  }

  /**
   * The connections to the API server were found dead (ConnectionProbe): the open watch, which no
   * longer delivers anything, ends as one past its deadline does, and the cache is relisted.
   */
  connectionLost(): void {
    this.endWatch?.();
  }

  /** When a watch last delivered something (an event or a bookmark), by Date.now(); 0 if never. */
  get lastHeardAt(): number {
    return this.heardAt;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = this.options.backoff ?? { initialMs: 800, maxMs: 30_000 };
    let failures = 0;
    let needList = true;
    if (this.options.shardSelector === null) {
      // A shard with no ranges: nothing to ask the API server; the cache is empty and complete.
      this.store.replace([]);
      this.synced = true;
      this.failed(undefined, true);
      this.events.synced();
      return;
    }
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal);
          needList = false;
        }
        const started = Date.now();
        const { end, events } = await this.watchOnce(signal, () => this.failed(undefined));
        if (end === 'stopped') break;
        this.events.watchRestarts(end === 'closed' ? 'timeout' : end);
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
          this.events.watchRestarts('expired');
          this.log.info('resourceVersion expired; relisting', { resourceVersion: this.resourceVersion });
          needList = true;
          continue;
        }
        // A watch refused outright (its CRD deleted, its permission revoked) lists again once allowed: the
        // list is what says it is back.
        if (isForbidden(err) || isNotFound(err)) needList = true;
        failures++;
        const delayMs = jittered(backoff, failures);
        this.events.watchRestarts('error');
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
        const waking = linkedSignal([signal, this.wake.signal]);
        await sleep(delayMs, waking.signal);
        waking.dispose();
        if (this.wake.signal.aborted) {
          this.wake = new AbortController();
          failures = 0;
        }
      }
    }
  }

  /** Lists everything (paginated) and replaces the store's content with it. */
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
          shardSelector: this.options.shardSelector ?? undefined,
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
    for (const item of items) {
      item.apiVersion ??= this.options.type.apiVersion;
      if (itemKind) item.kind ??= itemKind;
    }
    const { added, updated, deleted } = this.store.replace(items);
    this.resourceVersion = resourceVersion;
    this.log.debug('listed', { items: items.length, added, updated, deleted, resourceVersion });
    const first = !this.synced;
    this.synced = true;
    this.failed(undefined, first);
    if (first) this.events.synced();
  }

  /** Records the latest failure (undefined: success) and tells the informer when that changes. */
  private failed(err: unknown, changed = false): void {
    const before = this.lastFailure;
    this.lastFailure = err;
    if (changed || !sameFailure(before, err)) {
      this.events.stateChanged();
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
    this.endWatch = kill('deadline');
    const inactivityMs = this.options.inactivityMs ?? 75_000;
    // One timer per watch, not one per event: when it fires, the watch is dead if nothing came since
    // inactivityMs ago, else it waits for the rest of that time from the last thing heard.
    let watchdog: NodeJS.Timeout | undefined;
    let heard = Date.now();
    const check = () => {
      const silent = Date.now() - heard;
      if (silent >= inactivityMs) kill('inactive')();
      else watchdog = setTimeout(check, inactivityMs - silent);
    };
    const base = this.options.watchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.max(1, Math.round(base * (1 + Math.random())));
    const deadline = setTimeout(
      kill('deadline'),
      timeoutSeconds * 1000 + (this.options.deadlineGraceMs ?? 5000),
    );
    let events = 0;
    try {
      if (inactivityMs > 0) watchdog = setTimeout(check, inactivityMs);
      const stream = this.client.watch({
        method: 'GET',
        path: resourcePath(this.options.type, this.options.namespace),
        query: {
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          shardSelector: this.options.shardSelector ?? undefined,
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
        heard = Date.now();
        this.heardAt = heard;
        events++;
        if (this.apply(event) === 'expired') return { end: 'expired', events };
      }
      return { end: 'closed', events };
    } catch (err) {
      if (signal.aborted) return { end: 'stopped', events };
      if (dead) return { end: dead, events };
      throw err;
    } finally {
      this.endWatch = undefined;
      clearTimeout(deadline);
      if (watchdog) clearTimeout(watchdog);
      signal.removeEventListener('abort', onStop);
      // Ends the request if we returned early (expired).
      abort.abort();
    }
  }

  /** Applies one watch event to the store and moves the resourceVersion. */
  private apply(event: WatchEvent): 'expired' | undefined {
    const obj = event.object as T | undefined;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED': {
        if (!obj?.metadata?.name) return undefined;
        obj.apiVersion ??= this.options.type.apiVersion;
        const cached = this.store.upsert(obj);
        this.resourceVersion = cached.metadata.resourceVersion ?? this.resourceVersion;
        return undefined;
      }
      case 'DELETED': {
        if (!obj?.metadata?.name) return undefined;
        obj.apiVersion ??= this.options.type.apiVersion;
        this.store.remove(obj);
        this.resourceVersion = obj.metadata.resourceVersion ?? this.resourceVersion;
        return undefined;
      }
      case 'BOOKMARK':
        this.resourceVersion = obj?.metadata?.resourceVersion ?? this.resourceVersion;
        return undefined;
      case 'ERROR': {
        const status = event.object as { code?: number; message?: string; reason?: string } | undefined;
        const err = new ApiError(
          status?.code ?? 0,
          `watch ${this.resource}: ${status?.message ?? 'error event'}`,
          {
            reason: status?.reason,
            body: status,
          },
        );
        if (isGone(err)) return 'expired';
        throw err;
      }
      default:
        this.log.warn('unknown watch event type', { type: (event as { type: unknown }).type });
        return undefined;
    }
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
