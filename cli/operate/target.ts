/**
 * What `reconstruct suspend`, `resume` and `reconcile` act on: `KIND/NAME`, or `KIND --all` (every resource
 * of the kind in the namespace, or in all with `-A`), read from the cluster of the kubeconfig in effect.
 */
import type { CustomResource, Kind } from '../../constructs/kit';
import { loadClient, type KubeClient } from '../../controller/kube/client';
import { KINDS_HELP, commandKinds, findKind } from '../kinds';
import { readResources } from '../tree/walk';

/** Where a command writes. */
export interface Io {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

export const TARGET_OPTIONS = {
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  all: { type: 'boolean' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;

export const TARGET_HELP = `  -n, --namespace NS    the namespace (default: default)
  --all                 every resource of KIND in the namespace (with -A: in every namespace)
  -A, --all-namespaces  with --all: every namespace
  --kubeconfig FILE     kubeconfig file [KUBECONFIG, then ~/.kube/config]
  --context NAME        kubeconfig context (default: its current context)
${KINDS_HELP}
  -h, --help            show this help`;

export interface Targets {
  readonly client: KubeClient;
  readonly definition: Kind;
  readonly resources: CustomResource[];
}

/** The values of TARGET_OPTIONS and the kinds flags, as parseArgs gives them. */
export interface TargetValues {
  namespace?: string;
  'all-namespaces'?: boolean;
  all?: boolean;
  kubeconfig?: string;
  context?: string;
  kinds?: string[];
  'no-builtin-kinds'?: boolean;
}

/** `name resource`, as the commands print it: `Memcached demo/cache`. */
export const label = (definition: Kind, r: CustomResource): string =>
  `${definition.kind} ${r.metadata.namespace ? `${r.metadata.namespace}/` : ''}${r.metadata.name}`;

/** The kind `word` names among the command's kinds; or exit status 2 once it said it names none. */
export async function kindOf(
  command: string,
  word: string,
  values: TargetValues,
  io: Io,
): Promise<Kind | number> {
  const kinds = await commandKinds(command, values, io);
  if (typeof kinds === 'number') return kinds;
  const definition = findKind(kinds, word);
  if (definition) return definition;
  io.err.write(`reconstruct ${command}: no kind "${word}" among ${kinds.describe()}\n`);
  return 2;
}

/**
 * The resources a command's arguments name, with the client to act on them; or the exit status once it
 * printed what is wrong (2 for a usage error or a cluster it cannot reach, 1 when nothing matches).
 */
export async function targets(
  command: string,
  help: string,
  { values, positionals }: { values: TargetValues; positionals: string[] },
  io: Io,
): Promise<Targets | number> {
  const [word, name] = (positionals[0] ?? '').split('/');
  if (positionals.length !== 1 || !word || (!name && !values.all) || (name && values.all)) {
    io.err.write(`reconstruct ${command}: give KIND/NAME, or KIND with --all\n\n${help}`);
    return 2;
  }
  const definition = await kindOf(command, word, values, io);
  if (typeof definition === 'number') return definition;
  const namespace = values['all-namespaces'] && !name ? undefined : (values.namespace ?? 'default');
  try {
    const client = loadClient({ kubeconfig: values.kubeconfig, context: values.context });
    const resources = await readResources(client, definition, namespace, name);
    if (resources.length === 0) {
      const where = namespace && definition.namespaced ? ` in ${namespace}` : '';
      io.err.write(`reconstruct ${command}: no ${definition.kind}${name ? ` ${name}` : ''}${where}\n`);
      return 1;
    }
    return { client, definition, resources };
  } catch (e) {
    io.err.write(`reconstruct ${command}: ${(e as Error).message}\n`);
    return 2;
  }
}
