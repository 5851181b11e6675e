/**
 * Equality of JSON values, whatever the order of their keys and whatever realm made them: Node's
 * isDeepStrictEqual compares prototypes, so under jest (whose tests run in a realm of their own) an array a
 * kind's code made and one structuredClone made are not equal to it. The kit compares what kinds give it
 * (conversions, external observations) with this instead.
 */
type Json = unknown;

/** A value as JSON.stringify sees it: toJSON() called (a Date), a non-finite number or undefined as null. */
function asJson(value: Json): Json {
  if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return null;
  if (value === null || typeof value !== 'object') return value;
  const { toJSON } = value as { toJSON?: unknown };
  return typeof toJSON === 'function' ? (toJSON as () => Json).call(value) : value;
}

/**
 * Whether two values are the same JSON, whatever the order of their keys: a status computed now against
 * the one the API server holds (undefined members left out, a Date as its string, as written).
 */
export function sameJson(a: Json, b: Json): boolean {
  const x = asJson(a);
  const y = asJson(b);
  if (x === y) return true;
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    return x.every((v, i) => sameJson(v as Json, y[i] as Json));
  }
  const xs = x as Record<string, Json>;
  const ys = y as Record<string, Json>;
  const keys = Object.keys(xs).filter((k) => xs[k] !== undefined);
  return (
    keys.length === Object.keys(ys).filter((k) => ys[k] !== undefined).length &&
    keys.every((k) => sameJson(xs[k], ys[k]))
  );
}
