/**
 * A name too long for a kind is refused by the API server on `metadata.name`, in the words the offline
 * renderer uses: the kit's CEL rule carries `fieldPath: .metadata.name` (the CRD declares the field for
 * it), so `reconstruct synth` and `kubectl apply` say the same thing about the same field.
 */
import { builtinKinds } from '../../constructs/builtin';
import { loadClient } from '../../controller/kube/client';
import { ApiError } from '../../controller/kube/errors';
import { resourcePath } from '../../controller/kube/paths';
import type { CustomResource } from '../../constructs/kit';
import { readDocuments } from '../../synth/read';
import { renderResources } from '../../synth/render';

const client = loadClient();
const samples = readDocuments([`${__dirname}/../../samples`]).documents.map((d) => d.value as CustomResource);

describe.each(builtinKinds.map((kind) => [kind.kind, kind] as const))('a %s named too long', (_, kind) => {
  it('is refused on metadata.name by the API server as offline', async () => {
    const sample = structuredClone(
      samples.find((s) => s.kind === kind.kind && s.apiVersion === kind.apiVersion)!,
    );
    sample.metadata = {
      ...sample.metadata,
      name: 'n'.repeat(kind.maxNameLength + 1),
      namespace: kind.namespaced ? 'default' : undefined,
    };
    const offline = renderResources([sample], { kinds: builtinKinds }).problems.filter(
      (p) => p.field === 'metadata.name',
    );
    // The kit's rule, and a kind's own where it has one (NodePool's 53).
    expect(offline.length).toBeGreaterThan(0);
    for (const p of offline) expect(p.message).toMatch(/^Invalid value: must be at most \d+ characters: /);
    const refused = await client
      .request({
        method: 'POST',
        path: resourcePath(kind, kind.namespaced ? 'default' : undefined),
        query: { dryRun: 'All' },
        body: sample,
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(ApiError);
    const causes =
      ((refused as ApiError).body as { details?: { causes?: { field: string; message: string }[] } }).details
        ?.causes ?? [];
    expect(causes.filter((c) => c.field === 'metadata.name').map((c) => c.message)).toEqual(
      offline.map((p) => p.message),
    );
  });
});
