/**
 * Widget: a CRD of one of everything an update checks (transition rules on scalars, objects, map values,
 * list-map items and lists, an optional oldSelf, messageExpressions, an enum, a set), and what updating one
 * answers.
 */
import type { CustomResourceDefinition, JSONSchemaProps } from '../../../constructs';
import { validateResource } from '../../../constructs/kit/validate';
import type { FieldError } from '../../../constructs/kit/validate';
import { resource, type Obj } from './validate-fixtures';

const str = (extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'string', maxLength: 63, ...extra });
/** `a` >= `b` for `major.minor.patch` strings, as the MySQL Cluster kind compares versions. */
const atLeast = (a: string, b: string): string => {
  const part = (v: string, i: number) => `int(${v}.split('.')[${i}])`;
  return (
    `${part(a, 0)} > ${part(b, 0)} || (${part(a, 0)} == ${part(b, 0)} && ` +
    `(${part(a, 1)} > ${part(b, 1)} || (${part(a, 1)} == ${part(b, 1)} && ${part(a, 2)} >= ${part(b, 2)})))`
  );
};
const spec: JSONSchemaProps = {
  type: 'object',
  properties: {
    version: {
      type: 'string',
      maxLength: 20,
      pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$',
      default: '8.0.12',
      'x-kubernetes-validations': [
        { rule: atLeast('self', "'8.0.11'"), message: 'minimum supported MySQL version is 8.0.11' },
        {
          rule: atLeast('self', 'oldSelf'),
          message: 'unsupported downgrade',
          messageExpression: "'unsupported downgrade from ' + oldSelf + ' to ' + self",
        },
      ],
    },
    database: {
      type: 'object',
      properties: {
        engine: {
          type: 'object',
          properties: {
            name: str({
              'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'engine name is immutable' }],
            }),
          },
        },
      },
    },
    limits: {
      type: 'object',
      maxProperties: 8,
      additionalProperties: {
        type: 'integer',
        'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'limits may not be lowered' }],
      },
    },
    members: {
      type: 'array',
      maxItems: 8,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: str(), role: str() },
        'x-kubernetes-validations': [
          {
            rule: 'self.role == oldSelf.role',
            messageExpression:
              "'role of ' + self.name + ' changed from ' + oldSelf.role + ' to ' + self.role",
          },
        ],
      },
    },
    ports: {
      type: 'array',
      maxItems: 8,
      items: { type: 'integer' },
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'ports are immutable' }],
    },
    tier: str({
      'x-kubernetes-validations': [
        {
          rule: '!oldSelf.hasValue() || oldSelf.value() == self',
          optionalOldSelf: true,
          message: 'tier is immutable',
        },
      ],
    }),
    label: str({
      'x-kubernetes-validations': [
        { rule: "self.startsWith('w-')", messageExpression: "'label ' + self + ' must start with w-'" },
      ],
    }),
    color: { type: 'string', enum: ['red', 'blue'] },
    tags: {
      type: 'array',
      maxItems: 8,
      'x-kubernetes-list-type': 'set',
      items: str({ 'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'bad tag' }] }),
    },
    blank: str({
      'x-kubernetes-validations': [
        { rule: "self != 'x'", message: 'blank must not be x', messageExpression: "' '" },
      ],
    }),
    multiline: str({
      'x-kubernetes-validations': [
        { rule: "self != 'x'", message: 'multiline must not be x', messageExpression: "'one\\ntwo'" },
      ],
    }),
    detail: {
      type: 'object',
      properties: { mode: str(), note: str() },
      'x-kubernetes-validations': [{ rule: "self.mode != 'x'", messageExpression: "'mode x: ' + self.note" }],
    },
  },
};
export const widgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.reconstruct.dev' },
  spec: {
    group: 'test.reconstruct.dev',
    scope: 'Namespaced',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec, status: { type: 'object', properties: { phase: str() } } },
          },
        },
      },
    ],
  },
};
export const widget = (s: unknown, extra: Obj = {}): Obj => ({ ...resource(widgetCrd, s), ...extra });
/** The errors of updating a Widget whose stored spec is `before` to one with spec `after`. */
export const update = (before: unknown, after: unknown, crd = widgetCrd): FieldError[] =>
  validateResource(crd, resource(crd, after), { old: resource(crd, before) }).errors;
