/**
 * What every kind shares: the shape of a custom resource, the labels that mark a child as ours, and the
 * error a construct throws for a spec it cannot synthesize.
 */
import { hash } from 'node:crypto';
import { MAX_LABEL_LENGTH, isDns1035Label, isDns1123Label } from './names';

/** The project's name: the value of app.kubernetes.io/managed-by on every child. */
export const MANAGER = 'reconstruct';

export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
/** ApplySet membership (KEP-3659): the one label pruning selects on. */
export const LABEL_PART_OF = 'applyset.kubernetes.io/part-of';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  deletionTimestamp?: string;
  finalizers?: string[];
  [key: string]: unknown;
}

/** An object's owner, as `metadata.ownerReferences` holds it. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** A custom resource as read from a file or from the API server. */
export interface CustomResource<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
  [key: string]: unknown;
}

/** A Kubernetes object as synthesized: plain JSON, ready to apply or to print. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/**
 * A spec that passed the schema but cannot be synthesized. `field` is the path in the resource, as in
 * `spec.backends[1].selector`, so the message points at what to fix.
 */
export class SpecError extends Error {
  constructor(
    readonly field: string,
    /** The message without the field. */
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'SpecError';
  }
}

/**
 * The ApplySet id of a parent, as KEP-3659 defines it: `applyset-<base64url(sha256(name.namespace.kind.group))>-v1`.
 * It fits a label value and is the same offline and in-cluster, so rendered output needs no cluster.
 */
export function applySetId(resource: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>): string {
  const group = resource.apiVersion.includes('/') ? resource.apiVersion.split('/')[0] : '';
  const key = [resource.metadata.name, resource.metadata.namespace ?? '', resource.kind, group].join('.');
  // The one-shot hash: half of createHash's time for a key this short (it runs for every child).
  return `applyset-${hash('sha256', key, 'base64url')}-v1`;
}

/** The labels every child of `resource` carries, so the operator can find what it made. */
export function childLabels(
  resource: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>,
): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGER,
    [LABEL_INSTANCE]: resource.metadata.name,
    [LABEL_PART_OF]: applySetId(resource),
  };
}

/** Fails unless `name` is a DNS-1123 label, which Deployment and ConfigMap-derived names must be. */
export function checkDnsLabel(name: string, field: string, what: string): void {
  if (!isDns1123Label(name)) {
    throw new SpecError(
      field,
      `${what} "${name}" must be a DNS-1123 label of at most ${MAX_LABEL_LENGTH} characters`,
    );
  }
}

/** Fails unless `name` is a DNS-1035 label (it starts with a letter), which Service names must be. */
export function checkServiceName(name: string, field: string, what: string): void {
  if (!isDns1035Label(name)) {
    throw new SpecError(
      field,
      `${what} "${name}" must be a DNS-1035 label: at most ${MAX_LABEL_LENGTH} characters, starting with a letter`,
    );
  }
}

/** The longest resource name: it is the value of app.kubernetes.io/instance on every child. */
export const MAX_NAME_LENGTH = MAX_LABEL_LENGTH;

/** What a kind's construct is given: the resource's name and its spec. */
export interface ResourceProps<Spec> {
  /** metadata.name of the custom resource; children are named after it. */
  readonly name: string;
  /**
   * The custom resource's spec. Fields the schema defaults may be absent (a cdk8s app passes what it
   * wrote): the construct reads it with `admitSpec`, which fills them in from the schema and checks it.
   */
  readonly spec: Spec;
}

/**
 * What the construct of a kind with inputs (KindOptions.inputs) gets: each input's value once known, a
 * placeholder until then, which the kit finds in the children that hold it (they wait). `isKnown` tells
 * which, for a construct that computes with one (a hash) rather than placing it in a field.
 */
export interface ResourcePropsWithInputs<Spec, In> extends ResourceProps<Spec> {
  readonly inputs: In;
}
