/**
 * `admitSpec`: how a construct reads its spec. The schema states the defaults and the checks once; a
 * construct built directly in a cdk8s app gets them from here, as the API server would apply them, and
 * one synthesized from a resource that was admitted already (read from the cluster, or validated by the
 * offline renderer) only gets the defaults, which cost nothing when they are there.
 */
import type { Construct } from 'constructs';
import { withDefaults } from './defaults';
import { SpecError } from './resource';
import type { JSONSchemaProps } from './schema';
import { validateSpec } from './validate';

/** The construct context key `synthesize({ admitted: true })` sets on a resource's chart. */
export const ADMITTED_CONTEXT = 'cdk8s-reconstruct:admitted';

/**
 * `spec` as the API server would admit it by `schema` (a kind's `schema.spec`): its defaults filled in,
 * and checked (unknown fields, types, enums, bounds, patterns, list types, CEL rules), throwing a
 * SpecError naming the field when it would be refused (every problem in the message, the first one's
 * field in `field`). Under a chart synthesized with `admitted: true` the spec was checked before, so only
 * the defaults are filled in. `Stored` is the type with the defaulted fields present
 * (`<Kind>SpecWithDefaults` in a kind's generated types); treat the result as read-only.
 */
export function admitSpec<Spec, Stored = Spec>(
  scope: Construct,
  schema: JSONSchemaProps,
  spec: Spec,
): Stored {
  if (scope.node.tryGetContext(ADMITTED_CONTEXT) === true) return withDefaults<Spec, Stored>(schema, spec);
  const { spec: admitted, errors } = validateSpec(schema, spec);
  if (errors.length > 0) {
    const [first, ...rest] = errors;
    // kubectl prints the object's own field path ('') as <nil>.
    const detail = [first.message, ...rest.map((e) => `${e.field || '<nil>'}: ${e.message}`)].join('; ');
    throw new SpecError(first.field, detail);
  }
  return admitted as Stored;
}
