/**
 * Problems of one child rather than of the resource's spec, and the first of them: a child whose kind the
 * definition does not list. Such a child would be neither watched nor pruned, nor granted by the install's
 * RBAC; `synthesize` refuses it, so the offline renderer reports it and the controller sets Ready=False
 * naming it, both in these words.
 */
import type { ApiKind } from './api-kind';
import { SpecError, type Manifest } from './resource';

/**
 * A child the resource cannot have: `child` names it (`Job docs-migrate`), `field` is the path in the
 * child ('' for the child as a whole). A SpecError, so the controller treats it as one: Ready=False,
 * `InvalidSpec`, nothing applied, not retried until the resource changes.
 */
export class ChildError extends SpecError {
  constructor(
    /** `<Kind> <name>`. */
    readonly child: string,
    field: string,
    detail: string,
  ) {
    super(field, detail);
    this.name = 'ChildError';
    this.message = [child, ...(field ? [field] : []), detail].join(': ');
  }
}

/** `<Kind> <name>` of a child, as problems and conditions name it. */
export function childLabel(child: Pick<Manifest, 'kind' | 'metadata'>): string {
  return `${child.kind} ${child.metadata.name}`;
}

/** The entry of `children` (a definition's child kinds) that `child` is of; undefined when none is. */
export function childKindOf(
  children: readonly ApiKind[],
  child: Pick<Manifest, 'apiVersion' | 'kind'>,
): ApiKind | undefined {
  return children.find((c) => c.apiVersion === child.apiVersion && c.kind === child.kind);
}

/** Throws a ChildError for the first child of a kind the definition's `children` do not list. */
export function checkChildKinds(
  definition: { readonly kind: string; readonly children: readonly ApiKind[] },
  children: readonly Manifest[],
): void {
  for (const child of children) {
    if (childKindOf(definition.children, child)) continue;
    const listed = definition.children.map((c) => `${c.apiVersion} ${c.kind}`).join(', ') || 'none';
    throw new ChildError(
      childLabel(child),
      '',
      `${definition.kind} synthesized a ${child.apiVersion} ${child.kind}, which its definition's children ` +
        `do not list (they are: ${listed})`,
    );
  }
}
