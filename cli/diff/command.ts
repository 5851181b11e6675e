/**
 * `reconstruct diff`: for resource files and the cluster of the kubeconfig in effect, what applying them
 * would change and what the controller would then change, as a unified diff like `kubectl diff` (and its
 * exit status: 0 no change, 1 changes, 2 an error).
 */
import { createTwoFilesPatch } from 'diff';
import type { KubeObject } from '../../constructs/kit';
import { planChanges, type PlannedChange } from './dry-run';
import { loadClient } from '../../controller/kube/client';
import { formatProblem } from '../../synth/problem';
import { readDocuments } from '../../synth/read';
import { describe, renderAll } from '../../synth/render';
import { toYaml } from '../../synth/yaml';
import { KINDS_HELP, commandKinds, parseCommand } from '../kinds';

const DIFF_HELP = `Usage: reconstruct diff PATH... [-n NAMESPACE] [--kubeconfig FILE] [--context NAME]
                      [--field-manager NAME] [--kinds MODULE]

Shows what applying the custom resources in PATH would change in the cluster of the kubeconfig in
effect, and what the controller would then change: each resource as \`kubectl apply --server-side\` would
store it, and each child the controller would create, update or delete, as the controller decides it (its
child policies, what it owns, what it prunes), each write a server-side dry run (dryRun=All), so the API
server's defaults and admission are in the result. Nothing is changed. The output is a unified diff per
object, as \`kubectl diff\` prints it; Secret values are masked; status is not shown.

A kind with work outside Kubernetes (a provider's record, a database's user) has its object observed,
read-only, and what the controller would do to it shown on a line of its own
(\`DnsRecord/www: external: would update DNS record www: ttl: 300 -> 600\`); its apply and delete are
never called. An object that cannot be observed is an error (exit status 2).

PATH is a YAML file, a folder of them, or - for standard input, as for \`reconstruct synth\`. Documents
that are not resources of a known kind are left out (use \`kubectl diff\` for them).

Options:
  -n, --namespace NS     namespace for namespaced resources that name none (default: default)
  --kubeconfig FILE      kubeconfig file [KUBECONFIG, then ~/.kube/config]
  --context NAME         kubeconfig context (default: its current context)
  --field-manager NAME   the controller's field manager, as it runs (default: reconstruct)
${KINDS_HELP}
  -h, --help             show this help

Exit status: 0 when nothing would change, 1 when something would, 2 on an error (an invalid resource,
a refused dry run, no cluster).
`;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** What a diff should not show: what the API server keeps for itself, and status. */
export function comparable(obj: KubeObject | undefined): unknown {
  if (!obj) return undefined;
  const metadata: Record<string, unknown> = { ...obj.metadata };
  for (const field of ['managedFields', 'resourceVersion', 'generation', 'creationTimestamp', 'uid']) {
    delete metadata[field];
  }
  // Client-side apply's bookkeeping, which a server-side apply rewrites: not a change of what is wanted.
  const annotations = { ...obj.metadata.annotations };
  delete annotations[LAST_APPLIED];
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  // apiVersion, kind and metadata first, as the API server lists objects (a dry run answers kind first).
  const copy: Record<string, unknown> = { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
  for (const [key, value] of Object.entries(obj)) if (!(key in copy) && key !== 'status') copy[key] = value;
  return copy;
}

/** Secret values masked as kubectl diff masks them: equal values alike, changed ones told apart. */
function masked(before: unknown, after: unknown): [unknown, unknown] {
  const mask = (obj: unknown, other: unknown, side: string) => {
    if (!obj || (obj as KubeObject).kind !== 'Secret') return obj;
    const copy = structuredClone(obj) as Record<string, Record<string, string> | undefined>;
    for (const field of ['data', 'stringData']) {
      const values = copy[field];
      if (!values) continue;
      const others = (other as Record<string, Record<string, string> | undefined> | undefined)?.[field] ?? {};
      for (const key of Object.keys(values)) {
        values[key] = values[key] === others[key] ? '***' : `*** (${side})`;
      }
    }
    return copy;
  };
  return [mask(before, after, 'before'), mask(after, before, 'after')];
}

/** `<group>.<version>.<Kind>.<namespace>.<name>`, kubectl diff's file name for an object. */
function fileName(change: PlannedChange): string {
  const [group, version] = change.type.apiVersion.includes('/')
    ? change.type.apiVersion.split('/')
    : ['', change.type.apiVersion];
  return [group, version, change.type.kind, change.namespace, change.name].filter(Boolean).join('.');
}

/**
 * The unified diff of one change, or '' when the object would not change; its sides named as `kubectl
 * diff` names them (live, merged) unless told (an offline preview compares an old build with a new one).
 */
export function formatChange(
  change: PlannedChange,
  sides: readonly [string, string] = ['live', 'merged'],
): string {
  const [before, after] = masked(comparable(change.before), comparable(change.after));
  const from = before === undefined ? '' : toYaml(before);
  const to = after === undefined ? '' : toYaml(after);
  if (from === to) return '';
  const name = fileName(change);
  const [a, b] = [`${sides[0]}/${name}`, `${sides[1]}/${name}`];
  const patch = createTwoFilesPatch(a, b, from, to, '', '', { context: 3 });
  return `diff -u -N ${a} ${b}\n${patch.replace(/^=+\n/, '')}`;
}

export async function diffCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
  stdin?: () => string,
): Promise<number> {
  const io = { out, err };
  const parsed = parseCommand(
    'diff',
    DIFF_HELP,
    argv,
    {
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      'field-manager': { type: 'string' },
    },
    io,
    true,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length === 0) {
    err.write(`reconstruct diff: no PATH given\n\n${DIFF_HELP}`);
    return 2;
  }
  const kinds = await commandKinds('diff', values, io);
  if (typeof kinds === 'number') return kinds;
  const { documents, problems: readProblems } = readDocuments(positionals, stdin);
  const { rendered, outputs, problems } = renderAll(documents, {
    kinds,
    namespace: values.namespace ?? 'default',
    includeGenerated: false,
    unknown: 'pass',
  });
  const allProblems = [...readProblems, ...problems];
  for (const p of allProblems) err.write(`${formatProblem(p)}\n`);
  const passed = outputs.length - rendered.length;
  if (passed > 0) err.write(`left out ${passed} document(s) that are not resources of a known kind\n`);

  let client;
  try {
    client = loadClient({ kubeconfig: values.kubeconfig, context: values.context });
  } catch (e) {
    err.write(`reconstruct diff: ${(e as Error).message}\n`);
    return 2;
  }
  let changed = false;
  let failed = allProblems.length > 0;
  for (const r of rendered) {
    try {
      const { changes, external } = await planChanges(client, r.kind, r.resource, {
        fieldManager: values['field-manager'],
      });
      for (const change of changes) {
        const text = formatChange(change);
        if (text === '') continue;
        changed = true;
        out.write(text);
      }
      if (external?.error) {
        failed = true;
        err.write(`${r.file}: ${describe(r.resource)}: external: ${external.error}\n`);
      } else if (external?.change) {
        changed = true;
        out.write(`${r.kind.kind}/${r.resource.metadata.name}: external: ${external.change}\n`);
      }
    } catch (e) {
      failed = true;
      err.write(`${r.file}: ${describe(r.resource)}: ${(e as Error).message}\n`);
    }
  }
  return failed ? 2 : changed ? 1 : 0;
}
