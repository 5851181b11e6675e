import { writeFileSync } from 'node:fs';
import { toYamlStream } from '../synth/yaml';
import { installManifests } from '../controller/install/install';
import { KINDS_HELP, commandKinds, parseCommand } from './kinds';
import { isDns1123Label } from '../constructs/kit/names';
import { ARGOCD_CM } from '../controller/health/argocd';

const INSTALL_HELP = `Usage: reconstruct install [-o FILE | -o -] [--namespace NS] [--namespaces A,B] [--image IMAGE]
                         [--replicas N] [--sharding] [--service-monitor] [--cert-manager] [--previewer]
                         [--argocd-health [--argocd-namespace NS]] [--kinds MODULE]

Renders everything to run the operator in a cluster: the CRDs of its kinds, a Namespace, a
ServiceAccount, a ClusterRole granting exactly what the kinds need, a Role for the leader-election
Lease, the bindings, and the controller Deployment (two replicas, leader election, probes, restricted
security context), a Service in front of its metrics (port 8080, the names controller-runtime
and client-go export: controller_runtime_*, workqueue_*, rest_client_requests_total, ...), and a
NetworkPolicy that lets only pods of namespaces labelled metrics=enabled reach that port. With
--namespaces, the controller watches those namespaces only, and the grant agrees: a Role in each, and
cluster-wide only what is cluster-scoped. With --kinds, the Deployment runs the controller with the
same --kinds: the image must hold the module at that path. Each rule and why: docs/RBAC.md.

  kubectl apply -f <(reconstruct install -o -)

Options:
  -o, --output FILE   write to FILE (default: - , standard output)
  --namespace NS      namespace of the controller (default reconstruct-system)
  --namespaces A,B    watch and grant only these namespaces (they must exist); default all
  --image IMAGE       controller image (default reconstruct:<version>)
  --replicas N        controller replicas (default 2)
  --sharding          the replicas share the resources, each reconciling and caching the namespaces a
                      ring of Leases gives it (docs/SCALING.md); the lease Role also grants list, watch,
                      patch and delete of Leases
  --service-monitor   also a ServiceMonitor for the Prometheus Operator (its CRD must be installed)
  --cert-manager      the conversion webhook's certificate from cert-manager (installed): an Issuer,
                      a Certificate, the CRDs' caBundle injected; kinds with several versions only
  --previewer         also who may run \`reconstruct preview\` and write nothing: a ServiceAccount
                      reconstruct-previewer with the controller's rules on the kinds (a dry run is
                      authorized as its write) and a ValidatingAdmissionPolicy that refuses its every
                      write that is not a dry run (docs/RBAC.md, "The previewer")
  --argocd-health     also Argo CD's health checks for the kinds: its argocd-cm ConfigMap with one Lua
                      check per kind and no other key; apply it with --server-side, which keeps Argo
                      CD's other keys (docs/OPERATING.md, "In Argo CD and Flux")
  --argocd-namespace NS  Argo CD's namespace, for --argocd-health (default argocd)
${KINDS_HELP}
`;

export async function installCommand(argv: string[], version: string): Promise<number> {
  const parsed = parseCommand('install', INSTALL_HELP, argv, {
    output: { type: 'string', short: 'o' },
    namespace: { type: 'string' },
    namespaces: { type: 'string' },
    image: { type: 'string' },
    replicas: { type: 'string' },
    'service-monitor': { type: 'boolean' },
    'cert-manager': { type: 'boolean' },
    sharding: { type: 'boolean' },
    previewer: { type: 'boolean' },
    'argocd-health': { type: 'boolean' },
    'argocd-namespace': { type: 'string' },
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const replicas = values.replicas === undefined ? undefined : Number(values.replicas);
  if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 1)) {
    process.stderr.write(`reconstruct install: --replicas: "${values.replicas}" is not a positive integer\n`);
    return 2;
  }
  const namespaces = (values.namespaces ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const invalid = namespaces.find((n) => !isDns1123Label(n));
  if (invalid !== undefined || (values.namespaces !== undefined && namespaces.length === 0)) {
    process.stderr.write(
      `reconstruct install: --namespaces: "${invalid ?? values.namespaces}" is not a list of namespace names\n`,
    );
    return 2;
  }
  if (values['argocd-namespace'] !== undefined && values['argocd-health'] !== true) {
    process.stderr.write('reconstruct install: --argocd-namespace: only with --argocd-health\n');
    return 2;
  }
  if (values['argocd-namespace'] !== undefined && !isDns1123Label(values['argocd-namespace'])) {
    process.stderr.write(
      `reconstruct install: --argocd-namespace: "${values['argocd-namespace']}" is not a namespace name\n`,
    );
    return 2;
  }
  const kinds = await commandKinds('install', values);
  if (typeof kinds === 'number') return kinds;
  const kindArgs = [
    ...(values.kinds ?? []).map((m) => `--kinds=${m}`),
    ...(values['no-builtin-kinds'] ? ['--no-builtin-kinds'] : []),
  ];
  const yaml = toYamlStream(
    installManifests({
      kinds: kinds.kinds,
      controllerArgs: kindArgs,
      namespace: values.namespace,
      namespaces,
      image: values.image,
      replicas,
      serviceMonitor: values['service-monitor'] === true,
      certManager: values['cert-manager'] === true,
      sharding: values.sharding === true,
      previewer: values.previewer === true,
      ...(values['argocd-health'] === true
        ? { argocdHealth: { namespace: values['argocd-namespace'] ?? ARGOCD_CM.namespace } }
        : {}),
      version,
    }),
  );
  if (!values.output || values.output === '-') {
    process.stdout.write(yaml);
    return 0;
  }
  try {
    writeFileSync(values.output, yaml);
  } catch (err) {
    process.stderr.write(
      `reconstruct install: cannot write ${values.output}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
    );
    return 1;
  }
  return 0;
}
