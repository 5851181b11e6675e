/**
 * What a new build of kinds would do to the resources already in a cluster: each live resource rendered
 * by the new build with its live inputs, and each child the controller would then create, update, prune or
 * replace, by server-side dry runs under the controller's field manager (cli/diff/dry-run.ts, the engine
 * `reconstruct diff` uses). Nothing is written: every write is `dryRun=All`, external work only observed.
 */
import type { CustomResource, Kind } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { isNotFound } from '../../controller/kube/errors';
import { Limiter } from '../../controller/external/limiter';
import { planChanges, type Lister, type PlannedChange } from '../diff/dry-run';
import { formatChange } from '../diff/command';
import { readResources } from '../tree/walk';
import { fleetLister } from './lister';
import { schemaRefusal, storedNotServed } from './schema';

/** What the new build would do to one child of a resource. */
export type ChildAction = 'create' | 'update' | 'prune' | 'replace';

export interface ChildPreview {
  readonly action: ChildAction;
  readonly change: PlannedChange;
  /** The change as `kubectl diff` shows it (Secret values masked). */
  readonly diff: string;
}

/** One live resource under the new build. */
export interface ResourcePreview {
  readonly definition: Kind;
  readonly resource: CustomResource;
  /** The children (and the resource itself, when the new build would patch it) that would change. */
  readonly children: readonly ChildPreview[];
  /** The change its external work would make (observed only), as `reconstruct diff` says it. */
  readonly external?: string;
  /** Why the controller would fail it under the new build (its Ready reason and message). */
  readonly failure?: { readonly reason: string; readonly message: string };
  /** Why it could not be previewed (a refused dry run, an external object that cannot be observed). */
  readonly error?: string;
}

export type Outcome = 'unchanged' | 'changed' | 'failed' | 'error';

export const outcomeOf = (r: ResourcePreview): Outcome =>
  r.error ? 'error' : r.failure ? 'failed' : r.children.length > 0 || r.external ? 'changed' : 'unchanged';

/** Which resources: where, and which labels (`-l`). */
export interface FleetSelection {
  /** Undefined: every namespace. */
  readonly namespace?: string;
  readonly labelSelector?: string;
}

export interface FleetOptions {
  /** Resources previewed at once (default 8). */
  readonly concurrency?: number;
  /** The controller's field manager, as it runs (default: reconstruct). */
  readonly fieldManager?: string;
  /** Called as each resource is done: for progress on a terminal. */
  readonly progress?: (done: number, total: number) => void;
}

/** A kind whose resources could not be listed: its CRD is not installed, or the list was refused. */
export interface KindProblem {
  readonly definition: Kind;
  readonly message: string;
}

export interface FleetPreview {
  readonly resources: readonly ResourcePreview[];
  /** Kinds whose resources could not be listed. */
  readonly problems: readonly KindProblem[];
  /** What the new build's CRD cannot ship with: versions still stored that it no longer serves. */
  readonly blocking: readonly KindProblem[];
  /** What ships but should not go unnoticed: children that change while the build's revision stays. */
  readonly warnings: readonly KindProblem[];
}

/** What a planned change does to a child: a delete of one the build still wants is a replace, not a prune. */
export function actionOf(change: PlannedChange): ChildAction {
  if (change.replaced) return 'replace';
  if (change.after === undefined) return 'prune';
  return change.before === undefined ? 'create' : 'update';
}

/** One resource under the new build; an error of its own is kept on it, never thrown (one never stops the others). */
export async function previewResource(
  client: KubeClient,
  definition: Kind,
  resource: CustomResource,
  fieldManager?: string,
  list?: Lister,
): Promise<ResourcePreview> {
  // The new schema first: the stored object as the API server would check it on create.
  const refused = schemaRefusal(definition, resource);
  try {
    const plan = await planChanges(client, definition, resource, { live: true, fieldManager, list });
    const children: ChildPreview[] = [];
    for (const change of plan.changes) {
      const diff = formatChange(change);
      if (diff !== '') children.push({ action: actionOf(change), change, diff });
    }
    return {
      definition,
      resource,
      children,
      ...(plan.external?.change ? { external: plan.external.change } : {}),
      ...(plan.external?.error ? { error: `external: ${plan.external.error}` } : {}),
      ...(refused
        ? { failure: { reason: 'SchemaRefused', message: refused } }
        : plan.failure
          ? { failure: plan.failure }
          : {}),
    };
  } catch (err) {
    return { definition, resource, children: [], error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Every live resource of `kinds` (as `selection` narrows them) under the new build, in the order listed
 * (kind by kind, as the API server lists them), at most `concurrency` at once.
 */
export async function previewFleet(
  client: KubeClient,
  kinds: readonly Kind[],
  selection: FleetSelection,
  options: FleetOptions = {},
): Promise<FleetPreview> {
  const problems: KindProblem[] = [];
  const blocking: KindProblem[] = [];
  const live: { definition: Kind; resource: CustomResource }[] = [];
  for (const definition of kinds) {
    try {
      const unserved = await storedNotServed(client, definition);
      if (unserved.length > 0) {
        const message =
          `objects are still stored as ${unserved.join(', ')}, which the new build no longer serves: ` +
          `move them first (reconstruct migrate ${definition.plural}), or keep serving ${unserved.length === 1 ? 'it' : 'them'}`;
        blocking.push({ definition, message });
      }
      const resources = await readResources(client, definition, selection.namespace, undefined, {
        labelSelector: selection.labelSelector,
      });
      for (const resource of resources) live.push({ definition, resource });
    } catch (err) {
      const message = isNotFound(err)
        ? `the cluster serves no ${definition.plural} of ${definition.apiVersion}: is its CRD installed?`
        : err instanceof Error
          ? err.message
          : String(err);
      problems.push({ definition, message });
    }
  }
  const limiter = new Limiter(Math.max(1, options.concurrency ?? 8), undefined);
  const list = fleetLister(client);
  let done = 0;
  const resources = await Promise.all(
    live.map(({ definition, resource }) =>
      limiter.run(async () => {
        const preview = await previewResource(client, definition, resource, options.fieldManager, list);
        options.progress?.(++done, live.length);
        return preview;
      }),
    ),
  );
  return { resources, problems, blocking, warnings: revisionWarnings(kinds, resources) };
}

/**
 * A kind whose new build changes the children of resources already at its revision: the controller moves
 * them at once, not at a rollout's pace (docs/OPERATING.md, "Rolling out a new revision").
 */
export function revisionWarnings(
  kinds: readonly Kind[],
  resources: readonly ResourcePreview[],
): KindProblem[] {
  const out: KindProblem[] = [];
  for (const definition of kinds.filter((k) => k.revision !== undefined)) {
    const same = resources.filter(
      (r) =>
        r.definition === definition &&
        outcomeOf(r) === 'changed' &&
        (r.resource.status as { lastAppliedRevision?: string } | undefined)?.lastAppliedRevision ===
          definition.revision,
    );
    if (same.length === 0) continue;
    out.push({
      definition,
      message:
        `the children of ${same.length} resource(s) change while the build's revision stays ${definition.revision}: ` +
        'give the build a new revision to roll it out at a pace',
    });
  }
  return out;
}
