/**
 * The children that wait for inputs: those that hold a placeholder (tokens.ts), with the inputs they
 * wait for. A child waiting for an input read from a child that waits for it in turn would wait forever:
 * such a cycle is refused (SpecError naming it), as is an input read from a child the construct does not
 * render, which would never come.
 */
import type { Kind } from '../kind';
import { SpecError, type CustomResource, type Manifest } from '../resource';
import { nameOf, type Inputs } from './declare';
import { pendingInputs } from './tokens';

/** A child that waits for inputs, by name, in declaration order. */
export interface PendingChild {
  readonly child: Manifest;
  readonly inputs: readonly string[];
}

const idOf = (kind: string, name: string) => `${kind} ${name}`;

/** The children that hold placeholders, with what they wait for; throws SpecError for a wait that never ends. */
export function pendingChildren(
  kind: Pick<Kind, 'inputs'>,
  resource: CustomResource,
  children: readonly Manifest[],
): PendingChild[] {
  const inputs: Inputs = kind.inputs;
  if (Object.keys(inputs).length === 0) return [];
  const pending = children.flatMap((child) => {
    const waits = pendingInputs(inputs, child);
    return waits.length > 0 ? [{ child, inputs: waits }] : [];
  });
  const rendered = new Set(children.map((c) => idOf(c.kind, c.metadata.name)));
  const waitsOf = new Map(pending.map((p) => [idOf(p.child.kind, p.child.metadata.name), p.inputs]));
  // A child's wait for an input read from a child: that child's id.
  const sourceOf = (input: string): string | undefined => {
    const source = inputs[input];
    if (source.from !== 'child') return undefined;
    const name = nameOf(source.name, resource);
    return name ? idOf(source.type.kind, name) : undefined;
  };
  for (const { child, inputs: waits } of pending) {
    for (const input of waits) {
      const source = sourceOf(input);
      if (source && !rendered.has(source)) {
        throw new SpecError(
          `inputs.${input}`,
          `${child.kind} ${child.metadata.name} waits for input ${input}, read from ${source}, which the construct does not render`,
        );
      }
    }
  }
  const cycle = findCycle([...waitsOf.keys()], (id) =>
    (waitsOf.get(id) ?? []).flatMap((i) => sourceOf(i) ?? []),
  );
  if (cycle) {
    throw new SpecError('inputs', `children wait for each other's inputs in a cycle: ${cycle.join(' -> ')}`);
  }
  return pending;
}

/** A path that comes back to where it started, through `next`; undefined when there is none. */
function findCycle(
  nodes: readonly string[],
  next: (node: string) => readonly string[],
): string[] | undefined {
  const done = new Set<string>();
  const visit = (node: string, path: string[]): string[] | undefined => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return undefined;
    for (const following of next(node)) {
      const cycle = visit(following, [...path, node]);
      if (cycle) return cycle;
    }
    done.add(node);
    return undefined;
  };
  for (const node of nodes) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return undefined;
}
