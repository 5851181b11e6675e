/**
 * Pod selectors that stay within their resource. Every resource of a kind is synthesized by the same
 * construct code, so a selector whose values do not depend on the resource (`app: web`) matches the pods
 * of every resource of the kind in the namespace: each Service then sends traffic to all of them, each
 * PodDisruptionBudget counts them all. Nothing fails (the API server, a snapshot and Ready all stay
 * green), so `synthesize` refuses such a child, offline and in the controller alike.
 *
 * A selector is tied to its resource when one of its terms has a value that is the resource's own: the
 * cdk8s-plus address label (`cdk8s.io/metadata.addr`, whose value `synthesize` derives from the resource's
 * name, see resourceChart), or a value holding the resource's name as a whole word (`memcached_cr: docs`,
 * `app: docs-web`). Selectors that match none of the resource's own pods select someone else's (a
 * Balancer's backends) and are left alone, as are selectors in a namespace the resource itself creates.
 */
import { ChildError } from './child-kinds';
import type { CustomResource, Manifest } from './resource';

/** The label cdk8s-plus puts on every pod it makes and selects by (kplus.Pod.ADDRESS_LABEL). */
export const ADDRESS_LABEL = 'cdk8s.io/metadata.addr';

export type Labels = Readonly<Record<string, string>>;

interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** A LabelSelector (matchLabels and matchExpressions), or a Service's plain map as matchLabels. */
export interface LabelSelector {
  readonly matchLabels?: Labels;
  readonly matchExpressions?: readonly Requirement[];
}

interface PodTemplate {
  readonly namespace: string | undefined;
  readonly labels: Labels;
}

export interface FoundSelector {
  readonly child: Manifest;
  /** The field, as a message names it (`spec.selector`). */
  readonly field: string;
  readonly selector: LabelSelector;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function at(value: unknown, ...path: string[]): unknown {
  let node = value;
  for (const key of path) node = isObject(node) ? node[key] : undefined;
  return node;
}

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);

/** The labels of the pods a child makes, if it makes any. */
export function podLabelsOf(child: Manifest): Labels | undefined {
  let labels: unknown;
  if (WORKLOADS.has(child.kind)) labels = at(child, 'spec', 'template', 'metadata', 'labels');
  else if (child.kind === 'CronJob') {
    labels = at(child, 'spec', 'jobTemplate', 'spec', 'template', 'metadata', 'labels');
  } else if (child.kind === 'Pod' && child.apiVersion === 'v1') labels = child.metadata.labels;
  return isObject(labels) ? (labels as Labels) : undefined;
}

/** The pod selectors of a child: which pods it serves, manages, protects or governs. */
export function selectorsOf(child: Manifest): FoundSelector[] {
  const found = (field: string, value: unknown): FoundSelector[] =>
    isObject(value) ? [{ child, field, selector: value }] : [];
  switch (child.kind) {
    case 'Service':
      return child.apiVersion === 'v1'
        ? found(
            'spec.selector',
            isObject(at(child, 'spec', 'selector'))
              ? { matchLabels: at(child, 'spec', 'selector') }
              : undefined,
          )
        : [];
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'PodDisruptionBudget':
      return found('spec.selector', at(child, 'spec', 'selector'));
    case 'Job':
      // The Job controller makes its own selector (the Job's uid) unless told otherwise.
      return at(child, 'spec', 'manualSelector') === true
        ? found('spec.selector', at(child, 'spec', 'selector'))
        : [];
    case 'NetworkPolicy':
      return found('spec.podSelector', at(child, 'spec', 'podSelector'));
    default:
      return [];
  }
}

const termsOf = (s: LabelSelector): number =>
  Object.keys(s.matchLabels ?? {}).length + (s.matchExpressions ?? []).length;

/** Whether `selector` selects pods labelled `labels`, as the API server's label selectors do. */
export function selectorMatches(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    const ok =
      operator === 'In'
        ? has && values.includes(labels[key])
        : operator === 'NotIn'
          ? !has || !values.includes(labels[key])
          : operator === 'Exists'
            ? has
            : operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

const SEPARATORS = '-_.';

/** Whether `value` holds `name` as a whole word: all of it, or between separators (`-`, `_`, `.`). */
function holdsName(value: string, name: string): boolean {
  for (let at = value.indexOf(name); at >= 0; at = value.indexOf(name, at + 1)) {
    const end = at + name.length;
    if (
      (at === 0 || SEPARATORS.includes(value[at - 1])) &&
      (end === value.length || SEPARATORS.includes(value[end]))
    )
      return true;
  }
  return false;
}

/**
 * Whether some term of `selector` only matches values that belong to the resource named `name`: the
 * address label's (unless `byAddress` is false: ./address-label asks whether a selector needs it), or a
 * value holding the name.
 */
export function isTiedTo(selector: LabelSelector, name: string, byAddress = true): boolean {
  const owned = (key: string, value: string) => (key === ADDRESS_LABEL ? byAddress : holdsName(value, name));
  if (Object.entries(selector.matchLabels ?? {}).some(([key, value]) => owned(key, value))) return true;
  return (selector.matchExpressions ?? []).some(
    (r) => r.operator === 'In' && (r.values ?? []).length > 0 && r.values!.every((v) => owned(r.key, v)),
  );
}

const usesAddress = (s: LabelSelector) =>
  Object.hasOwn(s.matchLabels ?? {}, ADDRESS_LABEL) ||
  (s.matchExpressions ?? []).some((r) => r.key === ADDRESS_LABEL);

/** How a selector reads in a message: `{app: web, tier in (a, b)}`. */
function shown(s: LabelSelector): string {
  const terms = [
    ...Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}: ${v}`),
    ...(s.matchExpressions ?? []).map(
      (r) => `${r.key} ${r.operator}${r.values ? ` (${r.values.join(', ')})` : ''}`,
    ),
  ];
  return `{${terms.join(', ')}}`;
}

/**
 * Throws ChildError naming the child and its selector field when a child's pod selector would take in
 * pods of another resource of the same kind, or selects by the cdk8s-plus address label that none of
 * the resource's pods carries (`withoutAddressLabel` took it off). See the module comment.
 */
export function checkSelectors(
  resource: Pick<CustomResource, 'kind' | 'metadata'>,
  children: readonly Manifest[],
): void {
  const name = resource.metadata.name;
  const templates: PodTemplate[] = [];
  const ownNamespaces = new Set<string>();
  for (const child of children) {
    const labels = podLabelsOf(child);
    if (labels) templates.push({ namespace: child.metadata.namespace, labels });
    if (child.kind === 'Namespace' && child.apiVersion === 'v1') ownNamespaces.add(child.metadata.name);
  }
  for (const { child, field, selector } of children.flatMap(selectorsOf)) {
    const where = `${child.kind} ${child.metadata.name}`;
    const namespace = child.metadata.namespace;
    const own = templates.filter((t) => t.namespace === namespace && selectorMatches(selector, t.labels));
    if (own.length === 0) {
      if (usesAddress(selector)) {
        throw new ChildError(
          where,
          field,
          `selects pods by ${ADDRESS_LABEL}, which none of this ${resource.kind}'s pods carries ` +
            '(withoutAddressLabel removes it): select by labels the pods carry',
        );
      }
      continue; // someone else's pods
    }
    if (namespace !== undefined && ownNamespaces.has(namespace)) continue;
    if (termsOf(selector) > 0 && isTiedTo(selector, name)) continue;
    throw new ChildError(
      where,
      field,
      `${shown(selector)} would also select the pods of every other ${resource.kind} in the namespace: ` +
        `select by the workload (cdk8s-plus's \`selector: deployment\`) or add a label whose value is the ` +
        `resource's name (${JSON.stringify(name)}) to the pods and the selector`,
    );
  }
}
