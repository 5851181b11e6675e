/**
 * `reconstruct preview --offline`: two builds of kinds compared on resource files, without a cluster (for
 * CI): each resource rendered by the old build and by the new one, and each child the new build would
 * create, change or no longer render. What only a cluster knows (defaults of the API server, immutable
 * fields, live inputs not given in `--inputs`) is not in it.
 */
import type { CustomResource, KindRegistry, Manifest } from '../../constructs/kit';
import { formatProblem, type Problem } from '../../synth/problem';
import type { SourceDocument } from '../../synth/read';
import { DocumentRenderer, isPassed, type RenderOptions, type Rendered } from '../../synth/render';
import { formatChange } from '../diff/command';
import type { PlannedChange } from '../diff/dry-run';
import type { ChildPreview, ResourcePreview } from './fleet';

/** The two sides of a diff: what the old build renders, and the new one. */
const SIDES = ['old', 'new'] as const;

const keyOf = (m: Manifest) => `${m.apiVersion}/${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`;

function change(before: Manifest | undefined, after: Manifest | undefined): PlannedChange {
  const m = (after ?? before) as Manifest;
  return {
    type: {
      apiVersion: m.apiVersion,
      kind: m.kind,
      namespaced: m.metadata.namespace !== undefined,
      plural: '',
    },
    ...(m.metadata.namespace ? { namespace: m.metadata.namespace } : {}),
    name: m.metadata.name,
    before,
    after,
  };
}

/** The children of one resource under both builds: what the new one creates, changes and drops. */
function compareChildren(old: Rendered, next: Rendered): ChildPreview[] {
  const before = new Map(old.children.map((c) => [keyOf(c), c]));
  const after = new Map(next.children.map((c) => [keyOf(c), c]));
  const out: ChildPreview[] = [];
  for (const [key, child] of after) {
    const c = change(before.get(key), child);
    const diff = formatChange(c, SIDES);
    if (diff !== '') out.push({ action: before.has(key) ? 'update' : 'create', change: c, diff });
  }
  for (const [key, child] of before) {
    if (after.has(key)) continue;
    const c = change(child, undefined);
    out.push({ action: 'prune', change: c, diff: formatChange(c, SIDES) });
  }
  return out;
}

const problemsText = (problems: readonly Problem[]) => problems.map((p) => formatProblem(p)).join('; ');

export interface OfflinePreview {
  readonly resources: readonly ResourcePreview[];
  /** Problems of the documents themselves (unreadable, of no kind either build knows). */
  readonly problems: readonly Problem[];
}

/**
 * Each document that is a resource of the new build's kinds, rendered by both builds. A resource the old
 * build cannot render counts as created by the new one; one the new build refuses, as failing.
 */
export function previewOffline(
  documents: Iterable<SourceDocument>,
  old: KindRegistry,
  next: KindRegistry,
  options: Omit<RenderOptions, 'kinds'>,
): OfflinePreview {
  const render = (kinds: KindRegistry) => new DocumentRenderer({ ...options, kinds, unknown: 'pass' });
  const [byOld, byNew] = [render(old), render(next)];
  const resources: ResourcePreview[] = [];
  const problems: Problem[] = [];
  for (const doc of documents) {
    const after = byNew.render(doc);
    const before = byOld.render(doc);
    if (after.output && isPassed(after.output)) continue; // not a resource of the new build's kinds
    if (!after.output) {
      // Refused by the new build: its problems name the file, resource and field.
      const value = (doc.value ?? {}) as { apiVersion?: unknown; kind?: unknown; metadata?: unknown };
      const kind = next.get(String(value.apiVersion), String(value.kind));
      if (!kind || typeof value.metadata !== 'object') {
        problems.push(...after.problems);
        continue;
      }
      const failure = { reason: 'InvalidSpec', message: problemsText(after.problems) };
      resources.push({ definition: kind, resource: value as CustomResource, children: [], failure });
      continue;
    }
    const rendered = after.output;
    const previous: Rendered =
      before.output && !isPassed(before.output) ? before.output : { ...rendered, children: [] };
    const children = compareChildren(previous, rendered);
    resources.push({ definition: rendered.kind, resource: rendered.resource, children });
  }
  return { resources, problems };
}
