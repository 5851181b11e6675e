import {
  KindRegistry,
  SpecError,
  groupOf,
  synthesize,
  type CustomResource,
  type CustomResourceDefinition,
  type Kind,
  type Manifest,
} from '../constructs/kit';
import {
  OFFLINE_HINT_ANNOTATION,
  generatedFields,
  withGeneratedValues,
} from '../constructs/kit/child-policy';
import { ChildError, childLabel } from '../constructs/kit/child-kinds';
import { validateChild } from '../constructs/kit/validate/kubernetes';
import { givenFor, offlinePending, pendingMessage, type GivenInputs } from './inputs';
import type { Problem } from './problem';
import { parseDocuments, type SourceDocument } from './read';
import { validateResource, type FieldError, type Validated } from '../constructs/kit/validate';
import { RULES_NOT_CHECKED } from '../constructs/kit/validate/rules';

/** A resource that passed every check, with its children. */
export interface Rendered {
  readonly file: string;
  /** The resource's kind. */
  readonly kind: Kind;
  /** The resource as the API server would store it: schema defaults applied. */
  readonly resource: CustomResource;
  readonly children: Manifest[];
  /**
   * Children left out because the controller generates values of theirs when it creates them (a
   * create-only Secret's password), unless `includeGenerated` asked for them: what to tell the user.
   */
  readonly omitted: readonly Omitted[];
  /**
   * Children that wait for inputs the render was not given (see synth/inputs.ts): left out, or rendered
   * with marked placeholders when `placeholders` asked; one line each tells the user.
   */
  readonly pending: readonly string[];
}

/** A child left out of offline output, and the JSON pointers of the values the controller generates. */
export interface Omitted {
  /** `<Kind> <name>`. */
  readonly child: string;
  readonly fields: readonly string[];
  /** What the user can do instead, as the construct says it. */
  readonly hint?: string;
}

/** A document that is not a resource of a kind being rendered: written out as it came in. */
export interface PassedThrough {
  readonly file: string;
  /** 1-based position of the document in its file. */
  readonly index: number;
  readonly object: Manifest;
}

export interface RenderOptions {
  /** The kinds to render. */
  readonly kinds: KindRegistry;
  /**
   * What becomes of a document that is not a resource of these kinds (an ordinary manifest beside ours):
   * `pass` it through unchanged, in order (the default, as a pipeline expects), or report it as an
   * `error`. A document of a known kind's API group but of no known kind or version is always an error:
   * it is a typo more often than a manifest.
   */
  readonly unknown?: 'pass' | 'error';
  /** Namespace for namespaced resources that name none, as `kubectl apply -n` would give them. */
  readonly namespace?: string;
  /**
   * Render the children whose values the controller would generate (see childPolicy), with fresh values
   * of their own. By default they are left out (`Rendered.omitted`): a password does not belong in files.
   */
  readonly includeGenerated?: boolean;
  /**
   * Check every child as the API server would check its apply: a child of a built-in kind against the
   * OpenAPI schemas of the Kubernetes version the package targets (see validateChild), a child of one of
   * `kinds` against its CRD. A resource with a child that fails is not rendered; its problems name the child.
   * @default true
   */
  readonly validateChildren?: boolean;
  /** The values of resources' inputs (`--inputs FILE`), by resource. */
  readonly inputs?: GivenInputs;
  /** Render a child that waits for an input with its placeholder marked (`<input:host>`), not leave it out. */
  readonly placeholders?: boolean;
}

/**
 * What to tell the user about a resource that renders no Kubernetes object because its kind's work is all
 * outside Kubernetes (a database on a server): its file would otherwise say nothing of it.
 */
export function externalOnlyMessage(rendered: Rendered): string | undefined {
  const work = rendered.kind.external;
  if (!work || rendered.children.length > 0 || rendered.omitted.length > 0 || rendered.pending.length > 0)
    return undefined;
  let what: string;
  try {
    what = work.describe(work.desired(rendered.resource));
  } catch {
    what = 'its object';
  }
  return `renders no Kubernetes object: its work is outside Kubernetes (${what}), done by the controller`;
}

/** What to tell the user about a child left out for its generated values. */
export function omittedMessage({ child, fields, hint }: Omitted): string {
  return (
    `left out ${child}: the controller generates ${fields.join(', ')} when it creates it in the cluster; ` +
    `--include-generated renders one with a fresh value${hint ? `, or ${hint}` : ''}`
  );
}

/** The children to write, and those left out for their generated values. */
function offlineChildren(children: Manifest[], includeGenerated: boolean | undefined) {
  if (includeGenerated) return { children: children.map(withGeneratedValues), omitted: [] };
  const kept: Manifest[] = [];
  const omitted: Omitted[] = [];
  for (const child of children) {
    const fields = generatedFields(child);
    if (fields.length === 0) kept.push(child);
    else {
      const hint = child.metadata.annotations?.[OFFLINE_HINT_ANNOTATION];
      omitted.push({ child: `${child.kind} ${child.metadata.name}`, fields, ...(hint ? { hint } : {}) });
    }
  }
  return { children: kept, omitted };
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
  options: RenderOptions,
): { rendered?: Rendered; passed?: PassedThrough; problems: Problem[] } {
  const { value, file } = doc;
  const problem = (field: string | undefined, message: string, of: unknown = value): Problem => ({
    file,
    document: doc.index,
    resource: describe(of),
    ...(field ? { field } : {}),
    message,
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      problems: [
        { file, document: doc.index, resource: `document ${doc.index}`, message: 'not a Kubernetes object' },
      ],
    };
  }
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  const definition: Kind | undefined = options.kinds.get(String(apiVersion), String(kind));
  if (!definition) {
    const ours = options.kinds.kinds.some((k) => groupOf(k) === groupOf(String(apiVersion)));
    if (options.unknown !== 'error' && !ours && typeof apiVersion === 'string' && typeof kind === 'string') {
      return { passed: { file, index: doc.index, object: value as Manifest }, problems: [] };
    }
    const known = options.kinds.describe();
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
  const { object, errors } = admission(definition.crd, withNamespace);
  if (errors.length > 0) {
    return { problems: errors.map((e) => problem(e.field, e.message, withNamespace)) };
  }
  const converted = toHub(definition, object as unknown as CustomResource);
  if (converted.problems)
    return { problems: converted.problems.map((e) => problem(e.field, e.message, withNamespace)) };
  const resource = converted.resource;
  const given = givenFor(options.inputs, definition, resource, describe(resource));
  if (given.problems.length > 0) return { problems: given.problems };
  try {
    const all = synthesize(definition, resource, { admitted: true, inputs: given.values });
    const { children: synthesized, pending } = offlinePending(
      definition,
      resource,
      all,
      options.placeholders,
    );
    const waiting = new Set(pending.map((p) => `${p.child.kind} ${p.child.metadata.name}`));
    if (options.validateChildren !== false) {
      // A child with placeholders is not what the controller will apply: it is checked once it has values.
      const checked = synthesized.filter((c) => !waiting.has(`${c.kind} ${c.metadata.name}`));
      const problems = checked.flatMap((child) =>
        childErrors(child, options.kinds).map((e): Problem => ({
          ...problem(e.field || undefined, e.message, resource),
          child: childLabel(child),
        })),
      );
      if (problems.length > 0) return { problems };
    }
    const children = offlineChildren(synthesized, options.includeGenerated);
    const said = pending.map((p) => pendingMessage(definition, resource, p, options.placeholders));
    return { rendered: { file, kind: definition, resource, ...children, pending: said }, problems: [] };
  } catch (err) {
    if (err instanceof ChildError) {
      return { problems: [{ ...problem(err.field, err.detail, resource), child: err.child }] };
    }
    if (err instanceof SpecError) return { problems: [problem(err.field, err.detail, resource)] };
    return { problems: [problem(undefined, `cannot synthesize: ${(err as Error).message}`, resource)] };
  }
}

/**
 * A resource of another of its kind's versions as the hub (the construct's version), with the hub's
 * defaults, as the API server serves it to the controller through the conversion webhook.
 */
function toHub(
  definition: Kind,
  resource: CustomResource,
): { resource: CustomResource; problems?: undefined } | { problems: FieldError[] } {
  if (resource.apiVersion === definition.apiVersion) return { resource };
  let hub: CustomResource;
  try {
    hub = definition.convert(resource, definition.apiVersion);
  } catch (err) {
    return { problems: [{ field: 'apiVersion', message: (err as Error).message }] };
  }
  const { object, errors } = admission(definition.crd, hub);
  if (errors.length > 0) {
    const message = (e: FieldError) => `converted to ${definition.apiVersion}: ${e.message}`;
    return { problems: errors.map((e) => ({ field: e.field, message: message(e) })) };
  }
  return { resource: object as unknown as CustomResource };
}

/**
 * What the API server would refuse of a child: by the Kubernetes schemas for a built-in kind, by its CRD for
 * a child of one of `kinds`; nothing for a kind neither knows.
 */
function childErrors(child: Manifest, kinds: KindRegistry): readonly FieldError[] {
  const own = kinds.get(child.apiVersion, child.kind);
  if (own) return admission(own.crd, child).errors;
  return validateChild(child) ?? [];
}

/**
 * What the API server would refuse of `object`, as offline output reports it: every error names its
 * field, so the API server's field-less note that it skipped the CEL rules because of them is left out.
 */
function admission(crd: CustomResourceDefinition, object: unknown): Validated {
  const validated = validateResource(crd, object);
  return { ...validated, errors: validated.errors.filter((e) => !e.message.endsWith(RULES_NOT_CHECKED)) };
}

/** What renderAll gives: the rendered resources, and with them the documents passed through. */
export interface RenderAllResult {
  readonly rendered: Rendered[];
  /** Every rendered resource and passed document, in input order: what the output holds. */
  readonly outputs: (Rendered | PassedThrough)[];
  readonly problems: Problem[];
}

/** Whether an output entry is a document passed through (else a rendered resource). */
export const isPassed = (output: Rendered | PassedThrough): output is PassedThrough => 'object' in output;

/**
 * Renders documents one at a time, as they are read, and reports the second of two resources with the
 * same kind, namespace and name. Of a resource rendered, it keeps only that key and the file's name.
 */
export class DocumentRenderer {
  private readonly seen = new Map<string, string>();

  constructor(private readonly options: RenderOptions) {}

  /** The output of one document (its children, or itself passed through), or what is wrong with it. */
  render(doc: SourceDocument): { output?: Rendered | PassedThrough; problems: Problem[] } {
    const result = renderDocument(doc, this.options);
    if (result.passed) return { output: result.passed, problems: result.problems };
    if (!result.rendered) return { problems: result.problems };
    const key = `${result.rendered.resource.apiVersion} ${describe(result.rendered.resource)}`;
    const first = this.seen.get(key);
    if (first) {
      return {
        problems: [
          ...result.problems,
          {
            file: doc.file,
            document: doc.index,
            resource: describe(result.rendered.resource),
            message: `duplicate of the resource in ${first}`,
          },
        ],
      };
    }
    this.seen.set(key, doc.file);
    return { output: result.rendered, problems: result.problems };
  }
}

/** Renders every document, reporting the second of two resources with the same kind, namespace and name. */
export function renderAll(documents: Iterable<SourceDocument>, options: RenderOptions): RenderAllResult {
  const rendered: Rendered[] = [];
  const outputs: (Rendered | PassedThrough)[] = [];
  const problems: Problem[] = [];
  const renderer = new DocumentRenderer(options);
  for (const doc of documents) {
    const result = renderer.render(doc);
    problems.push(...result.problems);
    if (!result.output) continue;
    outputs.push(result.output);
    if (!isPassed(result.output)) rendered.push(result.output);
  }
  return { rendered, outputs, problems };
}

/** The objects of an output entry: a resource's children, or the passed-through document. */
export function objectsOf(output: Rendered | PassedThrough): Manifest[] {
  return isPassed(output) ? [output.object] : output.children;
}

/** What `renderResources` returns: the children of every valid resource, and what was wrong with the rest. */
export interface RenderResult {
  /**
   * Every child of every resource rendered and every document passed through, in input order: what
   * `reconstruct synth -o -` prints.
   */
  readonly manifests: Manifest[];
  readonly rendered: Rendered[];
  readonly passed: PassedThrough[];
  readonly problems: Problem[];
}

/**
 * Renders custom resources, offline, for a program that embeds the renderer: `input` is YAML text (several
 * documents separated by ---) or parsed objects. `source` names the input in problems.
 */
export function renderResources(
  input: string | readonly unknown[],
  options: Omit<RenderOptions, 'kinds'> & {
    readonly kinds: KindRegistry | readonly Kind[];
    /** How problems name the input. Default: `<input>`. */
    readonly source?: string;
  },
): RenderResult {
  const file = options.source ?? '<input>';
  const kinds = options.kinds instanceof KindRegistry ? options.kinds : new KindRegistry(options.kinds);
  const { documents, problems: readProblems } =
    typeof input === 'string'
      ? parseDocuments(file, input)
      : { documents: input.map((value, i) => ({ file, index: i + 1, value })), problems: [] };
  const { rendered, outputs, problems } = renderAll(documents, { ...options, kinds });
  return {
    manifests: outputs.flatMap(objectsOf),
    rendered,
    passed: outputs.filter(isPassed),
    problems: [...readProblems, ...problems],
  };
}
