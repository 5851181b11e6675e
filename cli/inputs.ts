/**
 * `reconstruct inputs KIND[/NAME]`: the observed inputs of live resources, read from the cluster as the
 * controller reads them, written as the inputs file `reconstruct synth --inputs` takes. Rendering offline
 * with it gives what the controller applies; a GitOps pipeline can keep it beside the resources.
 */
import { stringify } from 'yaml';
import {
  resolveInputs,
  type ApiKind,
  type CustomResource,
  type Kind,
  type KubeObject,
} from '../constructs/kit';
import { inputReads } from '../constructs/kit/inputs/resolve';
import { loadClient, type KubeClient } from '../controller/kube/client';
import { isForbidden } from '../controller/kube/errors';
import { objectKey } from '../controller/kube/object-key';
import { KubeWriter } from '../controller/kube/writer';
import { describe } from '../synth/render';
import { KINDS_HELP, READ_OPTIONS, commandKinds, noneFound, parseCommand, targetOf } from './kinds';
import { readResources } from './tree/walk';

const INPUTS_HELP = `Usage: reconstruct inputs KIND[/NAME] [-n NAMESPACE | -A] [--kubeconfig FILE] [--context NAME]
                        [--kinds MODULE]

Reads the observed inputs of live resources (their children's status, the ConfigMaps, Secrets and
objects their spec names) as the controller reads them, and prints them as the inputs file that
'reconstruct synth --inputs FILE' takes: rendering offline with it gives what the controller applies.
An input not known yet is a comment saying why. KIND is the kind, its plural, singular or a short name;
without NAME, every resource of the kind.

Options:
  -n, --namespace NS    the namespace (default: default)
  -A, --all-namespaces  every namespace (without NAME)
  --kubeconfig FILE     kubeconfig file [KUBECONFIG, then ~/.kube/config]
  --context NAME        kubeconfig context (default: its current context)
${KINDS_HELP}
  -h, --help            show this help

A Secret's key is printed as its value: keep the file where the Secret itself may go. What a kind's
external work observed is the controller's own and is not read here: such an input is a comment.

Exit status: 0 when every input shown is known, 1 when one is not (or no resource was found), 2 on an error.
`;

/** One resource's inputs: the values read, and why each other one is not known. */
export interface LiveInputs {
  /** As the inputs file names it: `KIND/NAMESPACE/NAME` or `KIND/NAME`. */
  readonly resource: string;
  readonly values: Record<string, string | number>;
  readonly missing: Record<string, string>;
}

/** The resource's inputs as the cluster has them now: each object its inputs read, by a GET. */
export async function liveInputs(
  client: KubeClient,
  definition: Kind,
  resource: CustomResource,
): Promise<LiveInputs> {
  const reader = new KubeWriter(client, 'reconstruct');
  const objects = new Map<string, KubeObject | undefined>();
  const forbidden: Record<string, string> = {};
  for (const read of inputReads(definition.inputs, resource)) {
    const key = objectKey(read.type, read.namespace, read.name);
    if (objects.has(key)) continue;
    try {
      objects.set(key, await reader.read<KubeObject>(read.type, read.namespace, read.name));
    } catch (err) {
      if (!isForbidden(err)) throw err;
      objects.set(key, undefined);
      forbidden[read.input] = `you may not read ${read.type.kind} ${read.name}`;
    }
  }
  const lookup = (type: ApiKind, namespace: string | undefined, name: string) =>
    objects.get(objectKey(type, namespace, name));
  const resolved = resolveInputs(definition.inputs, resource, lookup);
  const missing: Record<string, string> = { ...resolved.missing, ...forbidden };
  for (const [name, input] of Object.entries(definition.inputs)) {
    if (input.from === 'external')
      missing[name] = "what the kind's external work observed (the controller's own)";
  }
  return { resource: describe(resource), values: { ...resolved.values }, missing };
}

/** The inputs file: each resource and its known values, then a comment for each input not known. */
export function formatInputs(all: readonly LiveInputs[]): string {
  return all
    .map((r) => {
      const notes = Object.entries(r.missing).map(([name, why]) => `  # ${name}: not known: ${why}\n`);
      return stringify({ [r.resource]: r.values }, { lineWidth: 0 }) + notes.join('');
    })
    .join('');
}

export async function inputsCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const io = { out, err };
  const parsed = parseCommand('inputs', INPUTS_HELP, argv, READ_OPTIONS, io, true);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    err.write(`reconstruct inputs: give one KIND or KIND/NAME\n\n${INPUTS_HELP}`);
    return 2;
  }
  const kinds = await commandKinds('inputs', values, io);
  if (typeof kinds === 'number') return kinds;
  const target = targetOf('inputs', positionals[0], values, kinds, err);
  if (typeof target === 'number') return target;
  const { definition, name, namespace } = target;
  if (Object.keys(definition.inputs).length === 0) {
    err.write(`reconstruct inputs: ${definition.kind} declares no inputs\n`);
    return 2;
  }
  try {
    const client = loadClient({ kubeconfig: values.kubeconfig, context: values.context });
    const resources = await readResources(client, definition, namespace, name);
    if (resources.length === 0) {
      err.write(`reconstruct inputs: ${noneFound(target)}\n`);
      return 1;
    }
    const all: LiveInputs[] = [];
    for (const r of resources) all.push(await liveInputs(client, definition, r));
    out.write(formatInputs(all));
    return all.every((r) => Object.keys(r.missing).length === 0) ? 0 : 1;
  } catch (e) {
    err.write(`reconstruct inputs: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
}
