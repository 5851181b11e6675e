/**
 * What the controller does to a child's fields by its policy: fills in generated values when it creates
 * the child, and leaves out (or applies alone, to hand over) the fields another actor owns.
 */
import { randomInt } from 'node:crypto';
import { pointerOf, walkObjects, type JsonObject } from './json-pointer';
import { policyOf } from './policy-of';
import type { Manifest } from './resource';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random characters of `[A-Za-z0-9]`, from the crypto RNG, uniform (no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** A copy of `child` with its generated values filled in (fresh ones, each call). */
export function withGeneratedValues<T extends Manifest>(child: T): T {
  const { generate } = policyOf(child);
  if (generate.length === 0) return child;
  const copy = structuredClone(child);
  for (const { path, length } of generate) {
    walkObjects(copy, path, true)[path[path.length - 1]] = randomAlphanumeric(length);
  }
  return copy;
}

/** The JSON pointers of the values `child` has generated, for messages. */
export function generatedFields(child: Pick<Manifest, 'kind' | 'metadata'>): string[] {
  return policyOf(child).generate.map((g) => pointerOf(g.path));
}

/**
 * `child` without the fields at `paths` (pointers through objects). Throws when a path crosses a list: a
 * list item has no field owner of its own to hand the field to.
 */
export function withoutFields<T extends Manifest>(child: T, paths: readonly (readonly string[])[]): T {
  if (paths.length === 0) return child;
  const copy = structuredClone(child);
  for (const path of paths) {
    const holder = walkObjects(copy, path);
    if (holder) delete holder[path[path.length - 1]];
  }
  return copy;
}

/**
 * Just the fields at `paths` of `child` (with its apiVersion, kind, name and namespace): what another field
 * manager applies to keep them once the controller stops applying them (the hand-over the Kubernetes
 * server-side apply docs describe for an autoscaler's `spec.replicas`). Undefined when none is set.
 */
export function onlyFields(child: Manifest, paths: readonly (readonly string[])[]): Manifest | undefined {
  const out: JsonObject = {
    apiVersion: child.apiVersion,
    kind: child.kind,
    metadata: {
      name: child.metadata.name,
      ...(child.metadata.namespace ? { namespace: child.metadata.namespace } : {}),
    },
  };
  let any = false;
  for (const path of paths) {
    const field = path[path.length - 1];
    const holder = walkObjects(child, path);
    if (holder?.[field] === undefined) continue;
    walkObjects(out, path, true)[field] = structuredClone(holder[field]);
    any = true;
  }
  return any ? (out as Manifest) : undefined;
}
