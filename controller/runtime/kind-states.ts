/**
 * Where each kind stands, from the informers its reconciles read: a kind is reconciled once those have
 * synced, not once every kind's have, and a kind whose caches the API server refuses (no CRD, no RBAC)
 * waits, said once (a log line saying what to do, the metric), while the others run.
 */
import type { Kind } from '../../constructs/kit';
import type { Informer } from './informer';
import { ApiError, isNotFound, isForbidden } from '../kube/errors';
import type { Logger } from '../log';
import type { Metrics } from './metrics';

/**
 * Where a kind stands. `ready`: every cache it reads has synced, its resources are reconciled.
 * `syncing`: a cache is still filling (at start). `unavailable`: the API server refuses a list or watch it
 * needs (its CRD is not installed, or RBAC forbids it); `message` says what to do. The kind's caches retry
 * with backoff, and the kinds that do not need the refused cache run on.
 */
export interface KindState {
  readonly kind: string;
  readonly state: 'syncing' | 'ready' | 'unavailable';
  readonly message?: string;
}

/** Why an informer cannot work until someone changes the cluster, in words that say what to do. */
function refusal(
  informer: Pick<Informer, 'failure' | 'namespace' | 'type' | 'resourceName'>,
): string | undefined {
  const err = informer.failure;
  if (!(err instanceof ApiError)) return undefined;
  const where = informer.namespace ? ` in namespace ${informer.namespace}` : '';
  const { apiVersion } = informer.type;
  if (isNotFound(err)) {
    return (
      `the API server does not serve ${informer.resourceName} (${apiVersion})${where}: install its ` +
      `CustomResourceDefinition (reconstruct install, or kubectl apply -f the CRD)`
    );
  }
  if (isForbidden(err)) {
    return (
      `forbidden to list and watch ${informer.resourceName}${where}: grant get, list and watch on it ` +
      `to the controller's service account (reconstruct install renders the rules)`
    );
  }
  return undefined;
}

/** What KindStates reads of an informer. */
export type WatchedCache = Pick<Informer, 'failure' | 'namespace' | 'type' | 'resourceName' | 'hasSynced'>;

export class KindStates {
  /** Per kind: every informer its reconciles read (its resources, children, existence caches, watches). */
  private readonly needs = new Map<Kind, WatchedCache[]>();
  private readonly states = new Map<Kind, KindState>();
  private allReadyOnce = false;
  /** Kinds that were ready before: their caches relisting (a ring member's new share) is not news. */
  private readonly readyBefore = new Set<Kind>();

  constructor(
    private readonly kinds: readonly Kind[],
    private readonly log: Logger,
    private readonly metrics: Pick<Metrics, 'kindAvailable'>,
    /**
     * A kind became ready (its resources are to be reconciled) or unavailable (each is to say why, in its
     * status).
     */
    private readonly onSettled: (definition: Kind) => void,
  ) {
    for (const definition of kinds) this.states.set(definition, { kind: definition.kind, state: 'syncing' });
  }

  /** Adds informers `definition` reads. */
  need(definition: Kind, informers: readonly WatchedCache[]): void {
    this.needs.set(definition, [...(this.needs.get(definition) ?? []), ...informers]);
  }

  of(definition: Kind): KindState | undefined {
    return this.states.get(definition);
  }

  all(): KindState[] {
    return [...this.states.values()];
  }

  isReady(): boolean {
    return this.all().every((k) => k.state !== 'syncing');
  }

  private stateOf(definition: Kind): KindState {
    const informers = this.needs.get(definition) ?? [];
    for (const informer of informers) {
      const message = refusal(informer);
      if (message) return { kind: definition.kind, state: 'unavailable', message };
    }
    const synced = informers.every((i) => i.hasSynced());
    return { kind: definition.kind, state: synced ? 'ready' : 'syncing' };
  }

  /**
   * Called when any informer syncs or starts or stops failing: each kind whose state changed says so
   * (one log line, the metric), and a kind that became ready has every resource enqueued.
   */
  refresh(): void {
    for (const definition of this.kinds) {
      const before = this.states.get(definition);
      const now = this.stateOf(definition);
      if (before && before.state === now.state && before.message === now.message) continue;
      this.states.set(definition, now);
      this.metrics.kindAvailable(definition.kind, now.state === 'ready');
      const fields = { kind: definition.kind };
      if (now.state === 'unavailable') {
        this.log.error(`${definition.kind} resources are not reconciled: ${now.message}; retrying`, fields);
        this.onSettled(definition);
      } else if (now.state === 'ready') {
        if (before?.state === 'unavailable') this.log.info('kind available again', fields);
        else if (this.readyBefore.has(definition))
          this.log.debug('kind ready again: its caches relisted', fields);
        else this.log.info('kind ready', fields);
        this.readyBefore.add(definition);
        this.onSettled(definition);
      }
    }
    if (!this.allReadyOnce && this.all().every((k) => k.state === 'ready')) {
      this.allReadyOnce = true;
      this.log.info('caches synced; reconciling', { kinds: this.kinds.length });
    }
  }
}
