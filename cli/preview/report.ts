/**
 * What `reconstruct preview` prints: a summary (resources unchanged, changed, failing; children created,
 * updated, pruned, replaced; the fields changed most), each change as `kubectl diff` shows it, and the
 * same as JSON or as markdown for a pull request's comment.
 */
import { isDeepStrictEqual } from 'node:util';
import { comparable } from '../diff/command';
import { outcomeOf, type ChildAction, type Outcome, type ResourcePreview } from './fleet';

export interface Summary {
  readonly resources: Record<Outcome, number>;
  readonly children: Record<ChildAction, number>;
  /** `Deployment spec.replicas` and in how many children it changes, most first (ties by name). */
  readonly fields: readonly { readonly field: string; readonly children: number }[];
}

/** The controller's own annotations (the applied hash): they change with every other change. */
const BOOKKEEPING = 'metadata.annotations.reconstruct.dev/';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The paths of the leaves that differ between two objects: `spec.replicas`, an element of a list as
 * `containers[*].image` (the same field of every element counts once), a list of another length whole.
 */
export function changedFields(before: unknown, after: unknown, path = ''): string[] {
  if (isDeepStrictEqual(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => changedFields(before[k], after[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    const paths = before.flatMap((b, i) => changedFields(b, after[i], `${path}[*]`));
    return [...new Set(paths)];
  }
  return [path];
}

const labelOf = (r: ResourcePreview): string =>
  `${r.definition.kind} ${r.resource.metadata.namespace ? `${r.resource.metadata.namespace}/` : ''}${r.resource.metadata.name}`;

export function summarize(resources: readonly ResourcePreview[]): Summary {
  const counts: Record<Outcome, number> = { unchanged: 0, changed: 0, failed: 0, error: 0 };
  const children: Record<ChildAction, number> = { create: 0, update: 0, prune: 0, replace: 0 };
  const fields = new Map<string, number>();
  for (const r of resources) {
    counts[outcomeOf(r)]++;
    for (const child of r.children) {
      children[child.action]++;
      if (child.action !== 'update') continue;
      const { before, after } = child.change;
      for (const field of changedFields(comparable(before), comparable(after))) {
        if (field.startsWith(BOOKKEEPING)) continue;
        const key = `${child.change.type.kind} ${field}`;
        fields.set(key, (fields.get(key) ?? 0) + 1);
      }
    }
  }
  const ranked = [...fields]
    .map(([field, n]) => ({ field, children: n }))
    .sort((a, b) => b.children - a.children || a.field.localeCompare(b.field));
  return { resources: counts, children, fields: ranked };
}

/** How many of the fields changed most a summary names. */
const TOP_FIELDS = 10;

/** The summary as text: three lines, then the fields changed most, one a line. */
export function formatSummary(summary: Summary, kinds: string): string {
  const { resources: r, children: c } = summary;
  const total = r.unchanged + r.changed + r.failed + r.error;
  const lines = [
    `previewed ${total} resource(s) of ${kinds}: ${r.unchanged} unchanged, ${r.changed} changed, ` +
      `${r.failed} would fail, ${r.error} not previewed (errors)`,
    `children: ${c.create} created, ${c.update} updated, ${c.prune} pruned, ${c.replace} replaced`,
  ];
  if (summary.fields.length > 0) {
    lines.push('fields changed most:');
    const shown = summary.fields.slice(0, TOP_FIELDS);
    const width = Math.max(...shown.map((f) => f.field.length));
    for (const f of shown) lines.push(`  ${f.field.padEnd(width)}  ${f.children}`);
    if (summary.fields.length > TOP_FIELDS)
      lines.push(`  ... and ${summary.fields.length - TOP_FIELDS} more`);
  }
  return `${lines.join('\n')}\n`;
}

/** One line for a resource that would fail or could not be previewed, '' for the others. */
export function formatTrouble(r: ResourcePreview): string {
  if (r.error) return `${labelOf(r)}: not previewed: ${r.error}\n`;
  if (r.failure) return `${labelOf(r)}: would fail: ${r.failure.reason}: ${r.failure.message}\n`;
  return '';
}

/** A resource's changes as text: its children's diffs, then its external change on a line of its own. */
export function formatResource(r: ResourcePreview): string {
  const external = r.external ? `${labelOf(r)}: external: ${r.external}\n` : '';
  return r.children.map((c) => c.diff).join('') + external;
}

/** The whole preview as JSON: the summary, then each resource that is not unchanged. */
export function toJson(resources: readonly ResourcePreview[], summary: Summary): unknown {
  return {
    summary,
    resources: resources
      .filter((r) => outcomeOf(r) !== 'unchanged')
      .map((r) => ({
        kind: r.definition.kind,
        apiVersion: r.definition.apiVersion,
        ...(r.resource.metadata.namespace ? { namespace: r.resource.metadata.namespace } : {}),
        name: r.resource.metadata.name,
        outcome: outcomeOf(r),
        ...(r.error ? { error: r.error } : {}),
        ...(r.failure ? { failure: r.failure } : {}),
        ...(r.external ? { external: r.external } : {}),
        children: r.children.map((c) => ({
          action: c.action,
          apiVersion: c.change.type.apiVersion,
          kind: c.change.type.kind,
          ...(c.change.namespace ? { namespace: c.change.namespace } : {}),
          name: c.change.name,
          diff: c.diff,
        })),
      })),
  };
}

/** How many resources' diffs a markdown report shows in full (the summary counts them all). */
const MARKDOWN_DIFFS = 20;

/**
 * The characters a markdown report stays within: a pull request's comment holds at most 65,536, and the
 * diffs are what gives way (the summary and the failures are always there).
 */
export const MARKDOWN_LIMIT = 60_000;

/** The preview as a pull request's comment: the summary as tables, each changed resource's diff folded. */
export function toMarkdown(resources: readonly ResourcePreview[], summary: Summary, kinds: string): string {
  const { resources: r, children: c } = summary;
  const out = [
    `### reconstruct preview: ${kinds}`,
    '',
    '| resources | unchanged | changed | would fail | errors |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| ${r.unchanged + r.changed + r.failed + r.error} | ${r.unchanged} | ${r.changed} | ${r.failed} | ${r.error} |`,
    '',
    '| children | created | updated | pruned | replaced |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| ${c.create + c.update + c.prune + c.replace} | ${c.create} | ${c.update} | ${c.prune} | ${c.replace} |`,
  ];
  if (summary.fields.length > 0) {
    out.push('', '| field changed | children |', '| --- | ---: |');
    for (const f of summary.fields.slice(0, TOP_FIELDS)) out.push(`| \`${f.field}\` | ${f.children} |`);
  }
  const troubles = resources.map(formatTrouble).filter((t) => t !== '');
  if (troubles.length > 0) out.push('', ...troubles.map((t) => `- ${t.trimEnd()}`));
  const changed = resources.filter((p) => p.children.length > 0 || p.external);
  // What the closing line may take, kept free while the diffs are added.
  let size = out.join('\n').length + 200;
  let shown = 0;
  for (const p of changed.slice(0, MARKDOWN_DIFFS)) {
    const folded = [
      '',
      `<details><summary>${labelOf(p)}</summary>`,
      '',
      '```diff',
      formatResource(p).trimEnd(),
      '```',
      '',
      '</details>',
    ];
    const length = folded.join('\n').length + 1;
    if (size + length > MARKDOWN_LIMIT) break;
    out.push(...folded);
    size += length;
    shown++;
  }
  if (changed.length > shown) {
    out.push(
      '',
      `... and ${changed.length - shown} more changed resource(s): run \`reconstruct preview\` for every diff.`,
    );
  }
  return `${out.join('\n')}\n`;
}
