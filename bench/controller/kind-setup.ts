/**
 * What a benchmark of a kind of its own sets up first: the kind's CRD (established), a namespace of its
 * own, and the reconstruct controller running that kind's module alone.
 */
import type { Kind } from '../../constructs/kit';
import { CUSTOM_RESOURCE_DEFINITION, NAMESPACE } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { resourcePath } from '../../controller/kube/paths';
import { applyRequest } from '../../controller/kube/writer';
import { ControllerProcess } from './controller-process';
import { reconstructUnderTest } from './reconstruct';
import { until } from './support';

/** Applies `kind`'s CRD and waits (a minute at most) for it to be established, then the namespace. */
export async function installKind(
  client: KubeClient,
  kind: Kind,
  namespace: string,
  fieldManager: string,
): Promise<void> {
  const apply = (path: string, body: unknown) => client.request(applyRequest(path, body, fieldManager));
  const crdPath = resourcePath(CUSTOM_RESOURCE_DEFINITION, undefined, kind.crd.metadata.name);
  await apply(crdPath, kind.crd);
  const established = await until(async () => {
    const crd = await client.request<{ status?: { conditions?: { type: string; status: string }[] } }>({
      method: 'GET',
      path: crdPath,
    });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
  }, 60_000);
  if (!established) throw new Error(`the ${kind.kind} CRD was not established within a minute`);
  await apply(resourcePath(NAMESPACE, undefined, namespace), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
}

/** The controller (4 workers, a resync of a day) running the kinds of `kindsModule` alone in `namespace`. */
export function startWithKinds(
  kindsModule: string,
  kind: string,
  namespace: string,
): Promise<ControllerProcess> {
  const target = reconstructUnderTest();
  return ControllerProcess.start(
    {
      ...target,
      name: `reconstruct with ${kind}`,
      async launch(options) {
        const launch = await target.launch(options);
        return { ...launch, args: [...launch.args, '--no-builtin-kinds', '--kinds', kindsModule] };
      },
    },
    { namespace, workers: 4, resyncSeconds: 86_400 },
  );
}
