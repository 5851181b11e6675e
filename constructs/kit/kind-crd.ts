/**
 * The CustomResourceDefinition of a kind: its names, its versions (each with the status subresource, its
 * schema with the status fields every kind has, its printer columns, and the CEL rule that bounds
 * `metadata.name`), and, with several versions, the conversion webhook.
 */
import { isWriteOnly } from './api-kind';
import { KIND_CATEGORY, type KindOptions } from './kind';
import type { KindSchema } from './kind-schema';
import { MAX_NAME_LENGTH } from './resource';
import {
  ageColumn,
  commonStatus,
  createdChildrenSchema,
  readyColumn,
  revisionColumn,
  suspendedColumn,
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
  type PrinterColumn,
  type ValidationRule,
} from './schema';
import { versionInfos, type VersionInfo } from './versions';

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

/**
 * The CEL rule that bounds `metadata.name`, with a message that says why. Its `fieldPath` makes the API
 * server (and the offline check) report it on `metadata.name`, as every other problem names its field;
 * the API server accepts that path only where the schema declares `metadata.name` (see versionOf).
 */
function nameLengthRule(max: number): ValidationRule {
  return {
    rule: `self.metadata.name.size() <= ${max}`,
    fieldPath: '.metadata.name',
    message:
      max === MAX_NAME_LENGTH
        ? `must be at most ${max} characters: it is a label value on every child`
        : `must be at most ${max} characters: the names of its children are made from it`,
  };
}

/**
 * Where the API server sends conversions by default: the Service `reconstruct install` makes in front of the
 * controller's conversion webhook, in the install's default namespace. The install names its own namespace;
 * the controller writes the caBundle (and, run outside the cluster, its own URL).
 */
export const DEFAULT_CONVERSION_SERVICE = {
  namespace: 'reconstruct-system',
  name: 'reconstruct-controller-webhook',
  path: '/convert',
  port: 443,
};

/** One version's entry: its schema with the kit's status fields, its columns, the name-length rule. */
function versionOf(
  o: KindOptions<unknown, object>,
  info: VersionInfo,
  schema: Omit<KindSchema, 'description'> & { description?: string },
): CustomResourceDefinitionVersion {
  return {
    name: info.name,
    served: info.served,
    storage: info.storage,
    ...(info.deprecated ? { deprecated: true } : {}),
    ...(info.deprecationWarning ? { deprecationWarning: info.deprecationWarning } : {}),
    subresources: { status: {}, ...(schema.scale ? { scale: { ...schema.scale } } : {}) },
    additionalPrinterColumns: columnsOf(schema.columns, o.revision !== undefined),
    schema: {
      openAPIV3Schema: {
        type: 'object',
        description: schema.description ?? o.schema.description,
        required: ['spec'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          // Only name (and generateName) may be declared at the root: the API server prunes nothing of it.
          metadata: { type: 'object', properties: { name: { type: 'string' } } },
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
  };
}

/** The CRD of a checked definition in `group`, its own version `version` (the hub). */
export function crdOf(
  o: KindOptions<unknown, object>,
  group: string,
  version: string,
): CustomResourceDefinition {
  const infos = versionInfos(version, o.versions, o.storageVersion);
  const schemaOf = (name: string) =>
    name === version ? o.schema : o.versions!.find((v) => v.name === name)!.schema;
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
      versions: infos.map((info) => versionOf(o, info, schemaOf(info.name))),
      ...(infos.length > 1
        ? {
            conversion: {
              strategy: 'Webhook' as const,
              webhook: {
                conversionReviewVersions: ['v1'],
                clientConfig: { service: { ...DEFAULT_CONVERSION_SERVICE } },
              },
            },
          }
        : {}),
    },
  };
}
