import { ApiObject, App, Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { keepAddressLabels } from './address-label';
import { ADMITTED_CONTEXT } from './admit';
import { checkChildKinds } from './child-kinds';
import { checkChildNames } from './child-names';
import { OWNER_UID_ANNOTATION, RETAIN_ANNOTATION } from './child-annotations';
import { checkPolicies } from './policy-of';
import type { Kind } from './kind';
import type { InputValue } from './inputs/declare';
import { pendingChildren } from './inputs/pending';
import { CustomResource, MAX_NAME_LENGTH, Manifest, SpecError, childLabels } from './resource';
import { checkSelectors } from './selectors';
import { handReplicasToAutoscalers } from './workload';

export interface SynthesizeOptions {
  /**
   * The custom resource's identity in a cluster. With it every child gets a controller ownerReference to
   * the resource; `synthesize` gives a retained one (see childPolicy) the uid as an annotation instead, so
   * that the garbage collector spares it. Without it (offline rendering) none.
   * @default - no ownerReferences
   */
  readonly owner?: { readonly uid: string };
  /**
   * The resource was admitted already: read from the API server, or checked by `validateResource` (the
   * offline renderer does). Its constructs then fill in the schema's defaults without checking the spec
   * again (see admitSpec), which is most of the cost of a small kind.
   * @default false - each construct checks its spec against the kind's schema, as in a cdk8s app
   */
  readonly admitted?: boolean;
  /**
   * The values of the kind's inputs known so far (KindOptions.inputs), by name. The construct gets a
   * placeholder for each other one, and the children that hold one are returned with it: `pendingChildren`
   * says which, and what they wait for.
   * @default - none known
   */
  readonly inputs?: Readonly<Record<string, InputValue>>;
}

/**
 * Adds a chart holding the children of `resource` to `scope`: the kind's construct, the labels that mark
 * every child as ours, the resource's namespace, and ownerReferences when an owner is given.
 * Throws SpecError naming the field for a resource it cannot synthesize.
 */
export function resourceChart<Spec>(
  scope: Construct,
  id: string,
  kind: Kind<Spec>,
  resource: CustomResource<Spec>,
  options: SynthesizeOptions = {},
): Chart {
  if (resource.apiVersion !== kind.apiVersion || resource.kind !== kind.kind) {
    throw new SpecError(
      'kind',
      `${resource.apiVersion} ${resource.kind} is not ${kind.apiVersion} ${kind.kind}`,
    );
  }
  if (!resource.metadata?.name) throw new SpecError('metadata.name', 'Required value');
  if (resource.metadata.name.length > kind.maxNameLength) {
    throw new SpecError(
      'metadata.name',
      kind.maxNameLength === MAX_NAME_LENGTH
        ? `must be at most ${MAX_NAME_LENGTH} characters: it is a label value on every child`
        : `must be at most ${kind.maxNameLength} characters: the names of its children are made from it`,
    );
  }

  const chart = new Chart(scope, id, {
    namespace: kind.namespaced ? resource.metadata.namespace : undefined,
    labels: childLabels(resource),
    disableResourceNameHashes: true,
  });
  if (options.admitted) chart.node.setContext(ADMITTED_CONTEXT, true);
  kind.build(chart, resource, options.inputs);
  handReplicasToAutoscalers(chart);

  if (options.owner) {
    const owner = {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: resource.metadata.name,
      uid: options.owner.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    for (const child of chart.node.findAll()) {
      if (ApiObject.isApiObject(child)) child.metadata.addOwnerReference(owner);
    }
  }
  return chart;
}

/**
 * The complete desired set of children of one custom resource: pure, no I/O. A fresh cdk8s App per call,
 * since a shared one re-validates everything on every synthesis and grows without bound. Throws SpecError
 * for a child of a kind the definition's `children` do not list (a ChildError, see checkChildKinds), for a
 * child the API server would refuse for its name or a label value (see checkChildNames), for a pod
 * selector that would take in the pods of another resource of the kind (see checkSelectors), and when the
 * children's policies do not fit together (a child waits for one that is not rendered, or in a cycle), and
 * for children that wait for inputs in a cycle (see pendingChildren). Children that hold an input's
 * placeholder are returned with it.
 *
 * The chart is named after the resource, so that what cdk8s and cdk8s-plus derive from construct paths
 * differs between resources: the `cdk8s.io/metadata.addr` label a Service selects its workload by
 * (`selector: deployment`), and the names of children the construct leaves unnamed (a StatefulSet's
 * headless Service). The name alone, not the namespace: offline output, rendered without one, must be
 * what the controller applies. The address label keeps the value 0.2.0 gave it wherever no selector
 * needs the resource's name in it, so that an upgrade rolls no pods (see address-label.ts).
 */
export function synthesize<Spec>(
  kind: Kind<Spec>,
  resource: CustomResource<Spec>,
  options: SynthesizeOptions = {},
): Manifest[] {
  const chart = resourceChart(new App(), resource.metadata?.name || 'resource', kind, resource, options);
  const children = childrenOf(chart);
  keepAddressLabels(chart, chart.node.id, children);
  checkChildKinds(kind, children);
  checkChildNames(resource, children);
  checkSelectors(resource, children);
  checkPolicies(children, kind.children);
  pendingChildren(kind, resource, children); // throws for inputs that would never come
  if (options.owner) for (const child of children) releaseRetained(child, options.owner.uid);
  return children;
}

/**
 * The chart's objects as JSON. cdk8s validates every construct first and throws one error listing what
 * failed; a construct's own check (a cdk8s-plus HorizontalPodAutoscaler refusing a target with fixed
 * replicas) is a mistake in the kind's code, said with the construct's path.
 */
function childrenOf(chart: Chart): Manifest[] {
  try {
    return chart.toJson() as Manifest[];
  } catch (err) {
    const message = (err as Error).message;
    if (!message.startsWith('Validation failed')) throw err;
    throw new Error(
      `a construct's own check failed: ${message.replace(/^Validation failed with the following errors:\s*/, '').replace(/\s*\n\s*/g, '; ')}`,
    );
  }
}

/**
 * A retained child's ownerReference becomes the owner annotation: the garbage collector deletes what has
 * an ownerReference to a deleted owner. Done on the JSON, where the annotation is one lookup.
 */
function releaseRetained(child: Manifest, uid: string): void {
  const annotations = child.metadata.annotations;
  if (annotations?.[RETAIN_ANNOTATION] !== 'true') return;
  annotations[OWNER_UID_ANNOTATION] = uid;
  const refs = (child.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
  if (refs.length > 0) child.metadata.ownerReferences = refs;
  else delete child.metadata.ownerReferences;
}
