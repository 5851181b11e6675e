/** JSON merge patch (RFC 7386), as the API server applies `application/merge-patch+json`. */
import { isObject } from '../../constructs/kit/defaults';

/** `patch` applied to a copy of `target`: objects merge key by key, `null` removes, anything else replaces. */
export function mergePatched(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatched(out[key], value);
  }
  return out;
}
