/**
 * Drift: the children changed by hand since the controller applied them (the applied hash still matches
 * what the construct renders, but a field it renders holds another value), and what becomes of them by
 * the resource's drift mode (`reconstruct.dev/drift` on the resource, else on the kind's CRD; default
 * correct):
 *
 * - **correct**: the apply phase repairs them (repair.ts for what an apply cannot undo); reported as
 *   corrected (an event, `reconstruct_drift_total`);
 * - **warn**: the apply phase leaves them as they are; reported (an event, the metric) and said by the
 *   resource's `Drifted` condition, True while a child stays changed, naming it and the field.
 *
 * The apply phase finds them: it compares each child with what is rendered anyway, and `driftIn` reads
 * its answer (one comparison per child, none added). This phase reports them after it. A drift is
 * reported once: again only when another child or field drifts, or after it was gone. A change of the
 * resource's spec renders its children anew and applies them whatever the mode: only a change made to a
 * child alone is drift.
 */
import { DRIFT_ANNOTATION, type CustomResource } from '../../constructs/kit';
import type { EventSink } from '../kube/events';
import type { DriftedChild } from '../reconcile/intent';
import type { OtherCondition } from '../reconcile/status';

export type DriftMode = 'warn' | 'correct';

/** The mode of a resource: its own annotation, else its kind's CRD's, else correct (an unknown value too). */
export function driftModeOf(
  resource: Pick<CustomResource, 'metadata'>,
  kindAnnotations: Readonly<Record<string, string>> | undefined,
): DriftMode {
  const own = resource.metadata.annotations?.[DRIFT_ANNOTATION];
  const value = own === 'warn' || own === 'correct' ? own : kindAnnotations?.[DRIFT_ANNOTATION];
  return value === 'warn' ? 'warn' : 'correct';
}

/** `/spec/template/spec/containers/0/image` as `spec.template.spec.containers[0].image`. */
export function fieldOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

const DRIFTED_AT = 'drifted at ';

/**
 * The drift in why a child of ours needs an apply (converge.ts's `applyNeeded`), undefined when it
 * needs none or for another reason (a new spec, a new revision, a missing annotation).
 */
export function driftIn(
  why: string | undefined,
  child: { readonly kind: string; readonly metadata: { readonly name: string } },
): DriftedChild | undefined {
  if (!why?.startsWith(DRIFTED_AT)) return undefined;
  const field = fieldOf(why.slice(DRIFTED_AT.length));
  return { child: `${child.kind} ${child.metadata.name}`, childKind: child.kind, field };
}

/** What the phase reports through: the events, and the metric (`reconstruct_drift_total{kind, child_kind}`). */
export interface DriftReports {
  readonly events: EventSink;
  readonly counted?: (kind: string, childKind: string) => void;
}

export class DriftPhase {
  /** By resource key: the drifts last reported, as `child field` lines. */
  private readonly reported = new Map<string, string>();

  constructor(private readonly reports: DriftReports) {}

  /**
   * Reports the drifts the apply phase found, once per new drift (an event each, the metric); the
   * `Drifted` condition in warn mode (none in correct mode: what drifted is repaired by then). In correct
   * mode `drifts` are the children the apply phase did update: one whose repair failed is said by Ready,
   * and reported once a later reconcile repairs it.
   */
  report(
    key: string,
    kind: string,
    resource: CustomResource,
    mode: DriftMode,
    drifts: readonly DriftedChild[],
  ): OtherCondition | undefined {
    const lines = drifts.map((d) => `${d.child} ${d.field}`).join('\n');
    const condition = mode === 'warn' ? driftedCondition(drifts) : undefined;
    // Remembered by this process; after a restart, a condition that already says it was said.
    const said = (resource.status as { conditions?: OtherCondition[] } | undefined)?.conditions?.find(
      (c) => c.type === 'Drifted',
    );
    const before =
      this.reported.get(key) ?? (said?.status === 'True' && said.message === condition?.message ? lines : '');
    if (lines === '') this.reported.delete(key);
    else this.reported.set(key, lines);
    const known = new Set(before.split('\n'));
    for (const d of drifts.filter((d) => !known.has(`${d.child} ${d.field}`))) {
      this.reports.counted?.(kind, d.childKind);
      if (mode === 'warn') {
        this.reports.events.emit(
          resource,
          'Warning',
          'Drifted',
          `${d.child}: ${d.field} was changed outside the construct; left as it is (${DRIFT_ANNOTATION}: warn)`,
        );
      } else {
        this.reports.events.emit(
          resource,
          'Normal',
          'DriftCorrected',
          `${d.child}: ${d.field} was changed outside the construct; set back to what the construct renders`,
        );
      }
    }
    return condition;
  }

  forget(key: string): void {
    this.reported.delete(key);
  }
}

/** The `Drifted` condition of a resource in warn mode: True while a child stays changed, naming it and the field. */
function driftedCondition(drifts: readonly DriftedChild[]): OtherCondition {
  if (drifts.length === 0) {
    return {
      type: 'Drifted',
      status: 'False',
      reason: 'AsRendered',
      message: 'every child is as the construct renders it',
    };
  }
  const first = drifts[0];
  const more = drifts.length > 1 ? ` (and ${drifts.length - 1} more child(ren))` : '';
  return {
    type: 'Drifted',
    status: 'True',
    reason: 'ChangedOutside',
    message: `${first.child}: ${first.field} differs from what the construct renders${more}; left as it is (${DRIFT_ANNOTATION}: warn)`,
  };
}
