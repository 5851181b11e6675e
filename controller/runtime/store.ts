/**
 * An informer's cache, as client-go's store and indexer: the objects of one resource by namespace and
 * name, the label indexes over them, and the handlers told of every change. It does no I/O: the
 * reflector (./reflector) replaces its content with each list and applies each watch event to it.
 */
import type { ApiKind, KubeObject, LabelMatch } from '../../constructs/kit';
import type { Logger } from '../log';

/** Called synchronously, in event order; an exception is logged and does not stop the informer. */
export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** The object's last known state. */
  onDelete?(obj: T): void;
}

export interface StoreOptions {
  /** Applied to every object before it is cached (after managedFields are dropped): keep what is read. */
  transform?: (obj: KubeObject) => KubeObject;
  /** Label keys to index: `list(namespace, { label, value })` on them is a lookup, not a scan. */
  indexLabels?: string[];
}

/** How many objects a list added, updated and deleted. */
export interface ReplaceCounts {
  added: number;
  updated: number;
  deleted: number;
}

export class Store<T extends KubeObject> {
  /** namespace ('' for cluster-scoped) -> name -> object. */
  private readonly objects = new Map<string, Map<string, T>>();
  /** label key -> label value -> the cached objects carrying it (see StoreOptions.indexLabels). */
  private readonly index = new Map<string, Map<string, Set<T>>>();

  constructor(
    private readonly type: ApiKind,
    private readonly options: StoreOptions,
    private readonly handlers: InformerHandlers<T>,
    private readonly log: Logger,
  ) {
    for (const label of options.indexLabels ?? []) this.index.set(label, new Map());
  }

  /** The cached object; namespace is ignored for cluster-scoped kinds. */
  get(namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(this.nsKey(namespace))?.get(name);
  }

  /**
   * Cached objects of one namespace, or all of them when namespace is undefined; with `match`, only those
   * whose label has that value (a lookup when the label is indexed).
   */
  list(namespace?: string, match?: LabelMatch): T[] {
    const inNamespace = namespace !== undefined && this.type.namespaced;
    const indexed = match && this.index.get(match.label);
    if (match && indexed) {
      const found = [...(indexed.get(match.value) ?? [])];
      return inNamespace ? found.filter((o) => o.metadata.namespace === namespace) : found;
    }
    let out: T[];
    if (inNamespace) out = [...(this.objects.get(namespace)?.values() ?? [])];
    else {
      out = [];
      for (const byName of this.objects.values()) out.push(...byName.values());
    }
    return match ? out.filter((o) => o.metadata.labels?.[match.label] === match.value) : out;
  }

  /** Number of cached objects. */
  get size(): number {
    let n = 0;
    for (const byName of this.objects.values()) n += byName.size;
    return n;
  }

  /** Re-delivers onUpdate(obj, obj) for every cached object (used for periodic resync). */
  resync(): void {
    for (const obj of this.list()) this.call('onUpdate', obj, obj);
  }

  /** Replaces the whole cache with a list's items, then tells the handlers what changed. */
  replace(listed: T[]): ReplaceCounts {
    const items = listed.map((item) => this.prepare(item));
    const fresh = new Map<string, Map<string, T>>();
    for (const item of items) {
      const ns = this.nsKey(item.metadata.namespace);
      let byName = fresh.get(ns);
      if (!byName) fresh.set(ns, (byName = new Map<string, T>()));
      byName.set(item.metadata.name, item);
    }
    // Swap first, so handlers see the new cache; then tell them what changed.
    const previous = new Map(this.objects);
    this.objects.clear();
    for (const [ns, byName] of fresh) this.objects.set(ns, byName);
    for (const byValue of this.index.values()) byValue.clear();
    for (const item of items) this.indexAdd(item);
    const counts: ReplaceCounts = { added: 0, updated: 0, deleted: 0 };
    for (const item of items) {
      const before = previous.get(this.nsKey(item.metadata.namespace))?.get(item.metadata.name);
      if (!before) {
        counts.added++;
        this.call('onAdd', item);
      } else if (before.metadata.resourceVersion !== item.metadata.resourceVersion) {
        counts.updated++;
        this.call('onUpdate', before, item);
      }
    }
    for (const [ns, byName] of previous) {
      for (const [name, before] of byName) {
        if (!fresh.get(ns)?.has(name)) {
          counts.deleted++;
          this.call('onDelete', before);
        }
      }
    }
    return counts;
  }

  /** Caches an added or modified object, then calls onAdd or onUpdate; returns what was cached. */
  upsert(obj: T): T {
    const cached = this.prepare(obj);
    const ns = this.nsKey(cached.metadata.namespace);
    let byName = this.objects.get(ns);
    if (!byName) this.objects.set(ns, (byName = new Map<string, T>()));
    const before = byName.get(cached.metadata.name);
    byName.set(cached.metadata.name, cached);
    if (before) this.indexRemove(before);
    this.indexAdd(cached);
    if (before) this.call('onUpdate', before, cached);
    else this.call('onAdd', cached);
    return cached;
  }

  /** Drops a deleted object, then calls onDelete with it as the server last sent it. */
  remove(obj: T): void {
    const ns = this.nsKey(obj.metadata.namespace);
    const byName = this.objects.get(ns);
    const before = byName?.get(obj.metadata.name);
    if (before) this.indexRemove(before);
    byName?.delete(obj.metadata.name);
    if (byName?.size === 0) this.objects.delete(ns);
    this.call('onDelete', obj);
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
    return this.type.namespaced ? (namespace ?? '') : '';
  }
}

/**
 * Drops metadata.managedFields before caching, as controller-runtime's TransformStripManagedFields does:
 * nothing reads them from the cache, and they are often the largest part of an object.
 */
function stripManagedFields(obj: KubeObject): void {
  delete obj.metadata.managedFields;
}
