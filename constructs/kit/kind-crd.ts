/**
 * The CustomResourceDefinition of a kind: its names, its one version with the status subresource, the
 * schema with the status fields every kind has, the printer columns, and the CEL rule that bounds
 * `metadata.name`.
 */
import { isWriteOnly } from './api-kind';
import { KIND_CATEGORY, type KindOptions } from './kind';
import { MAX_NAME_LENGTH } from './resource';
import {
  ageColumn,
  commonStatus,
  createdChildrenSchema,
  readyColumn,
  revisionColumn,
  suspendedColumn,
  type CustomResourceDefinition,
  type PrinterColumn,
  type ValidationRule,
} from './schema';

function columnsOf(columns: PrinterColumn[] = [], revision: boolean): PrinterColumn[] {
  const has = (name: string) => columns.some((c) => c.name === name);
  return [
    ...columns,
    ...(has('Ready') ? [] : [readyColumn]),
    ...(revision && !has('Revision') ? [revisionColumn] : []),
    ...(has('Suspended') ? [] : [suspendedColumn]),
    ...(has('Age') ? [] : [ageColumn]),
  ];
}

/** The CEL rule that bounds `metadata.name`, with a message that names the field and says why. */
function nameLengthRule(max: number): ValidationRule {
  return {
    rule: `self.metadata.name.size() <= ${max}`,
    message:
      max === MAX_NAME_LENGTH
        ? `metadata.name must be at most ${max} characters: it is a label value on every child`
        : `metadata.name must be at most ${max} characters: the names of its children are made from it`,
  };
}

/** The CRD of a checked definition in `group` and `version`. */
export function crdOf(
  o: KindOptions<unknown, object>,
  group: string,
  version: string,
): CustomResourceDefinition {
  const { schema } = o;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${o.plural}.${group}`,
      // Lets the custom resource be an ApplySet parent (KEP-3659): its children are labelled with it.
      labels: { 'applyset.kubernetes.io/is-parent-type': 'true' },
    },
    spec: {
      group,
      scope: o.scope ?? 'Namespaced',
      names: {
        kind: o.kind,
        listKind: `${o.kind}List`,
        plural: o.plural,
        singular: o.singular ?? o.kind.toLowerCase(),
        ...(o.shortNames?.length ? { shortNames: o.shortNames } : {}),
        categories: [KIND_CATEGORY, ...(o.categories ?? []).filter((c) => c !== KIND_CATEGORY)],
      },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: columnsOf(schema.columns, o.revision !== undefined),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: schema.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: schema.spec,
                status: {
                  type: 'object',
                  properties: {
                    ...commonStatus,
                    ...(o.children.some(isWriteOnly) ? { createdChildren: createdChildrenSchema } : {}),
                    ...(schema.status ?? {}),
                  },
                },
              },
              'x-kubernetes-validations': [
                nameLengthRule(o.maxNameLength ?? MAX_NAME_LENGTH),
                ...(schema.rules ?? []),
              ],
            },
          },
        },
      ],
    },
  };
}
