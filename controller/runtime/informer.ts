/**
 * An informer, as client-go's SharedIndexInformer but for one consumer: a Store (./store) of one
 * resource's objects, kept up to date by a Reflector (./reflector) that lists and watches it. Its owner
 * starts it, waits for its first list, reads the cache, and hears of changes through its handlers and of
 * restarts and failures through its observer.
 */
import type { ApiKind, KubeObject, LabelMatch } from '../../constructs/kit';
import type { KubeClient } from '../kube/client';
import { nullLogger, type Logger } from '../log';
import { Reflector, type ReflectorOptions } from './reflector';
import { Store, type InformerHandlers, type StoreOptions } from './store';

export type InformerOptions = ReflectorOptions & StoreOptions;

/** What an informer tells its owner besides the objects: restarts, and whether it can list at all. */
export interface InformerObserver {
  watchRestarts?(resource: string, reason: string): void;
  /** The informer synced, or its list or watch started or stopped failing (see `Informer.failure`). */
  stateChanged?(informer: Informer): void;
}

export class Informer<T extends KubeObject = KubeObject> {
  private readonly resource: string;
  private readonly store: Store<T>;
  private readonly reflector: Reflector<T>;
  private syncWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];

  constructor(
    client: KubeClient,
    private readonly options: InformerOptions,
    handlers: InformerHandlers<T> = {},
    log?: Logger,
    observer: InformerObserver = {},
  ) {
    const group = options.type.apiVersion.includes('/') ? options.type.apiVersion.split('/')[0] : '';
    this.resource = group ? `${options.type.plural}.${group}` : options.type.plural;
    const logger = (log ?? nullLogger).child({
      resource: this.resource,
      ...(options.namespace ? { namespace: options.namespace } : {}),
    });
    this.store = new Store(options.type, options, handlers, logger);
    this.reflector = new Reflector(client, options, this.store, this.resource, logger, {
      synced: () => {
        const waiters = this.syncWaiters;
        this.syncWaiters = [];
        waiters.forEach((w) => w.resolve());
      },
      stateChanged: () => observer.stateChanged?.(this),
      watchRestarts: (reason) => observer.watchRestarts?.(this.resource, reason),
    });
  }

  private started = false;

  /** Starts listing and watching in the background; a no-op when running. */
  start(): void {
    this.started = true;
    this.reflector.start();
  }

  /**
   * Lists and watches another shard of the objects: other selectors (see ReflectorOptions.shardSelector;
   * null: none). The watch ends, the cache is listed again with the new selectors (handlers hear of the
   * objects that came and went as after any relist), and until then the informer has not synced. A no-op
   * for the same selectors.
   */
  async reshard(selectors: { shardSelector?: string | null; labelSelector?: string }): Promise<void> {
    const next = { ...this.options, ...selectors };
    if (
      next.shardSelector === this.options.shardSelector &&
      next.labelSelector === this.options.labelSelector
    )
      return;
    await this.reflector.stop();
    this.options.shardSelector = next.shardSelector;
    this.options.labelSelector = next.labelSelector;
    this.reflector.reset();
    if (this.started) this.reflector.start();
  }

  /** Stops the watch; resolves once the loop has ended. Pending waitForSync calls reject. */
  async stop(): Promise<void> {
    this.started = false;
    const stopped = this.reflector.stop();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    waiters.forEach((w) => w.reject(new Error(`informer for ${this.resource} stopped before it synced`)));
    await stopped;
  }

  /** True once the first LIST has filled the cache. */
  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  /** `plural.group` (`plural` for the core group), as RBAC and `kubectl get` name it. */
  get resourceName(): string {
    return this.resource;
  }

  get type(): ApiKind {
    return this.options.type;
  }

  get namespace(): string | undefined {
    return this.options.namespace;
  }

  /** The error of the last list or watch, while the informer retries; undefined once one succeeds. */
  get failure(): unknown {
    return this.reflector.failure;
  }

  /**
   * Retries at once if the informer is waiting out a backoff (its CRD was just installed, say); a
   * no-op otherwise.
   */
  retryNow(): void {
    this.reflector.retryNow();
  }

  /** See Reflector.lastHeardAt. */
  get lastHeardAt(): number {
    return this.reflector.lastHeardAt;
  }

  /** See Reflector.connectionLost. */
  connectionLost(): void {
    this.reflector.connectionLost();
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.hasSynced()) return Promise.resolve();
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
    return this.store.get(namespace, name);
  }

  /**
   * Cached objects of one namespace, or all of them when namespace is undefined; with `match`, only those
   * whose label has that value (a lookup when the label is indexed).
   */
  list(namespace?: string, match?: LabelMatch): T[] {
    return this.store.list(namespace, match);
  }

  /** Number of cached objects. */
  get size(): number {
    return this.store.size;
  }

  /** The resourceVersion the next watch starts from. */
  get lastResourceVersion(): string | undefined {
    return this.reflector.lastResourceVersion;
  }

  /** Re-delivers onUpdate(obj, obj) for every cached object (used for periodic resync). */
  resync(): void {
    this.store.resync();
  }
}

function signalError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
