/**
 * What the dev loop prints of a build: per resource, what the build changes in its children (the preview's
 * dry runs, `reconstruct preview` shortened to the changed lines), and the live tree of every resource
 * with Ready and each child, as `reconstruct tree` prints it.
 */
import type { Kind } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { APPLIED_HASH_ANNOTATION } from '../../controller/reconcile/converge';
import { isNotFound } from '../../controller/kube/errors';
import { outcomeOf, previewFleet, type ChildPreview, type ResourcePreview } from '../preview/fleet';
import { formatTree, exitStatus } from '../tree/command';
import { readResources, treeOf, type Tree } from '../tree/walk';

/** The changed lines of a child's diff shown at most; the rest is counted. */
export const DIFF_LINES = 8;

const SIGN = { create: '+', update: '~', prune: '-', replace: '!' } as const;

/** The controller's own bookkeeping, which changes with every change of a child: not news. */
const bookkeeping = (line: string) => line.includes(`${APPLIED_HASH_ANNOTATION}:`);

/**
 * A child's diff cut to its changed lines (no headers, no context, not the controller's bookkeeping), at
 * most `limit` of them.
 */
export function shortDiff(diff: string, limit = DIFF_LINES): string[] {
  const changed = diff
    .split('\n')
    .filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l) && !bookkeeping(l));
  const shown = changed.slice(0, limit).map((l) => `      ${l}`);
  if (changed.length > limit) shown.push(`      … ${changed.length - limit} more changed line(s)`);
  return shown;
}

function childLines(c: ChildPreview): string[] {
  const { kind } = c.change.type;
  const head = `    ${SIGN[c.action]} ${kind} ${c.change.name} (${c.action})`;
  // A created or pruned child is its whole manifest: the line says enough.
  return c.action === 'update' ? [head, ...shortDiff(c.diff)] : [head];
}

const labelOf = (r: ResourcePreview) =>
  `${r.definition.kind} ${r.resource.metadata.namespace ? `${r.resource.metadata.namespace}/` : ''}${r.resource.metadata.name}`;

/** The preview of a build, short: the resources it changes, each child's action and changed lines. */
export function formatChanges(resources: readonly ResourcePreview[]): string {
  const lines: string[] = [];
  let unchanged = 0;
  for (const r of resources) {
    const outcome = outcomeOf(r);
    if (outcome === 'unchanged') unchanged++;
    else if (outcome === 'error') lines.push(`  ${labelOf(r)}: not previewed: ${r.error}`);
    else if (outcome === 'failed')
      lines.push(`  ${labelOf(r)}: would fail: ${r.failure?.reason}: ${r.failure?.message}`);
    else {
      lines.push(`  ${labelOf(r)}`);
      for (const c of r.children) lines.push(...childLines(c));
      if (r.external) lines.push(`    external: ${r.external}`);
    }
  }
  if (resources.length === 0) lines.push('  no resources yet (apply one, or add it to samples/)');
  else if (unchanged > 0) lines.push(`  ${unchanged} resource(s) unchanged`);
  return `${lines.join('\n')}\n`;
}

/** What `kinds`' new build would change in the cluster, per live resource (nothing is written). */
export async function previewChanges(client: KubeClient, kinds: readonly Kind[]): Promise<string> {
  const fleet = await previewFleet(client, kinds, {});
  const notes = [...fleet.problems, ...fleet.blocking].map((p) => `  ${p.definition.kind}: ${p.message}`);
  return formatChanges(fleet.resources) + (notes.length ? `${notes.join('\n')}\n` : '');
}

/** The live trees of every resource of `kinds`, and whether all of them are Ready. */
export async function liveTrees(
  client: KubeClient,
  kinds: readonly Kind[],
): Promise<{ text: string; ready: boolean }> {
  const trees: Tree[] = [];
  for (const definition of kinds) {
    let resources;
    try {
      resources = await readResources(client, definition, undefined);
    } catch (err) {
      if (isNotFound(err)) continue; // its CRD is not installed (yet)
      throw err;
    }
    for (const r of resources) trees.push(await treeOf(client, definition, r));
  }
  const text = trees.map(formatTree).join('\n');
  return { text, ready: trees.length > 0 && exitStatus(trees) === 0 };
}
