/**
 * A member of a ring on the ranges read path (./ring-record): it watches the ring's record, holds what
 * memberStep gives it (its caches list and watch those hash ranges), and acknowledges each generation on
 * its own Lease once it has narrowed to it and the reconciles in flight have finished. One step at a
 * time; a failed write is retried at the next step (on the record's next event, or within a second).
 */
import { LEASE } from '../../constructs/kit';
import type { KubeClient } from '../kube/client';
import { KubeWriter } from '../kube/writer';
import type { Logger } from '../log';
import { Informer } from '../runtime/informer';
import { ACKNOWLEDGED_ANNOTATION, memberStep, readRecord, recordName, type RingRecord } from './ring-record';
import { sameRanges, type HashRanges } from './ring';

export interface ShardMemberOptions {
  readonly client: KubeClient;
  readonly ring: string;
  /** This member: the name of its Lease. */
  readonly member: string;
  readonly leaseNamespace: string;
  readonly log: Logger;
  /** Hold `ranges` from now on: the caches list and watch them (Manager.reshard). */
  hold(ranges: HashRanges): Promise<void>;
  /** Resolves once the reconciles in flight have finished (Manager.quiesce). */
  quiesce(): Promise<void>;
}

/** What a member holds, for /readyz?verbose and the metrics. */
export interface Share {
  readonly ranges: HashRanges;
  /** The ring's generation it has seen, and whether that generation is settled. */
  readonly generation: number;
  readonly settled: boolean;
}

export class ShardMember {
  private readonly record: Informer;
  private readonly writer: KubeWriter;
  private held: HashRanges = [];
  private seen?: RingRecord;
  private acknowledged = 0;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(private readonly options: ShardMemberOptions) {
    const { client, ring, leaseNamespace, log } = options;
    this.writer = new KubeWriter(client, 'reconstruct-shard-member');
    const step = () => this.step();
    this.record = new Informer(
      client,
      { type: LEASE, namespace: leaseNamespace, fieldSelector: `metadata.name=${recordName(ring)}` },
      { onAdd: step, onUpdate: step, onDelete: step },
      log,
    );
  }

  start(): void {
    this.record.start();
    this.timer = setInterval(() => this.step(), 1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    await this.record.stop();
  }

  /** What it holds now. */
  get share(): Share {
    const { seen } = this;
    return {
      ranges: this.held,
      generation: seen?.generation ?? 0,
      settled: seen !== undefined && seen.settled >= seen.generation,
    };
  }

  private step(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.once()
      .catch((err: Error) => this.options.log.warn('could not take up the ring', { error: err.message }))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.step();
        }
      });
  }

  private async once(): Promise<void> {
    const { ring, member, leaseNamespace, log } = this.options;
    const record = readRecord(this.record.get(leaseNamespace, recordName(ring))?.metadata.annotations);
    if (!record) return;
    this.seen = record;
    const next = memberStep(member, record, this.held);
    if (!sameRanges(next, this.held)) {
      await this.options.hold(next);
      this.held = next;
      const settled = record.settled >= record.generation;
      log.info(settled ? 'holds its share of the ring' : 'holds what it keeps while the ring changes', {
        generation: record.generation,
        ranges: next.length,
        members: record.members.length,
      });
    }
    if (record.generation > this.acknowledged) {
      // Nothing it let go of is still being written when it says so.
      await this.options.quiesce();
      await this.writer.mergePatch(LEASE, leaseNamespace, member, {
        metadata: { annotations: { [ACKNOWLEDGED_ANNOTATION]: String(record.generation) } },
      });
      this.acknowledged = record.generation;
    }
  }
}
