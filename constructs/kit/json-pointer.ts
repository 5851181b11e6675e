/** Fields of a manifest named by JSON pointers (RFC 6901) through objects, as child policies name them. */

/** The segments of a JSON pointer (RFC 6901): `/a/b~1c` is `['a', 'b/c']`. */
export function parsePointer(pointer: string): string[] {
  if (!pointer.startsWith('/') || pointer === '/') {
    throw new Error(
      `"${pointer}" is not a JSON pointer to a field: it must start with "/", as in /spec/replicas`,
    );
  }
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => {
      if (segment === '' || /~[^01]|~$/.test(segment))
        throw new Error(`"${pointer}" is not a valid JSON pointer`);
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      if (key === '__proto__') throw new Error(`"${pointer}" names __proto__, which no Kubernetes field is`);
      return key;
    });
}

/** The JSON pointer of a path's segments. */
export const pointerOf = (path: readonly string[]) =>
  `/${path.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** An object of a manifest, as the walk sees it. */
export type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The object holding the field at `path` (its last segment), reached through objects only: throws for a
 * path through a list or a scalar. With `create`, missing objects on the way are added; without, the
 * result is undefined when one is missing.
 */
export function walkObjects(root: object, path: readonly string[], create: true): JsonObject;
export function walkObjects(root: object, path: readonly string[], create?: boolean): JsonObject | undefined;
export function walkObjects(root: object, path: readonly string[], create = false): JsonObject | undefined {
  let node = root as JsonObject;
  for (const segment of path.slice(0, -1)) {
    const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (next === undefined && create) node[segment] = {};
    else if (next === undefined) return undefined;
    else if (!isObject(next)) {
      throw new Error(
        `${pointerOf(path)} goes through ${Array.isArray(next) ? 'a list' : 'a value'} at "${segment}": only object fields can be named`,
      );
    }
    node = node[segment] as JsonObject;
  }
  return node;
}
