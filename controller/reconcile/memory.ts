/**
 * What the controller remembers about each resource between reconciles, in one object: the last
 * synthesis, the children created and not seen yet (and the versions written, until their echoes), the
 * write-only children's records and checks, what blocks it, a status write held back, its not-Ready
 * streak, since when its children wait, why its stuck child is stuck, its finalizer's state, the drift
 * repairs its children were given; and the namespaces being deleted; the objects its inputs read (watched
 * for it while it reads them). Everything else is read from the caches on each reconcile. `forget` drops
 * all of a resource's at once, when it is gone.
 */
import type { ClusterView } from '../../constructs/kit';
import type { EventSink } from '../kube/events';
import { objectKey } from '../kube/object-key';
import type { LiveReads } from '../kube/live-reads';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';
import { UnseenChildren } from './apply';
import { Blockers } from './blocked';
import { Echoes } from './echoes';
import { DriftRepair } from '../drift/repair';
import { Finalizer } from './finalize';
import type { KindReads } from './kind-reads';
import { NotReadyRecheck } from './recheck';
import { ProgressHold } from './status';
import { Syntheses } from './synthesize';
import { TerminatingNamespaces } from './terminating';
import { Troubles, type Schedule } from './troubles';
import { LastingWaits } from './waits';
import { WriteOnlyChildren } from './write-only';
import { InputReader } from '../inputs/reader';
import type { InputWatches } from '../inputs/watches';

export class ResourceMemory {
  readonly syntheses: Syntheses;
  readonly unseen = new UnseenChildren();
  /** By child, not by resource: the versions its writes returned, until their watch events come. */
  readonly echoes = new Echoes();
  readonly writeOnly: WriteOnlyChildren;
  readonly finalizer: Finalizer;
  readonly blockers = new Blockers();
  readonly progress = new ProgressHold();
  readonly recheck = new NotReadyRecheck();
  readonly waits: LastingWaits;
  readonly drift: DriftRepair;
  readonly terminating: TerminatingNamespaces;
  readonly troubles: Troubles;
  readonly inputs: InputReader;

  constructor(
    view: ClusterView,
    writer: Writer,
    events: EventSink,
    log: Logger,
    now: () => Date,
    {
      reads,
      schedule,
      copyLabels,
      bucketLabel,
      kindReads,
      inputWatches,
    }: {
      reads?: LiveReads;
      /** The watches of the objects inputs name (controller/inputs/watches.ts); none: each is read by a GET. */
      inputWatches?: InputWatches;
      /** What a kind's sync reads through, recorded; the caches themselves when not given. */
      kindReads?: KindReads;
      /** The timers of the first reads of stuck children (troubles.ts); real timers when not given. */
      schedule?: Schedule;
      copyLabels?: readonly string[];
      bucketLabel?: string;
    } = {},
  ) {
    this.syntheses = new Syntheses(copyLabels, bucketLabel);
    this.troubles = new Troubles(reads, log, now, schedule);
    this.writeOnly = new WriteOnlyChildren(writer, now);
    this.finalizer = new Finalizer((d) => kindReads?.viewOf(d) ?? view, writer, events, now);
    this.drift = new DriftRepair(writer, log);
    this.terminating = new TerminatingNamespaces(now);
    this.waits = new LastingWaits(now);
    this.inputs = new InputReader(view, writer, inputWatches);
  }

  /** Forgets everything about the resource of `key`: it is gone. */
  forget(key: string): void {
    this.forgetDrift(key);
    this.syntheses.forget(key);
    this.handled.delete(key);
    this.unseen.forget(key);
    this.writeOnly.forget(key);
    this.finalizer.forget(key);
    this.blockers.set(key, []);
    this.progress.forget(key);
    this.recheck.forget(key);
    this.waits.forget(key);
    this.troubles.forget(key);
    this.inputs.forget(key);
  }

  /** By queue key: the last reconcile request handled, until the cache shows it in the status. */
  private readonly handled = new Map<string, string>();

  /**
   * A user asked for a reconcile now (`reconstruct.dev/requested-at`): what the controller chose to wait
   * for or stop retrying is forgotten, so that this reconcile looks again: the write-only children's last
   * checks, the drift repairs given up, the not-Ready backoff, a status write held back. False when this
   * request was handled already (the cache has not shown the status that says so yet): nothing to redo.
   */
  requested(key: string, token: string): boolean {
    if (this.handled.get(key) === token) return false;
    this.handled.set(key, token);
    this.forgetDrift(key);
    this.writeOnly.recheckNow(key);
    this.progress.forget(key);
    this.recheck.forget(key);
    this.troubles.readNow(key);
    return true;
  }

  /** Forgets the drift repairs given to the children of the resource's last synthesis. */
  private forgetDrift(key: string): void {
    for (const { type, child } of this.syntheses.remembered(key)) {
      this.drift.forget(objectKey(type, child.metadata.namespace, child.metadata.name));
    }
  }

  /**
   * The soonest a resource must be looked at again for what is remembered about it, whatever its reconcile
   * said: a write-only child due to be looked for (its deletion sends no event; not when one is overdue:
   * that reconcile did not get to it, and its own requeue says when), a sync that met a conflict, a wait
   * that will have lasted long enough to be said (waits.ts).
   */
  dueInMs(key: string): number | undefined {
    const due = this.writeOnly.nextCheckInMs(key);
    const soonest = Math.min(
      due !== undefined && due > 0 ? due : Infinity,
      this.finalizer.retryAfterMs(key) ?? Infinity,
      this.waits.dueInMs(key) ?? Infinity,
    );
    return soonest === Infinity ? undefined : soonest;
  }
}
