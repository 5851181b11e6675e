/**
 * Typed classes of the custom resources themselves, as `cdk8s import` of the CRD would make them: a cdk8s
 * app emits a resource for the operator to reconcile (`new MemcachedResource(chart, 'cache', { spec })`).
 */
import { ApiObject, type ApiObjectMetadata } from 'cdk8s';
import type { Construct } from 'constructs';
import type { Kind } from './kind';

export interface CustomResourceProps<Spec> {
  /** @default - cdk8s names the object after its construct path */
  readonly metadata?: ApiObjectMetadata;
  readonly spec: Spec;
}

/** A class whose instances are custom resources of one kind. */
export type CustomResourceClass<Spec> = new (
  scope: Construct,
  id: string,
  props: CustomResourceProps<Spec>,
) => ApiObject;

/**
 * The class of `kind`'s custom resources, to extend with a name of its own:
 * `export class WebSiteResource extends customResourceClass(webSite) {}`.
 */
export function customResourceClass<Spec>(kind: Kind<Spec>): CustomResourceClass<Spec> {
  return class extends ApiObject {
    constructor(scope: Construct, id: string, props: CustomResourceProps<Spec>) {
      super(scope, id, {
        apiVersion: kind.apiVersion,
        kind: kind.kind,
        ...(props.metadata ? { metadata: props.metadata } : {}),
        spec: props.spec,
      });
    }
  };
}
