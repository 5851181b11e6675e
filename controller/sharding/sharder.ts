/**
 * The ring's leader at work: it watches the members' Leases and the labels of every resource of the
 * kinds (metadata only, the two labels of the ring kept), and whenever a Lease changes, a resource comes or
 * goes or its ring labels change (not its status), and every second (a Lease expires without an event), it
 * acts on ./assign's plan (each uid's place remembered while the members stay the same): labels resources,
 * takes Leases over, removes dead ones, and writes each Lease's state label for `kubectl get lease -L`.
 * One pass at a time; a change during a pass runs another after it. A write that fails is logged and
 * retried by the next pass, which decides again from what it sees then. Each kind is placed once it has
 * listed: one the API server will not list (its CRD missing) holds back none of the others.
 */
import { LEASE, type Kind, type KubeObject } from '../../constructs/kit';
import type { KubeClient } from '../kube/client';
import { isConflict, isNotFound } from '../kube/errors';
import { resourcePath } from '../kube/paths';
import { KubeWriter } from '../kube/writer';
import type { Logger } from '../log';
import { Informer } from '../runtime/informer';
import { microTime } from '../runtime/leader';
import { Placements, labelsOf, plan, type Move, type Placed } from './assign';
import {
  RECORD_LABEL,
  nextRecord,
  readRecord,
  recordAnnotations,
  recordName,
  sameRecord,
} from './ring-record';
import type { SharderMetrics } from './metrics';
import {
  RING_LABEL,
  STATE_LABEL,
  drainLabel,
  shardLabel,
  type MemberLease,
  type MemberState,
} from './members';

export interface SharderOptions {
  readonly client: KubeClient;
  readonly kinds: readonly Kind[];
  readonly ring: string;
  /** Where the members' Leases are. */
  readonly leaseNamespace: string;
  /** The leader's identity: what it writes as the holder of a Lease it takes over. */
  readonly identity: string;
  /** The namespaces watched; empty for all. */
  readonly namespaces: readonly string[];
  readonly log: Logger;
  /** Counts its moves, ring calculations and members (./metrics). */
  readonly metrics?: SharderMetrics;
  /** How often a pass runs without an event. @default 1000 ms */
  readonly periodMs?: number;
  /**
   * How members read their share: `labels`, the shard label this leader writes on each resource; `ranges`,
   * the API server's sharded list and watch of the ranges of the ring it publishes (./ring-record).
   * @default 'labels'
   */
  readonly readPath?: 'labels' | 'ranges';
}

/** How long the events of a burst are gathered into one pass. */
const BATCH_MS = 100;

/** Writes at once: the first assignment of many resources is a burst of small patches. */
const CONCURRENCY = 8;

export class Sharder {
  private readonly leases: Informer;
  private readonly parents: Informer[] = [];
  /** The ring's record, on the ranges read path. */
  private readonly record?: Informer;
  private readonly writer: KubeWriter;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** Each member Lease's last renewTime seen, and when (this process's clock), as client-go's elector. */
  private readonly renewals = new Map<string, { renewTime: string; at: number }>();
  private again = false;
  private stopped = false;
  private soonTimer?: NodeJS.Timeout;
  /** The members of the last pass, comma-separated. */
  private lastMembers?: string;
  /** Where each uid goes, kept from pass to pass. */
  private readonly placements = new Placements();

  constructor(private readonly options: SharderOptions) {
    const { client, ring, leaseNamespace, kinds, namespaces } = options;
    this.writer = new KubeWriter(client, 'reconstruct-sharder');
    const onChange = { onAdd: () => this.soon(), onUpdate: () => this.soon(), onDelete: () => this.soon() };
    this.leases = new Informer(
      client,
      { type: LEASE, namespace: leaseNamespace, labelSelector: `${RING_LABEL}=${ring}` },
      onChange,
      options.log,
    );
    if (options.readPath === 'ranges') {
      // No labels to write: the members' caches take their ranges from the record.
      this.record = new Informer(
        client,
        { type: LEASE, namespace: leaseNamespace, fieldSelector: `metadata.name=${recordName(ring)}` },
        onChange,
        options.log,
      );
      return;
    }
    const keep = [shardLabel(ring), drainLabel(ring)];
    // A resource's other changes (its status, written by its member) change nothing a pass decides on.
    const onParentChange = {
      ...onChange,
      onUpdate: (before: KubeObject, after: KubeObject) => {
        if (ringLabelsChanged(keep, before, after)) this.soon();
      },
    };
    const transform = (obj: KubeObject): KubeObject => {
      const labels = Object.fromEntries(
        keep.flatMap((k) => (obj.metadata.labels?.[k] !== undefined ? [[k, obj.metadata.labels[k]]] : [])),
      );
      return {
        metadata: {
          name: obj.metadata.name,
          namespace: obj.metadata.namespace,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
          labels,
        },
      };
    };
    for (const kind of kinds) {
      const scopes = kind.namespaced && namespaces.length > 0 ? namespaces : [undefined];
      for (const namespace of scopes)
        this.parents.push(
          new Informer(
            client,
            { type: kind, namespace, metadataOnly: true, transform },
            onParentChange,
            options.log,
          ),
        );
    }
  }

  /** Every informer it reads. */
  private get informers(): Informer[] {
    return [this.leases, ...this.parents, ...(this.record ? [this.record] : [])];
  }

  start(): void {
    for (const informer of this.informers) informer.start();
    this.timer = setInterval(() => this.pass(), this.options.periodMs ?? 1000);
    this.pass();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.soonTimer);
    await this.running;
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /**
   * When this leader saw the Lease's last renewal: the first time it saw its current renewTime. A leader
   * new to a Lease gives it a whole duration from then.
   */
  private renewedAt(lease: MemberLease, now: number): number {
    const renewTime = lease.spec?.renewTime ?? '';
    const seen = this.renewals.get(lease.metadata.name);
    if (seen && seen.renewTime === renewTime) return seen.at;
    this.renewals.set(lease.metadata.name, { renewTime, at: now });
    return now;
  }

  /**
   * A pass in a tenth of a second: the events of a burst (a thousand resources created) make one pass, not
   * one each (a pass reads every resource).
   */
  private soon(): void {
    this.soonTimer ??= setTimeout(() => {
      this.soonTimer = undefined;
      this.pass();
    }, BATCH_MS);
  }

  /** Runs a pass, or one more after the current one. */
  private pass(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.once()
      .catch((err: Error) => this.options.log.warn('sharding pass failed', { error: err.message }))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.pass();
        }
      });
  }

  private async once(): Promise<void> {
    if (!this.leases.hasSynced() || (this.record && !this.record.hasSynced())) return;
    const { ring, log } = this.options;
    const leases = this.leases.list() as unknown as (MemberLease & KubeObject)[];
    // A kind the API server will not list (its CRD missing, its list forbidden) is placed once it lists;
    // the other kinds are not held for it, as its Manager's other kinds are not.
    const listed = this.parents.filter((informer) => informer.hasSynced());
    const objects: Placed[] = listed.flatMap((informer) =>
      informer.list().map((o) => ({
        type: informer.type,
        namespace: o.metadata.namespace,
        name: o.metadata.name,
        uid: o.metadata.uid ?? '',
        labels: o.metadata.labels,
      })),
    );
    const now = Date.now();
    for (const name of this.renewals.keys())
      if (!leases.some((l) => l.metadata.name === name)) this.renewals.delete(name);
    const decided = plan(ring, leases, objects, now, (lease) => this.renewedAt(lease, now), this.placements);
    const counts: Record<string, number> = {};
    for (const state of decided.states.values()) counts[state] = (counts[state] ?? 0) + 1;
    this.options.metrics?.members(counts);
    // The labels path's ring calculations: each new set of members (the ranges path counts its
    // generations).
    const members = decided.members.join(',');
    if (!this.record && members !== this.lastMembers) {
      this.lastMembers = members;
      this.options.metrics?.calculated();
    }
    for (const name of decided.takeOver) await this.takeOver(leases.find((l) => l.metadata.name === name)!);
    for (const name of decided.remove) {
      await this.writer
        .delete(
          LEASE,
          this.options.leaseNamespace,
          name,
          leases.find((l) => l.metadata.name === name)!.metadata.uid ?? '',
        )
        .catch((err) => {
          if (!isNotFound(err)) throw err;
        });
      log.info('removed the Lease of a member gone a minute', { member: name });
    }
    for (const lease of leases) {
      const state = decided.states.get(lease.metadata.name);
      if (state && state !== 'orphaned' && lease.metadata.labels?.[STATE_LABEL] !== state)
        await this.writer
          .mergePatch(LEASE, this.options.leaseNamespace, lease.metadata.name, {
            metadata: { labels: { [STATE_LABEL]: state } },
          })
          .catch((err: Error) => log.debug('could not label a Lease with its state', { error: err.message }));
    }
    if (this.record) return this.publish(leases, decided.members, decided.states);
    const moves = [...decided.moves];
    const work = async () => {
      for (let move = moves.shift(); move; move = moves.shift()) await this.move(move);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, work));
  }

  /**
   * The ranges read path: writes the ring's record when its members changed (a new generation) or every
   * member still working has acknowledged its generation (settled).
   */
  private async publish(
    leases: readonly (MemberLease & KubeObject)[],
    members: readonly string[],
    states: ReadonlyMap<string, MemberState>,
  ): Promise<void> {
    const { ring, leaseNamespace, log } = this.options;
    const name = recordName(ring);
    const found = this.record!.get(leaseNamespace, name);
    const current = readRecord(found?.metadata.annotations);
    const next = nextRecord(current, members, leases, states);
    if (sameRecord(current, next)) return;
    const annotations = recordAnnotations(next);
    if (found) {
      await this.writer.mergePatch(LEASE, leaseNamespace, name, { metadata: { annotations } });
    } else {
      await this.options.client.request({
        method: 'POST',
        path: resourcePath(LEASE, leaseNamespace),
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, labels: { [RECORD_LABEL]: ring }, annotations },
        },
      });
    }
    if (next.generation !== current?.generation)
      log.info('the ring changed', { generation: next.generation, members: next.members });
    else log.info('every member has taken up the ring', { generation: next.generation });
    if (next.generation !== current?.generation) this.options.metrics?.calculated();
  }

  private async move(move: Move): Promise<void> {
    const { type, namespace, name } = move.object;
    try {
      await this.writer.mergePatch(type, type.namespaced ? namespace : undefined, name, {
        metadata: { labels: labelsOf(this.options.ring, move) },
      });
      if (move.action === 'drain') this.options.metrics?.drained(type);
      else if (move.action === 'assign') this.options.metrics?.assigned(type, move.from !== undefined);
    } catch (err) {
      if (!isNotFound(err))
        this.options.log.warn('could not label a resource for its member', {
          kind: type.kind,
          namespace,
          name,
          error: (err as Error).message,
        });
    }
  }

  /**
   * Makes the leader the holder of a member's expired Lease (an update with the resourceVersion read):
   * that member, if it still runs, finds another holder at its next renewal and stops, and its resources
   * go to the others without waiting for it.
   */
  private async takeOver(lease: MemberLease & KubeObject): Promise<void> {
    const now = microTime(new Date());
    try {
      await this.options.client.request({
        method: 'PUT',
        path: resourcePath(LEASE, this.options.leaseNamespace, lease.metadata.name),
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          ...lease,
          spec: { ...lease.spec, holderIdentity: this.options.identity, acquireTime: now, renewTime: now },
        },
      });
      this.options.log.info('took over the Lease of a member that stopped renewing it', {
        member: lease.metadata.name,
      });
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
      // Renewed since the leader saw it (only slow): it stays in the ring.
      if (isConflict(err))
        this.options.log.info('a member renewed its Lease before it could be taken over', {
          member: lease.metadata.name,
        });
    }
  }
}

/** Whether any of the ring's labels (`keys`) differ between two versions of a resource. */
export const ringLabelsChanged = (keys: readonly string[], a: KubeObject, b: KubeObject): boolean =>
  keys.some((k) => a.metadata.labels?.[k] !== b.metadata.labels?.[k]);
