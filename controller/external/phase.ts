/**
 * The external phase of a reconcile, for a kind with external work (KindOptions.external). Two places:
 *
 * - `finalize`, first of all: a new resource gets the kit's finalizer (EXTERNAL_FINALIZER); a resource
 *   being deleted is held, Ready=False saying why, until its object is deleted (or retained), then
 *   released. Never an apply once its deletion started.
 * - `step`, after the children: where the object stands (its readiness and observation, for the status
 *   phase), the handler that is due started meanwhile.
 *
 * The handlers themselves run elsewhere (ExternalRunner in the controller, DryRunExternal in a dry run).
 */
import { EXTERNAL_FINALIZER, type CustomResource, type Kind, type Manifest } from '../../constructs/kit';
import type { ClusterView } from '../../constructs/kit';
import { isConflict, isNotFound } from '../kube/errors';
import type { Writer } from '../kube/writer';
import type { EventSink } from '../kube/events';
import type { DriftMode } from '../drift/phase';
import type { Logger } from '../log';
import { CONFLICT_RETRY_MS } from '../reconcile/finalize';
import { heldStatusFields, writeStatus } from '../reconcile/status';
import type { ExternalState, ExternalSteps } from './steps';

export class ExternalPhase {
  constructor(
    private readonly steps: ExternalSteps,
    private readonly writer: Writer,
    private readonly view: (definition: Kind) => ClusterView,
    private readonly now: () => Date,
    private readonly events: EventSink,
  ) {}

  /** The events of what the handlers did since the last step (made, changed, deleted, a new failure). */
  private announce(resource: CustomResource, state: ExternalState): ExternalState {
    for (const e of state.events ?? []) this.events.emit(resource, e.type, e.reason, e.message);
    return state;
  }

  /**
   * The finalizer added, or a deletion held or released. Undefined when the reconcile goes on (a resource
   * that lives, or one whose object is gone and released already).
   */
  async finalize(
    definition: Kind,
    resource: CustomResource,
    children: () => readonly Manifest[],
    asked: boolean,
    log: Logger,
  ): Promise<{ requeueAfterMs?: number } | undefined> {
    if (!definition.external) return undefined;
    const { namespace, name, resourceVersion, finalizers = [], deletionTimestamp } = resource.metadata;
    const holds = finalizers.includes(EXTERNAL_FINALIZER);
    if (!deletionTimestamp) {
      if (holds) return undefined;
      await this.writer.mergePatch(definition, namespace, name, {
        metadata: { resourceVersion, finalizers: [...finalizers, EXTERNAL_FINALIZER] },
      });
      return {}; // The finalizer's update brings the resource back.
    }
    if (!holds) return undefined;
    const state = this.announce(
      resource,
      await this.steps.step(definition, resource, { deleting: true, now: asked }, log),
    );
    try {
      if (state.gone) {
        await this.writer.mergePatch(definition, namespace, name, {
          metadata: { resourceVersion, finalizers: finalizers.filter((f) => f !== EXTERNAL_FINALIZER) },
        });
        log.info('external object gone: released the finalizer', { message: state.readiness.message });
        return {};
      }
      const fields = heldStatusFields(definition, resource, children, this.view(definition), state.observed);
      await writeStatus(this.writer, definition, resource, fields, state.readiness, this.now());
    } catch (err) {
      if (isNotFound(err)) return {}; // Gone meanwhile.
      if (isConflict(err)) return { requeueAfterMs: CONFLICT_RETRY_MS };
      throw err;
    }
    return state.afterMs !== undefined ? { requeueAfterMs: state.afterMs } : {};
  }

  /** Whether a handler of the resource of `key` runs now. */
  observed(key: string): unknown {
    return this.steps.observed(key);
  }

  busy(key: string): boolean {
    return this.steps.busy(key);
  }

  /** Forgets a resource that is gone. */
  forget(key: string): void {
    this.steps.forget(key);
  }

  /** Where a living resource's object stands, the handler that is due started; none without external work. */
  async step(
    definition: Kind,
    resource: CustomResource,
    asked: boolean,
    driftMode: DriftMode,
    log: Logger,
  ): Promise<ExternalState | undefined> {
    if (!definition.external) return undefined;
    const state = await this.steps.step(
      definition,
      resource,
      { deleting: false, now: asked, driftMode },
      log,
    );
    return this.announce(resource, state);
  }
}
