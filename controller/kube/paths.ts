/** REST paths of the Kubernetes API, without a client: safe to import from anywhere, tests included. */

import type { ApiKind } from '../../constructs/kit/api-kind';

/**
 * The REST path of a collection, an object or one of its subresources:
 * `/api/v1/namespaces/ns/pods/name/status` or `/apis/group/version/plural`.
 * The namespace is left out for cluster-scoped kinds and, when undefined, for all-namespaces lists.
 */
export function resourcePath(type: ApiKind, namespace?: string, name?: string, subresource?: string): string {
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
