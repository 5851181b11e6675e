/** What a Reflector (./reflector) lists and watches, and what it tells its informer besides the objects. */
import type { ApiKind } from '../../constructs/kit';

export interface ReflectorOptions {
  type: ApiKind;
  /** Watch one namespace only. Default: all namespaces (and always for cluster-scoped kinds). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * The API server's sharded list and watch (KEP-5866): only the objects in these hash ranges
   * (`shardRange(object.metadata.namespace, '0x…', '0x…') || …`). `null`: a shard that holds nothing: no
   * list, no watch, an empty cache that counts as synced. Changed by Informer.reshard.
   */
  shardSelector?: string | null;
  /**
   * Server-side timeout of each watch request: a random value between it and twice it, so that many
   * informers do not re-watch in lockstep. Default: 300 s, as client-go (a re-watch every 5-10 minutes:
   * an idle informer costs nothing in between).
   */
  watchTimeoutSeconds?: number;
  /** A watch not ended by the server this long after its timeoutSeconds is dead. Default: 5 000 ms. */
  deadlineGraceMs?: number;
  /**
   * A watch that has sent nothing (no event, no bookmark) for this long is dead. Default: 75 000 ms: the
   * API server's watch cache sends every watch a bookmark at least once a minute. 0: never.
   */
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
}

/** What a reflector tells its informer besides the objects. */
export interface ReflectorEvents {
  /** The first list filled the store. */
  synced(): void;
  /** It synced, or its list or watch started or stopped failing (see `Reflector.failure`). */
  stateChanged(): void;
  /** A watch ended and another watch or a list follows: `timeout`, `expired`, `inactive`, `deadline`, `error`. */
  watchRestarts(reason: string): void;
}
