/**
 * The controller hands a kind's code (its `status`, `ready` and `sync`) a view that records which types
 * of object the code reads, so that a child's status update wakes its owner only when something the
 * reconcile reads changed (controller/reconcile/kind-reads.ts). The kit's own reads through the same
 * context, the children's readiness by the kstatus rules, are not the kind's: they go to the view the
 * recording one wraps, which the controller judges by those rules itself. Not exported to users.
 */
import type { ClusterView } from './cluster-view';

/** The key under which a recording view keeps the view it wraps. */
export const KIT_VIEW: unique symbol = Symbol('reconstruct.kitView');

/** The view the kit reads through: the one a recording view wraps, or the view itself. */
export function kitView(view: ClusterView): ClusterView {
  return (view as ClusterView & { [KIT_VIEW]?: ClusterView })[KIT_VIEW] ?? view;
}
