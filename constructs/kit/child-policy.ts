/**
 * Child policies: how the controller treats one child beyond "apply what is rendered, prune what is not".
 * A construct declares them per child with `childPolicy`; they are stored as annotations on the child, so
 * that the rendered YAML shows the intent to a GitOps reader (as Flux's and eno's annotations do) and the
 * controller reads them back from the same manifest it applies.
 *
 * - create-only: created when missing, never updated afterwards; values it `generate`s are made once, by
 *   the controller, when it creates the child;
 * - retain: never deleted by the controller, and no ownerReference, so the garbage collector spares it too;
 * - ignore fields: set at creation, then owned by someone else (an autoscaler's `spec.replicas`);
 * - wait for: created or updated only once the named siblings are ready, at what this reconcile wants;
 * - replace: deleted and created again when the API server refuses a change as immutable (a Job's template).
 */
import { ApiObject, JsonPatch } from 'cdk8s';
import type { IConstruct } from 'constructs';
import {
  CREATE_ONLY_ANNOTATION,
  FLUX_FORCE,
  FLUX_PRUNE,
  FLUX_SSA,
  GENERATE_ANNOTATION,
  IGNORE_FIELDS_ANNOTATION,
  OFFLINE_HINT_ANNOTATION,
  REPLACE_ANNOTATION,
  RETAIN_ANNOTATION,
  WAIT_FOR_ANNOTATION,
} from './child-annotations';
import { parsePointer } from './json-pointer';
import { checkLength } from './policy-of';

// The policy's vocabulary, and what the controller and the renderer read of it, from the one module they import.
export * from './child-annotations';
export { checkPolicies, policyOf, type ParsedChildPolicy } from './policy-of';
export {
  generatedFields,
  onlyFields,
  randomAlphanumeric,
  withGeneratedValues,
  withoutFields,
} from './child-fields';
export { parsePointer } from './json-pointer';

/** A value the controller generates when it creates a child: random characters of `[A-Za-z0-9]`. */
export interface GeneratedValue {
  /** How many characters, 1 to 1024. */
  readonly length: number;
}

/** What a construct declares about one child; see the module comment and docs/GUIDE.md. */
export interface ChildPolicy {
  /** Created when missing, never updated afterwards (a spec change does not reach it). */
  readonly createOnly?: boolean;
  /**
   * Values generated when the controller creates the child, by JSON pointer (`/stringData/password`).
   * Implies createOnly. Offline rendering leaves such a child out unless asked (`--include-generated`).
   */
  readonly generate?: Readonly<Record<string, GeneratedValue>>;
  /**
   * With `generate`: what a user can do instead, said when offline rendering leaves the child out (e.g.
   * `name a Secret of your own in spec.rootPasswordSecret`).
   */
  readonly offlineHint?: string;
  /** Never deleted: neither when the construct stops rendering it nor when the resource is deleted. */
  readonly retain?: boolean;
  /**
   * Fields, as JSON pointers through objects (`/spec/replicas`), that the controller sets when it creates
   * the child and never sets or resets afterwards: another actor owns them.
   */
  readonly ignoreFields?: readonly string[];
  /**
   * Siblings (constructs of the same resource) that must be ready before this child is created or updated:
   * ready by their kind's rules, and at what the same reconcile wants (a migration Job of the new version
   * complete, not the old one).
   */
  readonly waitFor?: readonly IConstruct[];
  /**
   * When the API server refuses a change to the child as immutable (a Job's template, a selector, a
   * Service's clusterIP), the controller deletes it and creates it again (Flux's `force`, Argo CD's
   * `Replace=true`). Without it the change is not made, and the resource's Ready condition names the child
   * and the field.
   */
  readonly replace?: boolean;
}

/**
 * Declares how the controller treats `child` (an ApiObject, or a construct whose default child is one, as
 * cdk8s-plus constructs are). Calls add up: a later call sets what it names (a `true`, a non-empty list)
 * and leaves the rest as an earlier call set it. Throws, before changing anything, for a policy that
 * cannot work (a malformed pointer, a child waiting for itself).
 */
export function childPolicy(child: IConstruct, policy: ChildPolicy): void {
  const obj = ApiObject.of(child);
  const annotations: Record<string, string> = {};
  try {
    const generate = Object.entries(policy.generate ?? {});
    if (policy.createOnly === false && generate.length > 0) {
      throw new Error(
        'generate needs createOnly: a value generated again on every apply would change each time',
      );
    }
    if (policy.createOnly || generate.length > 0) {
      annotations[CREATE_ONLY_ANNOTATION] = 'true';
      annotations[FLUX_SSA] = 'IfNotPresent';
    }
    if (generate.length > 0) {
      const items = generate.map(([pointer, { length }]) => {
        parsePointer(pointer);
        checkLength(length, pointer);
        if (pointer.includes(',') || pointer.includes('='))
          throw new Error(`generate ${pointer}: "," and "=" cannot be in the pointer`);
        return `${pointer}=alphanumeric(${length})`;
      });
      annotations[GENERATE_ANNOTATION] = items.join(',');
      if (policy.offlineHint) annotations[OFFLINE_HINT_ANNOTATION] = policy.offlineHint;
    } else if (policy.offlineHint) {
      throw new Error('offlineHint is for a child with generated values (generate)');
    }
    if (policy.retain) {
      annotations[RETAIN_ANNOTATION] = 'true';
      annotations[FLUX_PRUNE] = 'disabled';
    }
    if (policy.replace) {
      annotations[REPLACE_ANNOTATION] = 'true';
      annotations[FLUX_FORCE] = 'Enabled';
    }
    if (policy.ignoreFields && policy.ignoreFields.length > 0) {
      for (const pointer of policy.ignoreFields) {
        parsePointer(pointer);
        if (pointer.includes(',')) throw new Error(`ignoreFields ${pointer}: "," cannot be in the pointer`);
      }
      annotations[IGNORE_FIELDS_ANNOTATION] = policy.ignoreFields.join(',');
    }
    if (policy.waitFor && policy.waitFor.length > 0) {
      const names = policy.waitFor.map((sibling) => {
        const other = ApiObject.of(sibling);
        if (other === obj) throw new Error('a child cannot wait for itself');
        return `${other.kind}/${other.name}`;
      });
      annotations[WAIT_FOR_ANNOTATION] = names.join(',');
    }
  } catch (err) {
    throw new Error(`childPolicy(${obj.kind} ${obj.name}): ${(err as Error).message}`);
  }
  for (const [key, value] of Object.entries(annotations)) obj.metadata.addAnnotation(key, value);
  if (policy.ignoreFields?.includes('/spec/replicas')) keepReplicasForCreation(child);
}

/**
 * A cdk8s-plus workload whose `spec.replicas` another actor owns (an autoscaler) keeps the replicas its
 * construct gave it in the rendered object, for the controller's creation, while cdk8s-plus sees none:
 * it refuses an autoscaler's target with fixed replicas, and leaves them out of a target's output.
 */
function keepReplicasForCreation(child: IConstruct): void {
  const workload = child as { replicas?: unknown };
  if (!('replicas' in child) || typeof workload.replicas !== 'number') return;
  const replicas = workload.replicas;
  Object.defineProperty(child, 'replicas', {
    value: undefined,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  ApiObject.of(child).addJsonPatch(JsonPatch.add('/spec/replicas', replicas));
}
