/**
 * The CRD schema of a kind: what `defineKind` takes for the kind's own version and each of its other
 * versions (./versions), apart from both so that neither imports the other for it.
 */
import type { JSONSchemaProps, PrinterColumn, ValidationRule } from './schema';

/** The CRD schema of a kind, from which its CRD YAML and its spec and status types are generated. */
export interface KindSchema {
  /** What a resource of this kind is, for `kubectl explain`. */
  readonly description: string;
  /** The schema of `spec`: an object. Defaults live here, once; the construct reads them. */
  readonly spec: JSONSchemaProps;
  /** The kind's own status fields; `observedGeneration` and `conditions` are added. */
  readonly status?: Record<string, JSONSchemaProps>;
  /** CEL rules on the whole object, for checks that span metadata and spec. */
  readonly rules?: ValidationRule[];
  /** Printer columns; `Ready` and `Age` are added at the end unless given. */
  readonly columns?: PrinterColumn[];
  /**
   * The scale subresource, for `kubectl scale` and a HorizontalPodAutoscaler: where the spec says the
   * replicas wanted, and where the status says those there are and the label selector of their pods
   * (the kind's `status` writes both).
   * @default - none
   */
  readonly scale?: ScaleSubresource;
}

/** A CRD's scale subresource: JSON paths into the resource. */
export interface ScaleSubresource {
  /** e.g. `.spec.replicas` */
  readonly specReplicasPath: string;
  /** e.g. `.status.replicas` */
  readonly statusReplicasPath: string;
  /** e.g. `.status.selector`: a label selector in its string form (`app=web,tier=proxy`). */
  readonly labelSelectorPath?: string;
}
