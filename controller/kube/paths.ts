/** REST paths of the Kubernetes API, without a client: safe to import from anywhere, tests included. */

import type { ViewKind } from '../../constructs/kit/cluster-view';

/** Enough about a kind to build its REST paths: what the cluster view looks objects up by. */
export type ResourceType = ViewKind;

/**
 * The REST path of a collection, an object or one of its subresources:
 * `/api/v1/namespaces/ns/pods/name/status` or `/apis/group/version/plural`.
 * The namespace is left out for cluster-scoped kinds and, when undefined, for all-namespaces lists.
 */
export function resourcePath(
  type: ResourceType,
  namespace?: string,
  name?: string,
  subresource?: string,
): string {
  if (!type.apiVersion || !type.plural) {
    throw new Error(`resourcePath: apiVersion and plural are required, got ${JSON.stringify(type)}`);
  }
  if (subresource !== undefined && name === undefined) {
    throw new Error(`resourcePath: subresource "${subresource}" of ${type.plural} needs a name`);
  }
  const prefix = type.apiVersion.includes('/') ? `/apis/${type.apiVersion}` : `/api/${type.apiVersion}`;
  let path = prefix;
  if (type.namespaced && namespace !== undefined && namespace !== '') {
    path += `/namespaces/${encodeURIComponent(namespace)}`;
  }
  path += `/${type.plural}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key of caches and work queues. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits an objectKey back into its namespace (undefined when cluster-scoped) and name. */
export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
