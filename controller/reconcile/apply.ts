/**
 * The apply phase: each child by its policy, what its policy and the cluster call for (create, apply,
 * adopt, wait, leave alone), done and said as an outcome (create-only ones created once, ignored fields
 * left to their owner, waiting ones held back, foreign ones reported). The outcomes are folded into a
 * summary (summary.ts) and the decision (decide.ts) turns that into events and status.
 */
import {
  ADOPT_ANNOTATION,
  RELEASED_FROM_ANNOTATION,
  isWriteOnly,
  type ClusterView,
  type CustomResource,
  type KubeObject,
  type Manifest,
} from '../../constructs/kit';
import { withGeneratedValues } from '../../constructs/kit/child-policy';
import {
  immutableFields,
  isAlreadyExists,
  isNamespaceTerminating,
  isOwnerKindUndiscovered,
} from '../kube/errors';
import { kindKey } from '../../constructs/kit/api-kind';
import { objectKey } from '../kube/object-key';
import type { Writer } from '../kube/writer';
import type { Logger } from '../log';
import { adopt } from './adopt';
import { applyNeeded } from './converge';
import { driftIn, type DriftMode } from '../drift/phase';
import type { DriftRepair } from '../drift/repair';
import type { Tracing } from '../tracing/tracing';
import { ownedBy, waitingFor, type ChildOutcome, type Intent } from './intent';
import { replaceImmutable } from './replace';
import type { CreatedChild, WriteOnlyChildren } from './write-only';
import type { Echoes } from './echoes';
import type { Written } from './written';

/**
 * By queue key, then child key: the uid of each child this controller created that its caches have not
 * shown yet. A reconcile before the watch brings a new child applies it again (harmless, idempotent); the
 * same uid coming back says it was not created a second time, so it is not announced twice.
 */
export class UnseenChildren {
  private readonly byResource = new Map<string, Map<string, string>>();

  /** The cache shows the child: it is seen. */
  seen(key: string, childKey: string): void {
    const unseen = this.byResource.get(key);
    if (unseen?.delete(childKey) && unseen.size === 0) this.byResource.delete(key);
  }

  /** Records a child just written that the cache did not show; true when it was written before (same uid). */
  written(key: string, childKey: string, uid: string): boolean {
    const unseen = this.byResource.get(key) ?? new Map<string, string>();
    const again = uid !== '' && unseen.get(childKey) === uid;
    unseen.set(childKey, uid);
    this.byResource.set(key, unseen);
    return again;
  }

  forget(key: string): void {
    this.byResource.delete(key);
  }
}

/** What the apply phase reads and writes through. */
export interface ApplyDeps {
  readonly view: ClusterView;
  readonly writer: Writer;
  readonly drift: DriftRepair;
  readonly writeOnly: WriteOnlyChildren;
  readonly unseen: UnseenChildren;
  /** The versions this controller wrote, whose watch events wake no one. */
  readonly echoes: Echoes;
  /** A span per child applied (controller/tracing). */
  readonly tracing: Tracing;
}

/** One resource's apply: its key, its children (`desired`) and the write-only children it records. */
export interface ApplyScope {
  readonly key: string;
  readonly resource: CustomResource;
  readonly desired: readonly Intent[];
  readonly created: CreatedChild[];
  /** What this reconcile writes, filled as it goes: newer than the caches until their events come. */
  readonly written: Written;
  /** The child types the kind's inputs read (written.ts): their events are news, not echoes. */
  readonly readByInputs: ReadonlySet<string>;
  readonly log: Logger;
  /** Held back by a rollout (rollout.ts): children that exist are left as they are; missing ones are made. */
  readonly held?: boolean;
  /** What becomes of a child changed by hand (controller/drift): applied back (correct) or left (warn). */
  readonly driftMode?: DriftMode;
}

/**
 * Applies every child of the scope; one outcome per child, in the children's order. Children start at
 * once, except that one waiting for siblings (its policy's `waitFor`) first lets their applies end, then
 * judges them by what this reconcile wrote where the caches lag: the Namespace created a moment ago is
 * there, and its RoleBinding goes ahead in the same reconcile, not at the watch event's (kro does the
 * same from its applies' answers). A sibling that is not ready yet (a Deployment just created) is still
 * waited for, and its watch event brings the reconcile that goes on (blocked.ts). Cycles of waits are
 * refused at synthesis, so no apply waits for itself.
 */
export function applyChildren(deps: ApplyDeps, scope: ApplyScope): Promise<ChildOutcome[]> {
  const view = scope.written.over(deps.view);
  const applies = new Map<Intent, Promise<ChildOutcome>>();
  const byName = (kind: string, name: string) =>
    scope.desired.find((i) => i.child.kind === kind && i.child.metadata.name === name);
  const run = (intent: Intent): Promise<ChildOutcome> => {
    const started = applies.get(intent);
    if (started) return started;
    const siblings = intent.policy.waitFor.flatMap(({ kind, name }) => byName(kind, name) ?? []);
    const apply = () => applyChild({ ...deps, view }, scope, intent);
    const applied = Promise.all(siblings.map(run)).then(() =>
      deps.tracing.on ? tracedApply(deps.tracing, intent, apply) : apply(),
    );
    applies.set(intent, applied);
    return applied;
  };
  return Promise.all(scope.desired.map(run));
}

/** One child's apply in a span `apply <Kind> <name>`, its outcome an attribute. */
function tracedApply(tracing: Tracing, intent: Intent, apply: () => Promise<ChildOutcome>) {
  const { child } = intent;
  const attributes = {
    'reconstruct.child.kind': child.kind,
    'reconstruct.child.name': child.metadata.name,
    'k8s.namespace.name': child.metadata.namespace,
  };
  return tracing.span(`apply ${child.kind} ${child.metadata.name}`, attributes, async (span) => {
    const outcome = await apply();
    span?.setAttribute('reconstruct.outcome', outcome.kind);
    if (outcome.drift) span?.setAttribute('reconstruct.drifted_field', outcome.drift.field);
    if (outcome.kind === 'failed') tracing.failed(span, outcome.message ?? outcome.label);
    return outcome;
  });
}

async function applyChild(deps: ApplyDeps, scope: ApplyScope, intent: Intent): Promise<ChildOutcome> {
  const { view, writer } = deps;
  const { key, resource, desired, log } = scope;
  const { child, type, policy } = intent;
  const { namespace: ns, name: childName } = child.metadata;
  const { metadata } = resource;
  const childKey = objectKey(type, ns, childName);
  const label = `${child.kind} ${childName}`;
  const foreign = `${child.kind} ${ns ? `${ns}/` : ''}${childName}`;
  const waiting = (): ChildOutcome | undefined => {
    const blocker = waitingFor(intent, desired, view, metadata);
    return blocker && { kind: 'waiting', label, message: `${label} waits for ${blocker.message}` };
  };
  if (intent.pending) return { kind: 'waiting', label, message: intent.pending };
  if (isWriteOnly(type)) return waiting() ?? applyWriteOnly(deps, scope, intent, label, foreign);
  // The child caches hold only what carries our managed-by label. A name they lack but that exists is
  // someone else's object (or ours, not seen yet): one read settles it before a forced apply could take
  // it over. A name that exists nowhere needs no read, unless a creation would reset what another actor
  // set since (ignored fields): then the cache's word is not enough.
  const live =
    view.get(type, ns, childName) ??
    (view.exists(type, ns, childName) || policy.ignoreFields.length > 0
      ? await writer.read<KubeObject>(type, ns, childName)
      : undefined);
  if (live && !ownedBy(live, metadata.uid)) return adoptOrRefuse(writer, scope, intent, live, foreign);
  const wait = waiting();
  if (wait) return wait;
  if (live) deps.unseen.seen(key, childKey);
  if (policy.createOnly && live) return { kind: 'unchanged', label }; // Never updated.
  let why = policy.createOnly ? 'missing' : applyNeeded(intent.applied, live);
  const drift = driftIn(why, child);
  if (drift && scope.driftMode === 'warn') return { kind: 'unchanged', label, drift };
  if (!why || (scope.held && live)) return { kind: 'unchanged', label };
  let written: Manifest | undefined;
  // Its watch events that come before the write's answer wait for it: an echo is known by its version.
  const answered = scope.readByInputs.has(kindKey(type)) ? undefined : deps.echoes.send(childKey);
  try {
    if (policy.createOnly) {
      written = await writer.create(type, ns, withGeneratedValues(child)).then(
        (made) => made as Manifest,
        (err: unknown) => {
          // Made meanwhile (our cache lags our own write): it stays as it is, generated values and all.
          if (isAlreadyExists(err)) return undefined;
          throw err;
        },
      );
      if (!written) return { kind: 'unchanged', label };
    } else if (!live && intent.initial) {
      // Created with the ignored fields, which a second manager of ours then holds: the next applies
      // leave them out, and they stay until their new owner changes them (server-side apply's hand-over).
      const made = await writer.apply(type, deps.tracing.withTraceparent(intent.createBody));
      deps.echoes.wrote(childKey, made?.metadata?.resourceVersion);
      written = await writer.apply(type, intent.initial, `${writer.fieldManager}-initial`);
    } else {
      const body = deps.tracing.withTraceparent(intent.applied);
      const applied = await deps.drift.apply(type, childKey, body, log);
      written = applied.written;
      if (applied.repaired) why = `repaired drift in ${applied.repaired.join(', ')}`;
    }
  } catch (err) {
    const immutable = live ? immutableFields(err) : [];
    if (live && immutable.length > 0) return replaceImmutable(writer, intent, live, immutable, log);
    return failed(label, `apply ${label}`, err);
  } finally {
    answered?.(written?.metadata?.resourceVersion);
  }
  if (written) scope.written.record(type, written);
  if (!live) {
    // Applied again before the cache showed it: not a new child.
    const again = deps.unseen.written(key, childKey, written?.metadata?.uid ?? '');
    return { kind: again ? 'unchanged' : 'created', label };
  }
  // A changed child is logged with what differed; new ones in one line per reconcile (a burst of new
  // resources logs one line each, not one per child).
  log.info('updated child', { child: `${child.kind}/${childName}`, why });
  return { kind: 'updated', label, ...(drift ? { drift } : {}) };
}

/** A write-only child: created unless its record says it exists (see WriteOnlyChildren). */
async function applyWriteOnly(
  deps: ApplyDeps,
  scope: ApplyScope,
  { type, child }: Intent,
  label: string,
  foreign: string,
): Promise<ChildOutcome> {
  try {
    const outcome = await deps.writeOnly.create(scope.key, type, child, scope.created);
    if (outcome === 'foreign') return { kind: 'conflict', label: foreign };
    return { kind: outcome === 'created' ? 'created' : 'unchanged', label };
  } catch (err) {
    return failed(label, `create ${label}`, err);
  }
}

/**
 * A child whose name an object that is not the resource's holds: adopted when a user handed it over, or
 * taken back when this resource let it go (retained); else a conflict (ErrResourceExists).
 */
async function adoptOrRefuse(
  writer: Writer,
  { resource, log }: ApplyScope,
  { type, child }: Intent,
  live: KubeObject,
  foreign: string,
): Promise<ChildOutcome> {
  const label = `${child.kind} ${child.metadata.name}`;
  const marks = live.metadata.annotations ?? {};
  if (marks[ADOPT_ANNOTATION] !== 'true' && marks[RELEASED_FROM_ANNOTATION] !== resource.metadata.uid) {
    return {
      kind: 'conflict',
      label: foreign,
      blocker: objectKey(type, child.metadata.namespace, child.metadata.name),
    };
  }
  try {
    await adopt(writer, type, child, live, log);
  } catch (err) {
    return { kind: 'failed', label, message: `adopt ${label}: ${String(err)}` };
  }
  return { kind: 'adopted', label: `${label} (adopted)` }; // Its watch event brings the apply.
}

function failed(label: string, what: string, err: unknown): ChildOutcome {
  return {
    kind: 'failed',
    label,
    message: `${what}: ${String(err)}`,
    terminating: isNamespaceTerminating(err),
    undiscovered: isOwnerKindUndiscovered(err),
  };
}
