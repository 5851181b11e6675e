/**
 * Offline admission of a custom resource, as kube-apiserver does it on `kubectl apply`. One file a phase,
 * in the order they run: decode.ts (pruning and defaults), object-meta.ts (name, label and annotation
 * checks), openapi.ts (type, format, enum, bounds), list-types.ts, rules.ts (x-kubernetes-validations,
 * with cel.ts evaluating each expression); correlation.ts ties an update to the stored object, field.ts
 * words every error, and validate-resource.ts runs them in order. kubernetes.ts runs the same phases on
 * a child of a built-in kind, against the Kubernetes schemas shipped beside it (read on its first call).
 */
export { validateResource, type ValidateOptions, type Validated } from './validate-resource';
export { validateSpec, type ValidatedSpec } from './validate-spec';
export type { FieldError } from './field';
