/**
 * Offline admission of a custom resource: what kube-apiserver (v1.36) does to a create request for a CRD
 * kind, or to an update when the stored object is given, in its order (decode with pruning and defaulting,
 * then ObjectMeta, OpenAPI schema, list types and CEL rules, transition rules included), with its error
 * messages. Each phase has its own file beside this one; docs/VALIDATION.md lists what differs.
 */
import { isObject, toJson } from '../defaults';
import type { CustomResourceDefinition } from '../schema';
import { Correlation } from './correlation';
import { decode } from './decode';
import { issue, strip, type FieldError, type Issue } from './field';
import { validateListTypes } from './list-types';
import { validateObjectMeta } from './object-meta';
import { validateNode } from './openapi';
import { validateObjectRules } from './rules';

/** Options of {@link validateResource}. */
export interface ValidateOptions {
  /**
   * The object as the API server stores it before an update (a whole custom resource): given, the
   * validation is the update's. Transition rules (those using `oldSelf`) run against the old value that
   * correlates with each node, the status is the old one, and errors in what the update leaves unchanged
   * are ratcheted (dropped; the API server only warns). It gets the same pruning and defaulting as the
   * new object first; its own errors are not reported. Anything but an object counts as not given.
   */
  old?: unknown;
}

/** The outcome of {@link validateResource}. */
export interface Validated {
  /**
   * A copy of the resource as the API server would store it: pruned, defaulted, status dropped (on
   * update: the stored object's status instead).
   */
  object: Record<string, unknown>;
  /** Every problem found, in a stable order; empty when a cluster would admit the resource. */
  errors: FieldError[];
}

/**
 * Checks `resource` against the CRD as the API server would on `kubectl apply`: a create, or with
 * `options.old` an update of that stored object. Returns the object it would store. Never throws and
 * never mutates `resource` or `options.old`.
 */
export function validateResource(
  crd: CustomResourceDefinition,
  resource: unknown,
  options: ValidateOptions = {},
): Validated {
  const copy = toJson(resource);
  if (!isObject(copy)) {
    return { object: {}, errors: [{ field: '', message: 'Invalid value: must be a Kubernetes object' }] };
  }
  const object = copy;
  const { group, names, scope } = crd.spec;

  // customResourceValidator.ValidateTypeMeta: nothing else is checked when these are wrong.
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const version = crd.spec.versions.find((v) => v.served && `${group}/${v.name}` === apiVersion);
  const typeMeta: Issue[] = [];
  if (kind !== names.kind) typeMeta.push(issue('Invalid', 'kind', kind, `must be ${names.kind}`));
  if (!version) {
    const expected = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
    typeMeta.push(issue('Invalid', 'apiVersion', apiVersion, `must be ${group}/${expected?.name ?? ''}`));
  }
  if (!version || typeMeta.length > 0) return { object, errors: typeMeta.map(strip) };
  const schema = version.schema.openAPIV3Schema;

  // Decoding: strict field validation reports what pruning drops (kubectl's default --validate=strict
  // fails the request on them; we report them and go on, so one run shows everything).
  const issues: Issue[] = decode(object, schema);

  // The stored object, as the API server reads it back: pruned and defaulted by the same schema.
  const storedCopy = options.old === undefined ? undefined : toJson(options.old);
  const old = isObject(storedCopy) ? storedCopy : undefined;
  if (old) decode(old, schema);

  // BeforeCreate/BeforeUpdate: a cluster-scoped object loses its namespace silently. With the status
  // subresource on, PrepareForCreate drops status and PrepareForUpdate keeps the stored one.
  if (scope === 'Cluster') {
    for (const o of [object, old]) if (isObject(o?.metadata)) delete o.metadata.namespace;
  }
  if (version.subresources?.status) {
    if (old && 'status' in old) object.status = structuredClone(old.status);
    else delete object.status;
  }

  // CorrelatedObject: on update, what each node of the new object was before, for ratcheting.
  const correlation = old && new Correlation(object, old, schema);
  issues.push(...validateObjectMeta(object.metadata, scope === 'Namespaced'));
  validateNode(object, schema, '', issues, correlation);
  // On update, list types are only checked when the stored object passes them.
  const oldListTypes: Issue[] = [];
  if (old) validateListTypes(old, schema, '', oldListTypes);
  if (oldListTypes.length === 0) validateListTypes(object, schema, '', issues);
  validateObjectRules(object, schema, issues, old, correlation);
  return { object, errors: issues.map(strip) };
}
