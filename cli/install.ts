import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toYamlStream } from '../synth/yaml';
import { installManifests } from '../controller/install';
import { KINDS_FLAGS, KINDS_HELP, KindsError, loadKinds } from './kinds';

export const INSTALL_HELP = `Usage: reconstruct install [-o FILE | -o -] [--namespace NS] [--image IMAGE] [--replicas N] [--kinds MODULE]

Renders everything to run the operator in a cluster: the CRDs of its kinds, a Namespace, a
ServiceAccount, a ClusterRole granting exactly what the kinds need, a Role for the leader-election
Lease, the bindings, and the controller Deployment (two replicas, leader election, probes, restricted
security context). With --kinds, the Deployment runs the controller with the same --kinds: the image
must hold the module at that path.

  kubectl apply -f <(reconstruct install -o -)

Options:
  -o, --output FILE   write to FILE (default: - , standard output)
  --namespace NS      namespace of the controller (default reconstruct-system)
  --image IMAGE       controller image (default reconstruct:<version>)
  --replicas N        controller replicas (default 2)
${KINDS_HELP}
`;

export async function installCommand(argv: string[], version: string): Promise<number> {
  let values: {
    output?: string;
    namespace?: string;
    image?: string;
    replicas?: string;
    help?: boolean;
    kinds?: string[];
    'no-builtin-kinds'?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        output: { type: 'string', short: 'o' },
        namespace: { type: 'string' },
        image: { type: 'string' },
        replicas: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...KINDS_FLAGS,
      },
    }));
  } catch (e) {
    process.stderr.write(`reconstruct install: ${(e as Error).message}\n\n${INSTALL_HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(INSTALL_HELP);
    return 0;
  }
  const replicas = values.replicas === undefined ? undefined : Number(values.replicas);
  if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 1)) {
    process.stderr.write(`reconstruct install: --replicas: "${values.replicas}" is not a positive integer\n`);
    return 2;
  }
  const builtin = !values['no-builtin-kinds'];
  let kinds;
  try {
    kinds = await loadKinds({ modules: values.kinds, builtin });
  } catch (e) {
    if (!(e instanceof KindsError)) throw e;
    process.stderr.write(`reconstruct install: ${e.message}\n`);
    return 2;
  }
  const kindArgs = [
    ...(values.kinds ?? []).map((m) => `--kinds=${m}`),
    ...(builtin ? [] : ['--no-builtin-kinds']),
  ];
  const yaml = toYamlStream(
    installManifests({
      kinds: kinds.kinds,
      controllerArgs: kindArgs,
      namespace: values.namespace,
      image: values.image,
      replicas,
      version,
    }),
  );
  if (!values.output || values.output === '-') process.stdout.write(yaml);
  else writeFileSync(values.output, yaml);
  return 0;
}
