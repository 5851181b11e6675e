/**
 * The new build's CRD against what the cluster stores: each live object checked by the new schema (every
 * served version, CEL rules included) as the API server would check it on create (constructs/kit/validate),
 * and the versions objects are still stored in that the new build no longer serves.
 */
import type { CustomResource, Kind } from '../../constructs/kit';
import { validateResource } from '../../constructs/kit/validate';
import type { KubeClient } from '../../controller/kube/client';
import { isForbidden, isNotFound } from '../../controller/kube/errors';

/** The object as a user would apply it again: no status, none of the API server's own metadata. */
function asApplied(resource: CustomResource): CustomResource {
  const { name, namespace, labels, annotations } = resource.metadata;
  return {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
    },
    spec: resource.spec,
  };
}

/**
 * Why the new build's schema refuses the stored object `resource` (read at the build's hub version), each
 * error as the API server words it, the version named when it is not the hub; undefined when it admits it
 * in every version it serves. The API server ratchets an update that leaves such a field unchanged, so the
 * object stays; the next change of the field is refused.
 */
export function schemaRefusal(definition: Kind, resource: CustomResource): string | undefined {
  const errors: string[] = [];
  for (const version of definition.versions.filter((v) => v.served)) {
    const apiVersion = `${definition.group}/${version.name}`;
    let object: CustomResource;
    try {
      object = definition.convert(asApplied(resource), apiVersion);
    } catch (err) {
      errors.push(`${version.name}: cannot convert: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const prefix = version.hub ? '' : `${version.name}: `;
    for (const e of validateResource(definition.crd, object).errors) {
      errors.push(`${prefix}${e.field ? `${e.field}: ` : ''}${e.message}`);
    }
  }
  return errors.length > 0 ? [...new Set(errors)].join('; ') : undefined;
}

/**
 * The versions the cluster's CRD of `definition` says objects are stored in (`status.storedVersions`) that
 * the new build does not serve: objects the API server could no longer read once it is installed. None
 * when the CRD is not installed or may not be read.
 */
export async function storedNotServed(client: KubeClient, definition: Kind): Promise<string[]> {
  let crd: { status?: { storedVersions?: string[] } };
  try {
    crd = await client.request({
      method: 'GET',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${definition.crd.metadata.name}`,
    });
  } catch (err) {
    // Not installed, or not ours to read (a previewer may not get CRDs): nothing known, not a failure.
    if (isNotFound(err) || isForbidden(err)) return [];
    throw err;
  }
  const served = new Set(definition.versions.filter((v) => v.served).map((v) => v.name));
  return (crd.status?.storedVersions ?? []).filter((v) => !served.has(v));
}
