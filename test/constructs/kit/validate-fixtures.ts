/**
 * What the offline admission tests share: a resource of a CRD, its errors, and the messages the API server
 * adds or repeats.
 */
import type { CustomResourceDefinition } from '../../../constructs';
import { validateResource } from '../../../constructs/kit/validate';
import type { FieldError } from '../../../constructs/kit/validate';

export type Obj = Record<string, unknown>;

export function resource(
  crd: CustomResourceDefinition,
  spec: unknown,
  metadata: unknown = { name: 'sample' },
): Obj {
  const version = crd.spec.versions[0]?.name ?? '';
  return { apiVersion: `${crd.spec.group}/${version}`, kind: crd.spec.names.kind, metadata, spec };
}

export function errorsOf(crd: CustomResourceDefinition, obj: unknown): FieldError[] {
  return validateResource(crd, obj).errors;
}

/** What the API server adds when an error stops it from running the CEL rules. */
export const RULES_NOT_CHECKED: FieldError = {
  field: '',
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

export const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
