/**
 * Watches by reference: each object a resource's inputs name (a ConfigMap or a Secret of the user's,
 * another kind's resource) is watched on its own, by name (`fieldSelector=metadata.name=NAME` in its
 * namespace), as long as some resource reads it, and its changes enqueue exactly the resources that read
 * it. The kubelet watches the Secrets and ConfigMaps its pods name the same way: no cache of every
 * object of a type (no cluster-wide cache of Secrets), no LIST per change, one reconcile per change of
 * each reader. Once a watch has synced the reader takes the object from it, not from a GET.
 *
 * A Secret whose name the spec gives is not watched: a watch of it needs `list` and `watch` on every
 * Secret of the namespace, which is a read of all of them. It is read by a GET on each reconcile, and
 * looked at again by a GET every POLL_MS (30 s), which enqueues its readers when it changed: `get` is all
 * the install grants on Secrets (as for external work's Secrets). An object the API server will not let
 * the controller watch (a role of the user's own that grants `get` only) is read by a GET on each
 * reconcile; its changes are then seen at the next one (the resync), said once.
 */
import type { ApiKind, KubeObject } from '../../constructs/kit';
import type { KubeClient } from '../kube/client';
import { isForbidden, isNotFound } from '../kube/errors';
import { objectKey } from '../kube/object-key';
import { resourcePath } from '../kube/paths';
import type { Logger } from '../log';
import { Informer, type InformerObserver } from '../runtime/informer';

/** One object an input names. */
export interface Reference {
  readonly type: ApiKind;
  readonly namespace: string | undefined;
  readonly name: string;
}

/** An object as a resource read it: at which resourceVersion (null: it did not exist; undefined: unknown). */
export interface Read extends Reference {
  readonly seen?: string | null;
  /** Looked at by a GET every POLL_MS, not watched (a Secret the spec names: see above). */
  readonly poll?: boolean;
}

/** How often an object that is not watched is looked at again. */
export const POLL_MS = 30_000;

/** What the input reader asks of the watches (InMemoryCluster and unit tests have none). */
export interface InputWatches {
  /**
   * The object as its watch has it: `{ object }` (undefined: it does not exist) once the watch has
   * synced; undefined when there is no synced watch of it (read it by a GET).
   */
  get(ref: Reference): { object: KubeObject | undefined } | undefined;
  /**
   * The objects the resource `key` reads now, each with the resourceVersion it was read at (null: it did
   * not exist): their watches start, the ones it no longer reads end. A watch whose first list finds the
   * object otherwise than it was read enqueues its readers.
   */
  track(key: string, refs: readonly Read[]): void;
  /** The resource is gone: it reads nothing. */
  forget(key: string): void;
}

interface Watched {
  readonly ref: Reference;
  /** Its watch; none when it is polled. */
  readonly informer?: Informer;
  /** The resources (queue keys) that read it. */
  readonly readers: Set<string>;
  /**
   * The resourceVersion it was read at before its watch synced (null: absent); see InputWatches.track. A
   * polled object's is the last one read.
   */
  seen: string | null | undefined;
  /** Its first list has been held against `seen`: every add from now on is news. */
  checked: boolean;
  /** The API server refused its watch: it is not watched (nor tried again while some resource reads it). */
  refused?: boolean;
}

export interface ReferenceWatchOptions {
  /** Queues a resource whose input object changed (`type`), as a watch `event` said. */
  enqueue(key: string, type: ApiKind, event: 'add' | 'update' | 'delete'): void;
  log: Logger;
  observer?: InformerObserver;
  /** Server-side timeout of each watch request (see ReflectorOptions.watchTimeoutSeconds). */
  watchTimeoutSeconds?: number;
  /** How often a polled object is looked at. Default: POLL_MS. */
  pollMs?: number;
}

export class ReferenceWatches implements InputWatches {
  /** objectKey of the object -> its watch. */
  private readonly watched = new Map<string, Watched>();
  /** resource key -> the objectKeys it reads. */
  private readonly reads = new Map<string, Set<string>>();
  private started = false;
  private poller?: NodeJS.Timeout;

  constructor(
    private readonly client: KubeClient,
    private readonly options: ReferenceWatchOptions,
  ) {}

  get(ref: Reference): { object: KubeObject | undefined } | undefined {
    const watched = this.watched.get(keyOf(ref));
    if (!watched?.informer?.hasSynced()) return undefined;
    return { object: watched.informer.get(ref.namespace, ref.name) };
  }

  track(key: string, refs: readonly Read[]): void {
    const now = new Set(refs.map(keyOf));
    const before = this.reads.get(key) ?? new Set<string>();
    for (const ref of refs) {
      const k = keyOf(ref);
      let watched = this.watched.get(k);
      if (!watched) {
        const informer = ref.poll ? undefined : this.watch(ref, k);
        watched = { ref, informer, readers: new Set(), seen: ref.seen, checked: false };
        this.watched.set(k, watched);
        if (this.started) informer?.start();
      }
      watched.readers.add(key);
      // What a reader read by a GET is what the next poll compares with.
      if (!watched.informer && ref.seen !== undefined) watched.seen = ref.seen;
    }
    for (const k of before) if (!now.has(k)) this.release(key, k);
    if (now.size > 0) this.reads.set(key, now);
    else this.reads.delete(key);
  }

  forget(key: string): void {
    this.track(key, []);
  }

  /** Every watch, for the connection probe (dead connections end them too). */
  informers(): Informer[] {
    return [...this.watched.values()].flatMap((w) => (w.informer ? [w.informer] : []));
  }

  /** How many objects are watched. */
  get size(): number {
    return this.watched.size;
  }

  /** Starts the watches of the objects tracked so far, and every one tracked from now on. */
  start(): void {
    this.started = true;
    for (const { informer, refused } of this.watched.values()) if (!refused) informer?.start();
    this.poller = setInterval(() => void this.poll(), this.options.pollMs ?? POLL_MS);
    this.poller.unref();
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.poller);
    await Promise.all(this.informers().map((informer) => informer.stop()));
  }

  private watch(ref: Reference, k: string): Informer {
    const { log, observer, watchTimeoutSeconds } = this.options;
    const changed = (event: 'add' | 'update' | 'delete') => {
      for (const reader of this.watched.get(k)?.readers ?? []) this.options.enqueue(reader, ref.type, event);
    };
    // Once its first list is in: news if the object is not as the reader saw it before the watch began.
    const synced = (informer: Informer) => {
      const watched = this.watched.get(k);
      if (!watched || watched.checked || !informer.hasSynced()) return;
      watched.checked = true;
      const now = informer.get(ref.namespace, ref.name)?.metadata.resourceVersion ?? null;
      if (watched.seen !== undefined && now !== watched.seen) changed('update');
    };
    return new Informer(
      this.client,
      {
        type: ref.type,
        namespace: ref.type.namespaced ? ref.namespace : undefined,
        fieldSelector: `metadata.name=${ref.name}`,
        watchTimeoutSeconds,
      },
      {
        onAdd: () => this.watched.get(k)?.checked && changed('add'),
        onUpdate: (before, obj) =>
          before.metadata.resourceVersion !== obj.metadata.resourceVersion && changed('update'),
        onDelete: () => changed('delete'),
      },
      log.child({ input: k }),
      {
        ...observer,
        stateChanged: (informer) => {
          synced(informer);
          this.refused(k, informer);
          observer?.stateChanged?.(informer);
        },
      },
    );
  }

  /** One look at every polled object, one GET each, one after the other; its readers enqueued if it changed. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const [k, watched] of this.watched) {
        if (watched.informer || !this.started) continue;
        const version = await this.versionOf(watched.ref);
        if (version === undefined || version === watched.seen || this.watched.get(k) !== watched) continue;
        watched.seen = version;
        for (const reader of watched.readers) this.options.enqueue(reader, watched.ref.type, 'update');
      }
    } finally {
      this.polling = false;
    }
  }
  private polling = false;

  /** Its resourceVersion, null when it does not exist; undefined when it cannot be read now. */
  private async versionOf({ type, namespace, name }: Reference) {
    try {
      const path = resourcePath(type, type.namespaced ? namespace : undefined, name);
      const obj = await this.client.request<KubeObject>({ method: 'GET', path });
      return obj.metadata.resourceVersion ?? null;
    } catch (err) {
      if (isNotFound(err)) return null;
      this.options.log.debug('cannot look at an input again', { object: name, error: String(err) });
      return undefined;
    }
  }

  private release(key: string, k: string): void {
    const watched = this.watched.get(k);
    if (!watched) return;
    watched.readers.delete(key);
    if (watched.readers.size > 0) return;
    this.watched.delete(k);
    void watched.informer?.stop();
  }

  /** A watch the API server refuses ends at once, said once: its object is read by a GET on each reconcile. */
  private refused(k: string, informer: Informer): void {
    const watched = this.watched.get(k);
    if (!watched || watched.refused || !isForbidden(informer.failure)) return;
    watched.refused = true;
    void informer.stop();
    this.options.log.warn(
      'an input cannot be watched: its changes are seen at the next resync (grant list and watch on it)',
      { object: k, error: String(informer.failure) },
    );
  }
}

const keyOf = (ref: Reference) => objectKey(ref.type, ref.namespace, ref.name);
