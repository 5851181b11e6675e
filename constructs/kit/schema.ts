/**
 * The subset of apiextensions.k8s.io/v1 types that kind definitions use, plus small builders for the
 * schema fragments every kind repeats. Kept free of any client library so that constructs and the
 * offline renderer never load one.
 */
import { LABEL_KEY, LABEL_VALUE, MAX_LABEL_LENGTH, MAX_SUBDOMAIN_LENGTH } from './names';

export interface ValidationRule {
  rule: string;
  message?: string;
  /** A CEL expression giving the message, e.g. `'unsupported downgrade from ' + oldSelf + ' to ' + self`. */
  messageExpression?: string;
  /** Evaluates a transition rule on create too, with `oldSelf` an empty optional. */
  optionalOldSelf?: boolean;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: (string | number)[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  pattern?: string;
  nullable?: boolean;
  /** Only as `x-kubernetes-int-or-string` spells it: `[{ type: 'integer' }, { type: 'string' }]`. */
  anyOf?: JSONSchemaProps[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: CustomResourceDefinitionVersion[];
    /** How the API server converts between versions; absent with one version (`None`). */
    conversion?: {
      strategy: 'None' | 'Webhook';
      webhook?: {
        conversionReviewVersions: string[];
        clientConfig?: {
          service?: { namespace: string; name: string; path?: string; port?: number };
          url?: string;
          caBundle?: string;
        };
      };
    };
  };
}

/** One version of a CRD. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: PrinterColumn[];
}

/** A container image reference: no whitespace (the API server refuses an image with any in a pod). */
export const CONTAINER_IMAGE = '^\\S+$';

/** CEL: every key of a map is a qualified name, as label and annotation keys must be. */
const QUALIFIED_KEYS: ValidationRule = {
  rule: `self.all(k, k.size() <= ${MAX_SUBDOMAIN_LENGTH} && k.matches('${LABEL_KEY.replace(/\\/g, '\\\\')}'))`,
  message: 'keys must be qualified names (an optional DNS subdomain prefix and "/", then a name)',
};

/** A map of label keys to label values, as Kubernetes validates them (keys are checked by CEL). */
export function labelMap(description: string, extraRules: ValidationRule[] = []): JSONSchemaProps {
  return {
    type: 'object',
    description,
    maxProperties: 64,
    additionalProperties: { type: 'string', maxLength: MAX_LABEL_LENGTH, pattern: LABEL_VALUE },
    'x-kubernetes-validations': [QUALIFIED_KEYS, ...extraRules],
  };
}

/** A map of annotations: qualified-name keys (checked by CEL), any string values. */
export function annotationMap(description: string): JSONSchemaProps {
  return {
    type: 'object',
    description,
    maxProperties: 64,
    additionalProperties: { type: 'string' },
    'x-kubernetes-validations': [QUALIFIED_KEYS],
  };
}

/** metav1.Condition, as in the Kubernetes API conventions. */
export const conditionsSchema: JSONSchemaProps = {
  type: 'array',
  description: 'The latest observations of the resource, at least a Ready condition.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    properties: {
      type: { type: 'string', maxLength: 316 },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      reason: { type: 'string', maxLength: 1024, minLength: 1 },
      message: { type: 'string', maxLength: 32768 },
    },
  },
};

/** The status fields every kind shares. */
export const commonStatus: Record<string, JSONSchemaProps> = {
  observedGeneration: {
    type: 'integer',
    format: 'int64',
    description: 'The metadata.generation that the status describes.',
  },
  conditions: conditionsSchema,
  lastHandledReconcileAt: {
    type: 'string',
    description:
      'The last value of the reconstruct.dev/requested-at annotation the controller has reconciled (reconcile now).',
  },
  lastAppliedRevision: {
    type: 'string',
    description:
      "The revision of the kind's definition the children were last applied with, for a kind that declares one.",
  },
};

/**
 * `status.createdChildren`, in the CRD of a kind with write-only children: the children of write-only kinds
 * the controller created for the resource, by uid. It cannot read them back, so this is how it tells its
 * own from another's of the same name after a restart, and what it deletes (that uid only) when the
 * resource no longer wants one.
 */
export const createdChildrenSchema: JSONSchemaProps = {
  type: 'array',
  description:
    'Children of write-only kinds (the controller creates them but may not read them) it created, by uid.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['kind', 'name'],
  items: {
    type: 'object',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      name: { type: 'string' },
      uid: { type: 'string' },
    },
  },
};

export const readyColumn: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};
/** `True` while the resource (or its kind) is suspended (`reconstruct suspend`), empty otherwise. */
export const suspendedColumn: PrinterColumn = {
  name: 'Suspended',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Suspended")].status',
};
/** The revision of the kind the children run, for a kind that declares one (`revision`). */
export const revisionColumn: PrinterColumn = {
  name: 'Revision',
  type: 'string',
  jsonPath: '.status.lastAppliedRevision',
};
export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};

/**
 * A field that takes an integer or a string (a port number or name, a quantity): the form the API server
 * and `cdk8s import` both understand, so imported types say `number | string`.
 */
export function intOrString(description?: string): JSONSchemaProps {
  return {
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    ...(description ? { description } : {}),
  };
}
