/** One thing wrong with the input, located as precisely as we can: file, resource and field. */
export interface Problem {
  readonly file: string;
  /** 1-based position of the document in its file, when the problem is about one document. */
  readonly document?: number;
  /** `KIND/NAME` (with `NAMESPACE/` before NAME when set), or a document number when unparseable. */
  readonly resource: string;
  /** Path in the resource, e.g. `spec.backends[0].weight`; absent when the problem is the whole document. */
  readonly field?: string;
  readonly message: string;
}

/** `FILE: KIND/NAME: FIELD: message`, the line the renderer prints on standard error. */
export function formatProblem(p: Problem): string {
  return [p.file, p.resource, ...(p.field ? [p.field] : []), p.message].join(': ');
}
