/**
 * The controller's caches, read as a ClusterView: one set of informers per watched type (one per watched
 * namespace, or one cluster-wide), opened from the watch table (watches.ts), and the existence caches of
 * the children's types (names only of the objects that are not ours). The reconcile reads from here and
 * never by name from the API server, but for the odd check of a foreign object.
 */
import type { ApiKind, ClusterView, KubeObject, LabelMatch } from '../../constructs/kit';
import { kindKey } from '../../constructs/kit/api-kind';
import type { KubeClient } from '../kube/client';
import type { Logger } from '../log';
import { Informer, type InformerObserver } from './informer';
import type { InformerHandlers } from './store';
import type { Watch } from './watches';
import { BUCKET_LABEL, SHARD_FIELD, bucketsOf, shardSelector, type HashRanges } from '../sharding/ring';

export class Caches implements ClusterView {
  private readonly objects = new Map<string, Informer[]>();
  /** Metadata-only, per child kind: the objects without our managed-by label (see exists()). */
  private readonly existence = new Map<string, Informer[]>();
  /** The informers of a member's share: how they hold it (Watch.shardBy), and their own label selector. */
  private readonly sharded = new Map<Informer, { by: 'uid' | 'bucket'; labelSelector?: string }>();

  constructor(
    private readonly client: KubeClient,
    /** Namespaces to watch; empty for all. Cluster-scoped kinds are always watched cluster-wide. */
    private readonly namespaces: readonly string[],
    private readonly log: Logger,
    private readonly observer: InformerObserver,
  ) {}

  /**
   * The informers of a watch: made with its handlers when it is the first of its type and cache, else
   * those the first made (the handlers given are then not used: one cache, one set of handlers).
   */
  open(watch: Watch, handlers: InformerHandlers<KubeObject>): Informer[] {
    const caches = watch.cache === 'objects' ? this.objects : this.existence;
    const key = kindKey(watch.type);
    const found = caches.get(key);
    if (found) return found;
    const { type, labelSelector, indexLabels, metadataOnly, transform, shardBy } = watch;
    const options = {
      ...(labelSelector !== undefined ? { labelSelector } : {}),
      // A member holds nothing until the ring gives it a share (reshard).
      ...(shardBy ? { shardSelector: null } : {}),
      ...(indexLabels !== undefined ? { indexLabels: [...indexLabels] } : {}),
      ...(metadataOnly !== undefined ? { metadataOnly } : {}),
      ...(transform ? { transform } : {}),
    };
    const made = (type.namespaced && this.namespaces.length > 0 ? this.namespaces : [undefined]).map(
      (namespace) =>
        new Informer(this.client, { ...options, type, namespace }, handlers, this.log, this.observer),
    );
    caches.set(key, made);
    if (shardBy) for (const informer of made) this.sharded.set(informer, { by: shardBy, labelSelector });
    return made;
  }

  /**
   * Lists and watches the share `ranges` of the sharded caches (none: nothing); resolves once each has
   * begun to (see Informer.reshard: until they have listed, their kinds are not ready).
   */
  async reshard(ranges: HashRanges): Promise<void> {
    const buckets = bucketsOf(ranges).join(',');
    await Promise.all(
      [...this.sharded].map(([informer, { by, labelSelector }]) =>
        informer.reshard(
          ranges.length === 0
            ? { shardSelector: null }
            : by === 'uid'
              ? { shardSelector: shardSelector(ranges, SHARD_FIELD)! }
              : {
                  shardSelector: undefined,
                  labelSelector: [labelSelector, `${BUCKET_LABEL} in (${buckets})`].filter(Boolean).join(','),
                },
        ),
      ),
    );
  }

  /** The informers of a type's objects cache. */
  of(type: ApiKind): Informer[] {
    const found = this.objects.get(kindKey(type));
    if (!found) throw new Error(`no informer for ${kindKey(type)}`);
    return found;
  }

  get(type: ApiKind, namespace: string | undefined, name: string): KubeObject | undefined {
    for (const informer of this.of(type)) {
      const obj = informer.get(type.namespaced ? namespace : undefined, name);
      if (obj) return obj;
    }
    return undefined;
  }

  list(type: ApiKind, namespace?: string, match?: LabelMatch): KubeObject[] {
    return this.of(type).flatMap((informer) => informer.list(type.namespaced ? namespace : undefined, match));
  }

  exists(type: ApiKind, namespace: string | undefined, name: string): boolean {
    const found = this.existence.get(kindKey(type));
    if (!found) throw new Error(`no existence cache for ${kindKey(type)}`);
    return (
      this.get(type, namespace, name) !== undefined ||
      found.some((informer) => informer.get(type.namespaced ? namespace : undefined, name) !== undefined)
    );
  }

  /** Every informer. */
  all(): Informer[] {
    return [...this.objects.values(), ...this.existence.values()].flat();
  }
}
