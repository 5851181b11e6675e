/**
 * The renderer as a KRM function (the Kubernetes Resource Model functions specification, as kustomize
 * and kpt run them): a `ResourceList` on standard input, one on standard output. As a transformer, each
 * custom resource of a known kind among the items is replaced by its children, every other item is kept
 * as it came, in order; problems are `results` naming the resource, the field and the file, with
 * severity `error`, and make the function exit 1 so that `kustomize build` fails.
 */
import { parse } from 'yaml';
import type { KindRegistry, Manifest } from '../constructs/kit';
import { formatProblem, shortened, type Problem } from './problem';
import { objectsOf, omittedMessage, renderAll } from './render';
import type { SourceDocument } from './read';
import { toYaml } from './yaml';

const RESOURCE_LIST = { apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList' };
/** Where kustomize and kpt say an item came from. */
const PATH_ANNOTATIONS = ['internal.config.kubernetes.io/path', 'config.kubernetes.io/path'];

/** One entry of a ResourceList's `results`. */
export interface KrmResult {
  message: string;
  severity: 'error' | 'warning' | 'info';
  resourceRef?: { apiVersion: string; kind: string; name: string; namespace?: string };
  field?: { path: string };
  file?: { path: string };
}

interface KrmOptions {
  readonly kinds: KindRegistry;
  readonly includeGenerated?: boolean;
  /** See RenderOptions.validateChildren. @default true */
  readonly validateChildren?: boolean;
}

type Item = Manifest & { metadata: Manifest['metadata'] & { annotations?: Record<string, string> } };

function resourceRef(item: unknown): KrmResult['resourceRef'] {
  const obj = item as Partial<Item> | undefined;
  if (typeof obj?.apiVersion !== 'string' || typeof obj.kind !== 'string') return undefined;
  const { name, namespace } = obj.metadata ?? { name: '' };
  return { apiVersion: obj.apiVersion, kind: obj.kind, name, ...(namespace ? { namespace } : {}) };
}

function result(problem: Problem, items: readonly unknown[]): KrmResult {
  const item = problem.document !== undefined ? items[problem.document - 1] : undefined;
  const ref = resourceRef(item);
  return {
    // A child's problem is in the message: resourceRef and field name the item, and the child is not one.
    message: shortened(
      problem.child
        ? [problem.child, ...(problem.field ? [problem.field] : []), problem.message].join(': ')
        : problem.message,
    ),
    severity: 'error',
    ...(ref ? { resourceRef: ref } : {}),
    ...(problem.field && !problem.child ? { field: { path: problem.field } } : {}),
    ...(problem.file.startsWith('items[') ? {} : { file: { path: problem.file } }),
  };
}

/**
 * Runs the function on a ResourceList's text: the ResourceList to write, whether it failed, and the
 * problems as lines for standard error. Never throws: input that is not a ResourceList is an error result.
 */
export function runKrmFunction(
  input: string,
  options: KrmOptions,
): { output: string; failed: boolean; problems: string[] } {
  const fail = (message: string) => ({
    output: toYaml({ ...RESOURCE_LIST, items: [], results: [{ message, severity: 'error' }] }),
    failed: true,
    problems: [`reconstruct krm: ${message}`],
  });
  let list: { apiVersion?: unknown; kind?: unknown; items?: unknown };
  try {
    list = (parse(input) ?? {}) as typeof list;
  } catch (err) {
    return fail(`the input is not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (list.kind !== 'ResourceList' || !Array.isArray(list.items ?? [])) {
    return fail(`the input is not a ResourceList (kind: ${String(list.kind)}): run me as a KRM function`);
  }
  const items = (list.items ?? []) as unknown[];
  const documents: SourceDocument[] = items.map((value, i) => {
    const annotations = (value as Partial<Item> | null)?.metadata?.annotations ?? {};
    const path = PATH_ANNOTATIONS.map((a) => annotations[a]).find((p) => typeof p === 'string');
    // index: the position among the items (not in the file), which result() maps problems back through.
    return { file: path ?? `items[${i}]`, index: i + 1, value };
  });
  const { rendered, outputs, problems } = renderAll(documents, {
    kinds: options.kinds,
    includeGenerated: options.includeGenerated,
    validateChildren: options.validateChildren,
  });
  const results = problems.map((p) => result(p, items));
  // Children left out for their generated values: said, not failed (as `synth` says so on stderr).
  // So are children that wait for inputs a KRM function is not given (it reads no cluster).
  for (const r of rendered) {
    const ref = resourceRef(r.resource);
    for (const message of [...r.omitted.map(omittedMessage), ...r.pending]) {
      results.push({ message, severity: 'info', ...(ref ? { resourceRef: ref } : {}) });
    }
  }
  const failed = results.some((r) => r.severity === 'error');
  const out = {
    ...RESOURCE_LIST,
    items: outputs.flatMap(objectsOf),
    ...(results.length > 0 ? { results } : {}),
  };
  return { output: toYaml(out), failed, problems: problems.map(formatProblem) };
}
