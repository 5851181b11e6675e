/**
 * Deciding whether applying a desired object would change anything, without asking the API server, so
 * that a resync of a converged resource sends no write at all.
 *
 * Two checks, both needed: the live object must already hold every desired field (the API server adds
 * defaults and other managers add fields, so "contains", not "equals"); and the desired object must be
 * the one we applied last time, recorded as a hash annotation, because a field we stop wanting is still
 * "contained" in the live object and only a new apply makes server-side apply remove it.
 */
import { createHash } from 'node:crypto';
import type { Manifest } from '../../constructs/kit';
import { parseQuantity } from '../../constructs/kit/quantity';

/** The annotation holding the hash of the last applied desired object. */
export const APPLIED_HASH_ANNOTATION = 'reconstruct.dev/applied-hash';

type Json = unknown;

/**
 * `JSON.stringify(value)` with every object's keys in sorted order (UTF-16 code units, as `sort()`), and
 * members whose value is undefined left out: the same text whatever order the keys were set in. Written
 * out directly, without a sorted copy of the object to stringify (a third less time for a Deployment).
 */
function stableJson(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += stableJson(value[i] as Json);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, Json>;
  let out = '{';
  for (const key of Object.keys(obj).sort()) {
    const member = obj[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${stableJson(member)}`;
  }
  return `${out}}`;
}

/** A stable digest of a JSON value, independent of key order. */
export function hashObject(value: Json): string {
  return createHash('sha256').update(stableJson(value)).digest('hex').slice(0, 32);
}

/** The desired object as we apply it: with the annotation recording its own hash. */
export function withAppliedHash<T extends Manifest>(
  desired: T,
): T & { metadata: { annotations: Record<string, string> } } {
  const hash = hashObject(desired);
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      annotations: { ...desired.metadata.annotations, [APPLIED_HASH_ANNOTATION]: hash },
    },
  };
}

function isEmpty(value: Json): boolean {
  // Go's omitempty drops zero values, so the server returns no field where we sent 0, false or "".
  if (value === undefined || value === null || value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function sameScalar(desired: Json, live: Json): boolean {
  if (desired === live) return true;
  // The API server canonicalizes quantities ("1000m" -> "1") and int-or-string ports keep their type.
  if (
    (typeof desired === 'string' || typeof desired === 'number') &&
    (typeof live === 'string' || typeof live === 'number')
  ) {
    const a = parseQuantity(desired);
    const b = parseQuantity(live);
    return a !== undefined && b !== undefined && a.milli === b.milli && typeof desired === typeof live;
  }
  return false;
}

/**
 * Where `live` does not hold `desired`: the first path that differs, or undefined when every desired
 * field is there with an equal value. Empty desired values match absent live ones, as the server drops them.
 */
export function firstDifference(desired: Json, live: Json): string | undefined {
  const at = differenceAt(desired, live);
  return at && `/${at.reverse().join('/')}`;
}

/**
 * The path to the first difference, innermost segment first, or undefined: built only once one is found,
 * since every reconcile of a converged resource compares every field of every child and finds none.
 */
function differenceAt(desired: Json, live: Json): string[] | undefined {
  if (isEmpty(desired) && isEmpty(live)) return undefined;
  if (Array.isArray(desired)) {
    if (!Array.isArray(live) || live.length !== desired.length) return [];
    for (let i = 0; i < desired.length; i++) {
      const at = differenceAt(desired[i], live[i]);
      if (at) return [...at, String(i)];
    }
    return undefined;
  }
  if (desired && typeof desired === 'object') {
    if (!live || typeof live !== 'object' || Array.isArray(live)) return [];
    for (const key of Object.keys(desired)) {
      const at = differenceAt((desired as Record<string, Json>)[key], (live as Record<string, Json>)[key]);
      if (at) return [...at, key];
    }
    return undefined;
  }
  return sameScalar(desired, live) ? undefined : [];
}

/**
 * Whether applying `desired` (as returned by withAppliedHash) to `live` would change nothing: the
 * reason to apply, or undefined when it can be skipped.
 */
export function applyNeeded(
  desired: Pick<Manifest, 'metadata'>,
  live: Pick<Manifest, 'metadata'> | undefined,
): string | undefined {
  if (!live) return 'missing';
  if (
    live.metadata.annotations?.[APPLIED_HASH_ANNOTATION] !==
    desired.metadata.annotations?.[APPLIED_HASH_ANNOTATION]
  ) {
    return 'changed';
  }
  const diff = firstDifference(desired, live);
  return diff === undefined ? undefined : `drifted at ${diff}`;
}
