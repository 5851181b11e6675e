import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { installManifests } from '../controller/install';

export const INSTALL_HELP = `Usage: reconstruct install [-o FILE | -o -] [--namespace NS] [--image IMAGE] [--replicas N]

Renders everything to run the operator in a cluster: the CRDs, a Namespace, a ServiceAccount, a
least-privilege ClusterRole, a Role for the leader-election Lease, the bindings, and the controller
Deployment (two replicas, leader election, probes, restricted security context).

  kubectl apply -f <(reconstruct install -o -)

Options:
  -o, --output FILE   write to FILE (default: - , standard output)
  --namespace NS      namespace of the controller (default reconstruct-system)
  --image IMAGE       controller image (default reconstruct:<version>)
  --replicas N        controller replicas (default 2)
`;

export function installCommand(argv: string[], version: string): number {
  let values: { output?: string; namespace?: string; image?: string; replicas?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        output: { type: 'string', short: 'o' },
        namespace: { type: 'string' },
        image: { type: 'string' },
        replicas: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
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
  const yaml = installManifests({ namespace: values.namespace, image: values.image, replicas, version })
    .map((m) => stringify(m, { lineWidth: 0 }))
    .join('---\n');
  if (!values.output || values.output === '-') process.stdout.write(yaml);
  else writeFileSync(values.output, yaml);
  return 0;
}
