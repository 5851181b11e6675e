/**
 * The dev loop's CRDs: a build's CRD is installed when it changed and the cluster can take it. Whether it
 * can is what `reconstruct preview` checks before a release (../preview/schema.ts): every live object the
 * new schema would refuse, and versions objects are stored in that the build no longer serves. Then it
 * waits: the running build keeps running until an edit (of the kinds or of the samples) makes it fit.
 */
import type { CustomResource, Kind } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { isNotFound } from '../../controller/kube/errors';
import { sleep } from '../../controller/abortable';
import { schemaRefusal, storedNotServed } from '../preview/schema';
import { readResources } from '../tree/walk';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
/** The dev loop's field manager, for its CRDs and samples. */
export const DEV_FIELD_MANAGER = 'reconstruct-dev';

/** Why the cluster cannot take a kind's new CRD: one line per refused object or unserved version. */
export async function crdRefusals(client: KubeClient, definition: Kind): Promise<string[]> {
  const out: string[] = [];
  const unserved = await storedNotServed(client, definition);
  if (unserved.length > 0)
    out.push(
      `objects are stored as ${unserved.join(', ')}, which this build no longer serves ` +
        `(reconstruct migrate ${definition.plural} moves them)`,
    );
  let live: CustomResource[] = [];
  try {
    live = await readResources(client, definition, undefined);
  } catch (err) {
    if (!isNotFound(err)) throw err; // not installed yet: nothing stored to refuse
  }
  for (const resource of live) {
    const refused = schemaRefusal(definition, resource);
    const { namespace, name } = resource.metadata;
    if (refused) out.push(`${definition.kind} ${namespace ? `${namespace}/` : ''}${name}: ${refused}`);
  }
  return out;
}

/** Applies a kind's CRD (server-side, forced: the dev loop owns it here) and waits until it is served. */
export async function installCrd(client: KubeClient, definition: Kind, timeoutMs = 30_000): Promise<void> {
  const { name } = definition.crd.metadata;
  await client.request({
    method: 'PATCH',
    path: `${CRDS}/${name}`,
    query: { fieldManager: DEV_FIELD_MANAGER, force: true },
    body: definition.crd,
    contentType: 'application/apply-patch+yaml',
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.request<{ status?: { conditions?: { type: string; status: string }[] } }>({
      method: 'GET',
      path: `${CRDS}/${name}`,
    });
    if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline)
      throw new Error(`the CRD ${name} was not established after ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** The kinds of `kinds` whose CRD differs from the one installed last (`installed`, by CRD name). */
export function changedCrds(kinds: readonly Kind[], installed: ReadonlyMap<string, string>): Kind[] {
  return kinds.filter((k) => installed.get(k.crd.metadata.name) !== JSON.stringify(k.crd));
}
