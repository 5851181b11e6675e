/** One thing wrong with the input, located as precisely as we can: file, resource and field. */
export interface Problem {
  readonly file: string;
  /** 1-based position of the document in its file, when the problem is about one document. */
  readonly document?: number;
  /** `KIND/NAME` (with `NAMESPACE/` before NAME when set), or a document number when unparseable. */
  readonly resource: string;
  /** `<Kind> <name>` of the resource's child the problem is in; `field` is then a path in that child. */
  readonly child?: string;
  /** Path in the resource, e.g. `spec.backends[0].weight`; absent when the problem is the whole document. */
  readonly field?: string;
  readonly message: string;
}

/** The longest part of a problem line printed whole; longer ones keep their start and end. */
const MAX_PART = 300;

/** `text`, or its start and end with how much was left out between: a 1 MB value is not echoed. */
export function shortened(text: string, max = MAX_PART): string {
  if (text.length <= max) return text;
  const keep = Math.floor((max - 40) / 2);
  return `${text.slice(0, keep)}…(${text.length - 2 * keep} characters left out)…${text.slice(-keep)}`;
}

/**
 * `FILE: KIND/NAME: FIELD: message`, the line the renderer prints on standard error; a child's problem is
 * `FILE: KIND/NAME: CHILD-KIND child-name: FIELD: message`.
 */
export function formatProblem(p: Problem): string {
  return [p.file, p.resource, ...(p.child ? [p.child] : []), ...(p.field ? [p.field] : []), p.message]
    .map((part) => shortened(part))
    .join(': ');
}
