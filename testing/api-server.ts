/**
 * What the in-memory cluster's API server refuses, as the real one does: a resource its CRD does not admit
 * (schema, defaults, CEL rules), a change to a field that is immutable once set, and the writes a test
 * asks it to refuse (`InMemoryCluster.refuse`); and how an update takes fields from their appliers.
 */
import type { ApiKind, CustomResource, Kind, KubeObject } from '../constructs/kit';
import { mergePatched } from '../controller/kube/merge-patch';
import { ApiError } from '../controller/kube/errors';
import type { Writer } from '../controller/kube/writer';
import { validateResource, type FieldError } from '../constructs/kit/validate';
import type { Write } from './write';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Drops from `target` every leaf `patch` sets: an update takes those fields from their appliers. */
export function unown(target: Json, patch: Json): void {
  for (const [k, v] of Object.entries(patch)) {
    if (isObject(v) && isObject(target[k])) unown(target[k], v);
    else delete target[k];
  }
}

/** What the API server answers a create or update that the kind's CRD refuses: each field, as kubectl prints it. */
export interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
}

export class AdmissionError extends Error {
  constructor(
    readonly resource: string,
    readonly errors: readonly FieldError[],
  ) {
    super(`${resource} is invalid: ${errors.map((e) => `${e.field || '<nil>'}: ${e.message}`).join(', ')}`);
    this.name = 'AdmissionError';
  }
}

/**
 * Fields the API server refuses to change once an object has them (its validation, by kind): the ones a
 * construct's change is likely to touch. A refusal is the 422 the API server sends, with its causes.
 */
const IMMUTABLE: Readonly<Record<string, readonly string[]>> = {
  Job: ['spec.selector', 'spec.template', 'spec.completions'],
  Deployment: ['spec.selector'],
  ReplicaSet: ['spec.selector'],
  DaemonSet: ['spec.selector'],
  StatefulSet: ['spec.selector', 'spec.serviceName', 'spec.volumeClaimTemplates', 'spec.podManagementPolicy'],
  Service: ['spec.clusterIP'],
};

export function immutableRefusal(before: KubeObject, after: KubeObject): ApiError | undefined {
  if (before.metadata.resourceVersion === undefined || before.metadata.resourceVersion === '')
    return undefined;
  const valueAt = (obj: KubeObject, field: string) =>
    field
      .split('.')
      .reduce<unknown>(
        (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
        obj,
      );
  const causes = (IMMUTABLE[after.kind ?? ''] ?? [])
    .filter((field) => valueAt(before, field) !== undefined)
    .filter((field) => JSON.stringify(valueAt(before, field)) !== JSON.stringify(valueAt(after, field)))
    .map((field) => ({
      reason: 'FieldValueInvalid',
      field,
      message: 'Invalid value: ...: field is immutable',
    }));
  if (causes.length === 0) return undefined;
  const message = `${after.kind} "${after.metadata.name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`;
  return new ApiError(422, message, {
    reason: 'Invalid',
    body: { kind: 'Status', status: 'Failure', reason: 'Invalid', message, details: { causes } },
  });
}

/** The resource as the API server would store it (pruned, defaulted), or AdmissionError. */
export function admit(kind: Kind, resource: Json, old?: KubeObject): { spec: unknown } {
  const { object, errors } = validateResource(kind.crd, resource, old ? { old } : {});
  const { name } = resource.metadata as { name: string };
  if (errors.length > 0) throw new AdmissionError(`${kind.kind} "${name}"`, errors);
  return object as { spec: unknown };
}

/**
 * A resource sent in `apiVersion`, any of the kind's versions, as the API server keeps it for the
 * controller: admitted by that version's schema (AdmissionError), converted to the kind's own version (the
 * kind's conversion, its conversion data in the annotations) and defaulted there.
 */
export function admitAs(kind: Kind, apiVersion: string, metadata: Json, spec: unknown): CustomResource {
  const sent = { apiVersion, kind: kind.kind, metadata, spec };
  const converted = kind.convert(
    { ...sent, spec: admit(kind, sent).spec } as CustomResource,
    kind.apiVersion,
  );
  return { ...converted, spec: admit(kind, converted).spec };
}

/**
 * A JSON patch of top-level paths (as the controller's drift repair writes them): each `test` checked
 * against what `get` reads, each `replace` or `add` made through `patch` (a merge patch). The refusal, if
 * the API server would refuse it.
 */
export function jsonPatched(
  ops: readonly JsonPatchOp[],
  get: (field: string) => unknown,
  patch: (merge: Json) => void,
): Error | undefined {
  for (const op of ops) {
    const field = op.path.slice(1);
    if (op.op === 'test' && !field.includes('/')) {
      if (JSON.stringify(get(field)) !== JSON.stringify(op.value)) {
        return new ApiError(422, 'the test operation failed', { reason: 'Invalid' });
      }
    } else if ((op.op === 'replace' || op.op === 'add') && !field.includes('/')) {
      patch({ [field]: null });
      patch({ [field]: op.value });
    } else {
      return new Error(`InMemoryCluster: JSON patch op ${op.op} ${op.path} not supported`);
    }
  }
  return undefined;
}

/** The API server's answer for an object that is not there. */
export const notFound = (): ApiError => new ApiError(404, 'not found', { reason: 'NotFound' });

/**
 * Why the API server refuses a merge patch of `obj`, if it does: a resourceVersion in the patch that is not
 * the object's (a change was made since), or a finalizer added to an object being deleted.
 */
export function mergePatchRefusal(type: ApiKind, obj: KubeObject, patch: Json): ApiError | undefined {
  const { name } = obj.metadata;
  const expected = (patch.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
  if (expected !== undefined && expected !== obj.metadata.resourceVersion) {
    const message = `Operation cannot be fulfilled on ${type.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`;
    return new ApiError(409, message, { reason: 'Conflict' });
  }
  const before = obj.metadata.finalizers ?? [];
  const after = (mergePatched(obj, patch) as KubeObject).metadata.finalizers ?? [];
  if (obj.metadata.deletionTimestamp && after.some((f) => !before.includes(f))) {
    const message = `${obj.kind ?? type.kind} "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted`;
    return new ApiError(422, message, { reason: 'Invalid' });
  }
  return undefined;
}

/**
 * The writer, refusing each write of a verb in `refusals` with its error (see InMemoryCluster.refuse).
 */
export function refusing(writer: Writer, refusals: ReadonlyMap<Write['verb'], Error>): Writer {
  const gate =
    <A extends unknown[], R>(verb: Write['verb'], write: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const refusal = refusals.get(verb);
      return refusal ? Promise.reject(refusal) : write(...args);
    };
  return {
    fieldManager: writer.fieldManager,
    read: writer.read.bind(writer),
    apply: gate('apply', writer.apply.bind(writer)),
    applyStatus: gate('status', writer.applyStatus.bind(writer)),
    mergePatch: gate('patch', writer.mergePatch.bind(writer)),
    jsonPatch: gate('patch', writer.jsonPatch.bind(writer)),
    delete: gate('delete', writer.delete.bind(writer)),
    create: gate('create', writer.create.bind(writer)),
  };
}
