/**
 * `reconstruct preview`: what a new build of kinds would do to every live resource of them (fleet.ts), or,
 * with `--offline --from OLD_MODULE`, what it changes against an old build on files (offline.ts); printed
 * by report.ts, with `kubectl diff`'s exit status.
 */
import type { Kind, KindRegistry } from '../../constructs/kit';
import { loadClient } from '../../controller/kube/client';
import { readInputsFile } from '../../synth/inputs';
import { formatProblem } from '../../synth/problem';
import { readDocuments } from '../../synth/read';
import { KINDS_HELP, commandKinds, findKind, parseCommand } from '../kinds';
import { outcomeOf, previewFleet, type ResourcePreview } from './fleet';
import { previewOffline } from './offline';
import { formatResource, formatSummary, formatTrouble, summarize, toJson, toMarkdown } from './report';

const PREVIEW_HELP = `Usage: reconstruct preview --kinds NEW_MODULE [KIND...] [-l SELECTOR] [-n NS | -A]
                         [-o text|json|markdown] [--concurrency N] [--kubeconfig FILE] [--context NAME]
       reconstruct preview --offline --from OLD_MODULE --kinds NEW_MODULE PATH... [--inputs FILE]

Shows what a new build of kinds (its constructs, child policies, inputs) would do to the resources
already in the cluster of the kubeconfig in effect, before it ships: every live resource of the kinds is
rendered by the new build with its live inputs, and each child the controller would then create, update,
prune or replace is found as the controller decides it, by a server-side dry run (dryRun=All) under its
field manager, so the API server's defaults and admission count. Nothing is written; a kind's external
work is observed, never applied. Secret values are masked. Each live object is also checked against the
new build's CRD schema (every version it serves, CEL rules included) as the API server checks a create:
one it refuses would fail (the API server keeps it, and refuses the next change of the field). Versions
objects are still stored in that the new build no longer serves are an error; children that change while
the build's revision stays the same, a warning.

It needs to read the kinds and their children and the rights of the writes it dry-runs (the API server
authorizes a dry run as its write): \`reconstruct install --previewer\` renders an identity that has them
and may only dry-run (docs/RBAC.md, "The previewer").

KIND names kinds of NEW_MODULE (default: all of them; without --kinds, the built-in kinds of this
package: what upgrading the operator would do). A kind whose CRD the cluster does not serve is skipped
with a note, or an error when named.

With --offline, no cluster: the resources in PATH (YAML files, folders, - for standard input) are
rendered by OLD_MODULE's kinds and by NEW_MODULE's, and their children compared. The API server's
defaults, immutable fields and live inputs (give them with --inputs) are not in it.

Output (-o): text (default): each change as \`kubectl diff\` prints it, then the summary: resources
unchanged, changed, that would fail, and children created, updated, pruned, replaced, with the fields
changed most; json: the summary and each resource that is not unchanged; markdown: the summary as tables
and each changed resource's diff folded, for a pull request's comment.

Options:
  -l, --selector SEL     only the resources this label selector matches
  -n, --namespace NS     the namespace (default: every namespace)
  -A, --all-namespaces   every namespace (the default; kept for kubectl's habit)
  -o, --output FORMAT    text, json or markdown (default: text)
  --concurrency N        resources previewed at once (default: 8)
  --field-manager NAME   the controller's field manager, as it runs (default: reconstruct)
  --kubeconfig FILE      kubeconfig file [KUBECONFIG, then ~/.kube/config]
  --context NAME         kubeconfig context (default: its current context)
  --offline              compare two builds on files, without a cluster
  --from MODULE          with --offline: the old build's kinds
  --inputs FILE          with --offline: the values of resources' observed inputs (as synth takes)
${KINDS_HELP}
  -h, --help             show this help

Exit status: 0 when nothing would change, 1 when something would, 2 when a resource would fail under
the new build (an apply the API server refuses, an invalid spec) or could not be previewed, or on an
error (no cluster, a kind not served).
`;

const OPTIONS = {
  selector: { type: 'string', short: 'l' },
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  output: { type: 'string', short: 'o' },
  concurrency: { type: 'string' },
  'field-manager': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  offline: { type: 'boolean' },
  from: { type: 'string' },
  inputs: { type: 'string' },
} as const;

const FORMATS = new Set(['text', 'json', 'markdown']);

interface Io {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

/** The kinds KIND... names among the new build's, or the exit status once it said which is unknown. */
function chosenKinds(
  words: readonly string[],
  registry: KindRegistry,
  err: NodeJS.WritableStream,
): Kind[] | number {
  if (words.length === 0) return [...registry.kinds];
  const chosen: Kind[] = [];
  for (const word of words) {
    const kind = findKind(registry, word);
    if (!kind) {
      err.write(`reconstruct preview: no kind "${word}" among ${registry.describe()}\n`);
      return 2;
    }
    if (!chosen.includes(kind)) chosen.push(kind);
  }
  return chosen;
}

/** Prints the preview in `format`; its exit status. */
function report(
  resources: readonly ResourcePreview[],
  format: string,
  what: string,
  { out, err }: Io,
): number {
  const summary = summarize(resources);
  if (format === 'json') out.write(`${JSON.stringify(toJson(resources, summary), null, 2)}\n`);
  else if (format === 'markdown') out.write(toMarkdown(resources, summary, what));
  else {
    for (const r of resources) out.write(formatResource(r));
    for (const r of resources) err.write(formatTrouble(r));
    out.write(formatSummary(summary, what));
  }
  const outcomes = resources.map(outcomeOf);
  if (outcomes.some((o) => o === 'failed' || o === 'error')) return 2;
  return outcomes.includes('changed') ? 1 : 0;
}

/** `previewing 120/300` on a terminal, rewritten in place; nothing on a pipe. */
function progressOn(err: NodeJS.WritableStream): ((done: number, total: number) => void) | undefined {
  if (!(err as { isTTY?: boolean }).isTTY) return undefined;
  return (done, total) => err.write(`\rpreviewing ${done}/${total}${done === total ? '\r\x1b[K' : ''}`);
}

export async function previewCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
  stdin?: () => string,
): Promise<number> {
  const io = { out, err };
  const parsed = parseCommand('preview', PREVIEW_HELP, argv, OPTIONS, io, true);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const format = values.output ?? 'text';
  const concurrency = values.concurrency === undefined ? 8 : Number(values.concurrency);
  const usage = !FORMATS.has(format)
    ? `-o ${format}: give text, json or markdown`
    : !Number.isInteger(concurrency) || concurrency < 1
      ? `--concurrency ${values.concurrency}: give a whole number of 1 or more`
      : values.offline && !values.from
        ? '--offline needs --from OLD_MODULE, the build to compare with'
        : values.offline && positionals.length === 0
          ? '--offline needs the resource files (PATH...)'
          : !values.offline && (values.from || values.inputs)
            ? '--from and --inputs go with --offline (live, the cluster has both)'
            : undefined;
  if (usage) {
    err.write(`reconstruct preview: ${usage}\n\n${PREVIEW_HELP}`);
    return 2;
  }
  const kinds = await commandKinds('preview', values, io, 'without-modules');
  if (typeof kinds === 'number') return kinds;
  const what = kinds.kinds.map((k) => k.kind).join(', ');

  if (values.offline) {
    const old = await commandKinds(
      'preview',
      { kinds: [values.from as string], 'no-builtin-kinds': true },
      io,
    );
    if (typeof old === 'number') return old;
    const inputs = values.inputs === undefined ? undefined : readInputsFile(values.inputs);
    if (inputs && 'message' in inputs) {
      err.write(`${formatProblem(inputs)}\n`);
      return 2;
    }
    const { documents, problems: readProblems } = readDocuments(positionals, stdin);
    const { resources, problems } = previewOffline(documents, old, kinds, {
      namespace: values.namespace ?? 'default',
      ...(inputs ? { inputs } : {}),
    });
    for (const p of [...readProblems, ...problems]) err.write(`${formatProblem(p)}\n`);
    const status = report(resources, format, what, io);
    return readProblems.length + problems.length > 0 ? 2 : status;
  }

  const chosen = chosenKinds(positionals, kinds, err);
  if (typeof chosen === 'number') return chosen;
  let client;
  try {
    client = loadClient({ kubeconfig: values.kubeconfig, context: values.context });
  } catch (e) {
    err.write(`reconstruct preview: ${(e as Error).message}\n`);
    return 2;
  }
  const fleet = await previewFleet(
    client,
    chosen,
    { ...(values.namespace ? { namespace: values.namespace } : {}), labelSelector: values.selector },
    { concurrency, fieldManager: values['field-manager'], progress: progressOn(err) },
  );
  // A kind named on the command line must be there; of all the build's kinds, those not installed are noted.
  const named = positionals.length > 0;
  for (const p of fleet.problems) {
    err.write(`reconstruct preview: ${p.definition.kind}: ${p.message}${named ? '' : ' (skipped)'}\n`);
  }
  for (const p of fleet.warnings)
    err.write(`reconstruct preview: warning: ${p.definition.kind}: ${p.message}\n`);
  for (const p of fleet.blocking) err.write(`reconstruct preview: ${p.definition.kind}: ${p.message}\n`);
  const status = report(fleet.resources, format, what, io);
  return (named && fleet.problems.length > 0) || fleet.blocking.length > 0 ? 2 : status;
}
