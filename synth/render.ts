import { lookupKind, kinds } from '../constructs/registry';
import type { CustomResource, Manifest } from '../constructs/resource';
import { SpecError } from '../constructs/resource';
import { synthesize } from '../constructs/synthesize';
import type { Problem } from './problem';
import type { SourceDocument } from './read';
import { validateResource } from './validate';

/** A resource that passed every check, with its children. */
export interface Rendered {
  readonly file: string;
  /** The resource as the API server would store it: schema defaults applied. */
  readonly resource: CustomResource;
  readonly children: Manifest[];
}

export interface RenderOptions {
  /** Namespace for namespaced resources that name none, as `kubectl apply -n` would give them. */
  readonly namespace?: string;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `KIND/NAME` or `KIND/NAMESPACE/NAME`, from whatever the document holds. */
export function describe(value: unknown): string {
  const obj = (value ?? {}) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const namespace = str(obj.metadata?.namespace);
  return `${str(obj.kind) ?? '<no kind>'}/${namespace ? `${namespace}/` : ''}${str(obj.metadata?.name) ?? '<no name>'}`;
}

/**
 * Checks one document against its CRD schema (what the API server would enforce at admission) and the
 * construct's own checks, and synthesizes its children. Never throws: every failure is a Problem.
 */
export function renderDocument(
  doc: SourceDocument,
  options: RenderOptions = {},
): { rendered?: Rendered; problems: Problem[] } {
  const { value, file } = doc;
  const problem = (field: string | undefined, message: string, of: unknown = value): Problem => ({
    file,
    resource: describe(of),
    ...(field ? { field } : {}),
    message,
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: [{ file, resource: `document ${doc.index}`, message: 'not a Kubernetes object' }] };
  }
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  const definition = lookupKind(String(apiVersion), String(kind));
  if (!definition) {
    const known = kinds.map((k) => `${k.apiVersion} ${k.kind}`).join(', ');
    return {
      problems: [problem('kind', `unknown kind ${String(apiVersion)} ${String(kind)} (known: ${known})`)],
    };
  }

  const withNamespace = structuredClone(value) as CustomResource;
  if (
    definition.namespaced &&
    options.namespace &&
    withNamespace.metadata &&
    !withNamespace.metadata.namespace
  ) {
    withNamespace.metadata.namespace = options.namespace;
  }
  const { object, errors } = validateResource(definition.crd, withNamespace);
  if (errors.length > 0) {
    return { problems: errors.map((e) => problem(e.field, e.message, withNamespace)) };
  }
  const resource = object as unknown as CustomResource;
  try {
    return { rendered: { file, resource, children: synthesize(resource) }, problems: [] };
  } catch (err) {
    if (err instanceof SpecError) return { problems: [problem(err.field, err.detail, resource)] };
    return { problems: [problem(undefined, `cannot synthesize: ${(err as Error).message}`, resource)] };
  }
}

/** Renders every document, reporting the second of two resources with the same kind, namespace and name. */
export function renderAll(
  documents: SourceDocument[],
  options: RenderOptions = {},
): { rendered: Rendered[]; problems: Problem[] } {
  const rendered: Rendered[] = [];
  const problems: Problem[] = [];
  const seen = new Map<string, string>();
  for (const doc of documents) {
    const result = renderDocument(doc, options);
    problems.push(...result.problems);
    if (!result.rendered) continue;
    const key = `${result.rendered.resource.apiVersion} ${describe(result.rendered.resource)}`;
    const first = seen.get(key);
    if (first) {
      problems.push({
        file: doc.file,
        resource: describe(result.rendered.resource),
        message: `duplicate of the resource in ${first}`,
      });
      continue;
    }
    seen.set(key, doc.file);
    rendered.push(result.rendered);
  }
  return { rendered, problems };
}
