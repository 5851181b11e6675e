/**
 * cdk8s-plus's address label (`cdk8s.io/metadata.addr`) kept where it was, so that an operator upgrade
 * rolls no pods. cdk8s-plus puts it on every pod template it makes, with a value derived from the
 * construct's path. Up to 0.2.0 `synthesize` named every resource's chart `resource`, so the value was
 * the same for every resource of a kind (`cachecluster-statefulset-c847860b`); since the chart is named
 * after the resource (see resourceChart) it differs between resources
 * (`sessions-cachecluster-statefulset-c8638afd`), which keeps a selector by that label inside its
 * resource. But a changed pod-template label is a new template: every StatefulSet and Deployment that
 * kept the label would roll once on the upgrade, and a Job with the replace policy would run again.
 *
 * So the resource's name goes into the value only where a selector needs it: a Service, workload,
 * NetworkPolicy or budget that selects the pods by the address label and by no other label of the
 * resource's own (cdk8s-plus's `selector: deployment`, `exposeViaService()` of a workload left to select
 * by the label). Everywhere else the label keeps the value 0.2.0 gave it, the same for every resource of
 * the kind: nothing tells the resources apart by it. A value found anywhere but in pod labels and those
 * selectors (an affinity term, a topology spread) counts as needed too.
 */
import { App, Names, type Chart } from 'cdk8s';
import { Construct, type IConstruct } from 'constructs';
import type { Manifest } from './resource';
import {
  ADDRESS_LABEL,
  isTiedTo,
  podLabelsOf,
  selectorsOf,
  type LabelSelector,
  type Labels,
} from './selectors';

/** The id 0.2.0 gave every resource's chart: the address label's value was derived under it. */
const RELEASED_CHART_ID = 'resource';

/** The value 0.2.0 gave, by the construct's path below its chart: the same for every resource. */
const released = new Map<string, string>();

/**
 * Gives the address label on `children` the value 0.2.0 gave it wherever no selector needs the
 * resource's name in it (see the module comment). Changes `children` in place, with `chart` the chart
 * they were synthesized from.
 */
export function keepAddressLabels(chart: Chart, name: string, children: Manifest[]): void {
  const pods = children.flatMap((child) => {
    const labels = podLabelsOf(child);
    return labels && Object.hasOwn(labels, ADDRESS_LABEL) ? [labels] : [];
  });
  if (pods.length === 0) return;
  const values = new Set(pods.map((labels) => labels[ADDRESS_LABEL]));
  const selectors = children.flatMap(selectorsOf).map((s) => s.selector);
  const needed = neededValues(values, selectors, name);
  const known = new Set<object>(pods);
  for (const s of selectors) [s, s.matchLabels, s.matchExpressions].forEach((o) => o && known.add(o));
  for (const child of children) findElsewhere(child, values, known, needed);
  const kept = new Set([...values].filter((v) => !needed.has(v)));
  if (kept.size === 0) return;
  const replaced = new Map<string, string>();
  for (const construct of chart.node.findAll()) {
    if (construct === chart) continue;
    const value = Names.toLabelValue(construct);
    if (kept.has(value)) replaced.set(value, releasedValue(construct));
    if (replaced.size === kept.size) break;
  }
  // The labels are the children's own (fresh JSON), typed read-only where they are read.
  for (const labels of pods) replaceValue(labels, replaced);
  for (const selector of selectors) {
    if (selector.matchLabels) replaceValue(selector.matchLabels, replaced);
    for (const r of selector.matchExpressions ?? []) {
      if (r.key === ADDRESS_LABEL && r.values)
        Object.assign(
          r.values,
          r.values.map((v) => replaced.get(v) ?? v),
        );
    }
  }
}

/** The values some selector needs to stay within the resource: it has no other term of the resource's. */
function neededValues(values: Set<string>, selectors: LabelSelector[], name: string): Set<string> {
  const needed = new Set<string>();
  for (const selector of selectors) {
    const address = [
      selector.matchLabels?.[ADDRESS_LABEL],
      ...(selector.matchExpressions ?? [])
        .filter((r) => r.key === ADDRESS_LABEL)
        .flatMap((r) => r.values ?? []),
    ].filter((v): v is string => v !== undefined && values.has(v));
    if (address.length > 0 && !isTiedTo(selector, name, false)) address.forEach((v) => needed.add(v));
  }
  return needed;
}

/** Adds to `needed` every value of `values` that `node` holds outside the objects in `known`. */
function findElsewhere(node: unknown, values: Set<string>, known: Set<object>, needed: Set<string>): void {
  if (typeof node === 'string') {
    if (values.has(node)) needed.add(node);
  } else if (typeof node === 'object' && node !== null && !known.has(node)) {
    for (const value of Object.values(node)) findElsewhere(value, values, known, needed);
  }
}

function replaceValue(labels: Labels, replaced: Map<string, string>): void {
  const value = labels[ADDRESS_LABEL];
  if (value !== undefined && replaced.has(value))
    Object.assign(labels, { [ADDRESS_LABEL]: replaced.get(value) });
}

/** The address label cdk8s-plus gave `construct` when its chart was named `resource` (0.2.0). */
function releasedValue(construct: IConstruct): string {
  const ids = construct.node.scopes.slice(2).map((scope) => scope.node.id); // below the App and chart
  const key = ids.join('/');
  let value = released.get(key);
  if (value === undefined) {
    let scope = new Construct(new App(), RELEASED_CHART_ID);
    for (const id of ids) scope = new Construct(scope, id);
    value = Names.toLabelValue(scope);
    released.set(key, value);
  }
  return value;
}
