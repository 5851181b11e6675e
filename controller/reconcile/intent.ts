/**
 * One child as the controller handles it (an Intent: what was rendered, its policy, what each write
 * sends), what the apply phase made of it (a ChildOutcome), whether an object is a resource's own, and
 * which sibling a child still waits for.
 */
import {
  ADOPT_ANNOTATION,
  OWNER_UID_ANNOTATION,
  RETAIN_ANNOTATION,
  childReadiness,
  isWriteOnly,
  type ApiKind,
  type ClusterView,
  type Kind,
  type KubeObject,
  type Manifest,
  type Readiness,
} from '../../constructs/kit';
import { childKindOf } from '../../constructs/kit/child-kinds';
import {
  onlyFields,
  policyOf,
  withoutFields,
  type ParsedChildPolicy,
} from '../../constructs/kit/child-policy';
import { APPLIED_HASH_ANNOTATION, withAppliedHash } from './converge';

/**
 * Whether `obj` belongs to the resource of `uid`: through its controller ownerReference, or, for a
 * retained child (which has none, so that the garbage collector spares it), through the owner annotation.
 */
export function ownedBy(obj: KubeObject, uid: string | undefined): boolean {
  return (
    !!uid &&
    ((obj.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid) ||
      (obj.metadata.annotations?.[RETAIN_ANNOTATION] === 'true' &&
        obj.metadata.annotations[OWNER_UID_ANNOTATION] === uid))
  );
}

/** One child as the controller handles it: what was rendered, its policy, and what to write. */
export interface Intent {
  /** As rendered. */
  readonly child: Manifest;
  readonly type: ApiKind;
  readonly policy: ParsedChildPolicy;
  /** What each apply sends: without the ignored fields, with the applied-hash annotation. */
  readonly applied: Manifest;
  /** With ignored fields: what creates the child (the ignored fields included, same hash). */
  readonly createBody: Manifest;
  /** With ignored fields: just those, as the `-initial` manager applies them after the creation. */
  readonly initial?: Manifest;
  /**
   * It holds an input not known yet (KindOptions.inputs): what it waits for, as Ready says it. It is not
   * applied (it holds a placeholder) nor pruned: the object in the cluster, if any, stays as it is.
   */
  readonly pending?: string;
}

/** One child of those `synthesize` returned, which has checked that its kind is one of `definition`'s. */
export function intentOf(definition: Kind, child: Manifest): Intent {
  const type = childKindOf(definition.children, child)!;
  const policy = policyOf(child);
  if (policy.ignoreFields.length === 0) {
    const applied = policy.createOnly ? child : withAppliedHash(child);
    return { child, type, policy, applied, createBody: applied };
  }
  const applied = withAppliedHash(withoutFields(child, policy.ignoreFields));
  const createBody = { ...child, metadata: applied.metadata };
  return { child, type, policy, applied, createBody, initial: onlyFields(child, policy.ignoreFields) };
}

/** What the apply phase did with one child. `label` is `<Kind> <name>`; a conflict's names the namespace. */
export interface ChildOutcome {
  readonly kind: 'created' | 'updated' | 'adopted' | 'unchanged' | 'waiting' | 'conflict' | 'failed';
  readonly label: string;
  /** What a waiting or failed child's condition says. */
  readonly message?: string;
  /** A failed child's namespace is being deleted (see isNamespaceTerminating). */
  readonly terminating?: boolean;
  /** A failed child's owner kind is not known to the API server yet (see isOwnerKindUndiscovered). */
  readonly undiscovered?: boolean;
  /** A conflict's object key, when its object is one the existence caches watch. */
  readonly blocker?: string;
  /** The child was changed by hand: updated back (correct), or left as it is (warn). controller/drift reports it. */
  readonly drift?: DriftedChild;
}

/** A child changed by hand since the controller applied it: its applied hash matches, a rendered field does not. */
export interface DriftedChild {
  /** `Deployment web`. */
  readonly child: string;
  readonly childKind: string;
  /** The first field found changed: `spec.replicas`, `spec.template.spec.containers[0].image`. */
  readonly field: string;
}

const notYetUpdated = (intent: Intent): Readiness => ({
  ready: false,
  reason: 'Progressing',
  message: `${intent.child.kind} ${intent.child.metadata.name}: not yet updated to the current spec`,
});

/** The namespace of a child's object (a namespaced child the construct left without one is the resource's). */
export const namespaceOf = (intent: Intent, namespace: string | undefined) =>
  intent.type.namespaced ? (intent.child.metadata.namespace ?? namespace) : undefined;

/**
 * Whether the cached object of a child is the one the last apply wrote: it carries the applied hash of
 * what this reconcile wants. A create-only child is never updated, so any object of it is.
 */
function isCurrent(intent: Intent, live: KubeObject): boolean {
  return (
    intent.policy.createOnly ||
    live.metadata.annotations?.[APPLIED_HASH_ANNOTATION] ===
      intent.applied.metadata.annotations?.[APPLIED_HASH_ANNOTATION]
  );
}

/** A sibling whose name an object holds that is not the resource's: the apply phase reports it (a conflict). */
const notOurs = (intent: Intent): Readiness => ({
  ready: false,
  reason: 'ErrResourceExists',
  message:
    `${intent.child.kind} ${intent.child.metadata.name}: exists but is not ours ` +
    `(to hand it over, annotate it ${ADOPT_ANNOTATION}=true)`,
});

/**
 * The first sibling the child waits for (its policy's `waitFor`) that is not ready, with why; undefined
 * when it may go ahead. A sibling is ready once the object in the cluster is the resource's (`owner`), is
 * the one this reconcile wants (applied, and seen back: a Job of the new version, not the old one that
 * completed) and is ready by its kind's rules. An object of another's under the sibling's name is waited
 * for as such, never taken for the sibling.
 */
export function waitingFor(
  intent: Intent,
  all: readonly Intent[],
  view: ClusterView,
  owner: { readonly namespace?: string; readonly uid?: string },
): Readiness | undefined {
  for (const { kind, name } of intent.policy.waitFor) {
    const sibling = all.find((i) => i.child.kind === kind && i.child.metadata.name === name);
    if (!sibling) continue; // synthesize refuses a wait for a child it did not render
    const namespace = namespaceOf(sibling, owner.namespace);
    const live = view.get(sibling.type, namespace, name);
    // The caches hold only objects with our managed-by label: one they lack that exists is another's.
    if (live ? !ownedBy(live, owner.uid) : view.exists(sibling.type, namespace, name))
      return notOurs(sibling);
    if (live && !isCurrent(sibling, live)) return notYetUpdated(sibling);
    const readiness = childReadiness(sibling.child, live);
    if (!readiness.ready) return readiness;
  }
  return undefined;
}

/**
 * The first child whose cached object is not yet the one this reconcile applied: an update written a
 * moment ago, which the cache shows only once its watch event comes. Until then the cache's object says
 * how the old spec does, and a Ready computed from it would be Ready for a spec not yet rolled out.
 */
export function notYetCurrent(
  all: readonly Intent[],
  view: ClusterView,
  namespace: string | undefined,
): Readiness | undefined {
  for (const intent of all) {
    if (isWriteOnly(intent.type)) continue;
    const live = view.get(intent.type, namespaceOf(intent, namespace), intent.child.metadata.name);
    if (live && !isCurrent(intent, live)) return notYetUpdated(intent);
  }
  return undefined;
}
