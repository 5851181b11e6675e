/**
 * The one key of an object across the controller (work queue, reconciler state, blocked and pruned
 * children): `<apiVersion>/<Kind>/<namespace>/<name>`, the namespace empty for cluster-scoped objects.
 * Neither a namespace nor a name can hold a `/`, so the key splits back from the right.
 */
import type { ApiKind } from '../../constructs/kit';

export const objectKey = (
  type: Pick<ApiKind, 'apiVersion' | 'kind'>,
  namespace: string | undefined,
  name: string,
): string => `${type.apiVersion}/${type.kind}/${namespace ?? ''}/${name}`;

/** The parts of an objectKey. */
export function parseObjectKey(key: string): {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
} {
  const parts = key.split('/');
  const [kind, namespace, name] = parts.slice(-3);
  return { apiVersion: parts.slice(0, -3).join('/'), kind, namespace: namespace || undefined, name };
}

/** The `<apiVersion>/<Kind>` part of an objectKey: the kind its object is of. */
export function kindOfKey(key: string): string {
  const name = key.lastIndexOf('/');
  return key.slice(0, key.lastIndexOf('/', name - 1));
}
