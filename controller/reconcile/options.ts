/** What a reconciler works with (reconciler.ts). */
import type { ClusterView, Kind, RolloutOptions } from '../../constructs/kit';
import type { ExternalSteps } from '../external/steps';
import type { InputWatches } from '../inputs/watches';
import type { EventSink } from '../kube/events';
import type { LiveReads } from '../kube/live-reads';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';
import type { ShardLabels } from '../sharding/let-go';
import type { Tracing } from '../tracing/tracing';
import type { Schedule } from './troubles';

export interface ReconcilerOptions {
  /** The controller's caches (or the in-memory cluster). */
  readonly view: ClusterView;
  readonly writer: Writer;
  readonly events: EventSink;
  readonly log: Logger;
  readonly now?: () => Date;
  /**
   * The annotations of a kind's CustomResourceDefinition, as the controller's CRD watch has them: the
   * suspension of a whole kind. None where CRDs are not watched (a controller confined to namespaces).
   */
  readonly kindAnnotations?: (definition: Kind) => Record<string, string> | undefined;
  /** The reads of a stuck child's pods and events (troubles.ts); none in a dry run, which says less. */
  readonly reads?: LiveReads;
  /** The rollout settings that override every kind's (`reconstruct controller --rollout-*`). */
  readonly rollout?: RolloutOptions;
  /** Whether resources wait in the queue: a new resource's first status then waits a second (decide.ts). */
  readonly busy?: () => boolean;
  /** The timers of stuck children's first reads (troubles.ts). @default - real timers */
  readonly schedule?: Schedule;
  /** Reconciles a resource soon: one whose turn in a rollout has come. None: it waits for its recheck. */
  readonly enqueue?: (definition: Kind, namespace: string | undefined, name: string) => void;
  /** Label keys whose values a resource passes on to its children (`--watch-label-selector`'s). */
  readonly copyLabels?: readonly string[];
  /** A member of a ring on the ranges read path: the label by which each child carries its resource's bucket. */
  readonly bucketLabel?: string;
  /**
   * A member of a sharded controller: the labels by which the ring's leader assigns a resource to it and
   * asks it to let go (controller/sharding). A resource with the drain label is let go of, not reconciled.
   */
  readonly shard?: ShardLabels;
  /** The watches of the objects inputs name, whose changes enqueue their readers; none: read by GETs. */
  readonly inputWatches?: InputWatches;
  /**
   * Where the handlers of kinds with external work run (controller/external): in the background, their
   * resources queued again through `enqueue` when they settle, unless given (a dry run's).
   */
  readonly external?: ExternalSteps;
  /** Counts a child found changed by hand (controller/drift): `reconstruct_drift_total{kind, child_kind}`. */
  readonly drifted?: (kind: string, childKind: string) => void;
  /** The spans of each reconcile (controller/tracing). @default - Tracing.off */
  readonly tracing?: Tracing;
}
