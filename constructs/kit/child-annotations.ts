/**
 * The annotations that carry a child's policy in the rendered output (see child-policy.ts), and Flux's for
 * the same intent.
 */
const PREFIX = 'reconstruct.dev/';
/** `"true"`: created when missing, never updated. */
export const CREATE_ONLY_ANNOTATION = `${PREFIX}create-only`;
/** `"true"`: never deleted by the controller, no ownerReference. */
export const RETAIN_ANNOTATION = `${PREFIX}retain`;
/** JSON pointers (RFC 6901), comma-separated: fields set at creation, then left to their other owner. */
export const IGNORE_FIELDS_ANNOTATION = `${PREFIX}ignore-fields`;
/** `Kind/name` of siblings, comma-separated: this child is applied only once they are ready. */
export const WAIT_FOR_ANNOTATION = `${PREFIX}wait-for`;
/** `"true"`: deleted and created again when the API server refuses a change to it as immutable. */
export const REPLACE_ANNOTATION = `${PREFIX}replace`;
/** `<pointer>=alphanumeric(<length>)`, comma-separated: values the controller generates at creation. */
export const GENERATE_ANNOTATION = `${PREFIX}generate`;
/** What a user can do instead of a generated value, said when offline rendering leaves the child out. */
export const OFFLINE_HINT_ANNOTATION = `${PREFIX}offline-hint`;
/** In-cluster, on a retained child: the uid of the resource it belongs to (it has no ownerReference). */
export const OWNER_UID_ANNOTATION = `${PREFIX}owner-uid`;
/**
 * On a retained child its resource no longer renders: the uid of that resource, which takes it back
 * should it render it again. Any other resource must be handed it (ADOPT_ANNOTATION).
 */
export const RELEASED_FROM_ANNOTATION = `${PREFIX}released-from`;
/** Set by a user on an existing object: the next resource that renders it takes it over (see GUIDE). */
export const ADOPT_ANNOTATION = `${PREFIX}adopt`;

/** Flux's own annotations for the same intent, so Flux honours what it applies from our offline output. */
export const FLUX_SSA = 'kustomize.toolkit.fluxcd.io/ssa';
export const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
export const FLUX_FORCE = 'kustomize.toolkit.fluxcd.io/force';
