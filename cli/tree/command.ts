/**
 * `reconstruct tree KIND[/NAME]`: a resource (or all of a kind), its conditions, and each child with
 * whether it is ready and why not; `-o json` for scripts.
 */
import { loadClient } from '../../controller/kube/client';
import { readResources, readRings, treeOf, type Tree } from './walk';
import { KINDS_HELP, READ_OPTIONS, commandKinds, noneFound, parseCommand, targetOf } from '../kinds';
import { RECONCILING_CONDITION, STALLED_CONDITION } from '../../controller/health/conditions';

const TREE_HELP = `Usage: reconstruct tree KIND[/NAME] [-n NAMESPACE | -A] [-o text|json] [--kubeconfig FILE]
                      [--context NAME] [--kinds MODULE]

Shows a resource as the cluster has it: its conditions, and each child its construct wants, with whether
it is ready and why not (the rules of the resource's Ready condition), and the children it made that are
no longer wanted (pruned at the next reconcile). KIND is the kind, its plural, singular or a short name,
as kubectl get takes them; without NAME, every resource of the kind.

Options:
  -n, --namespace NS    the namespace (default: default)
  -A, --all-namespaces  every namespace (without NAME)
  -o, --output FORMAT   text (default) or json
  --kubeconfig FILE     kubeconfig file [KUBECONFIG, then ~/.kube/config]
  --context NAME        kubeconfig context (default: its current context)
${KINDS_HELP}
  -h, --help            show this help

A resource being deleted says so, with the finalizers that hold it (its Ready condition says why, in
its kind's words). With a sharded controller (--sharding), the member that holds the resource is shown,
and whether it is being moved.

Exit status: 0 when every resource shown is Ready, 1 when one is not or is being deleted (or none was
found), 2 on an error.
`;

const MARK = { Ready: '✓', NotReady: '✗', Unknown: '?', Stale: '-' } as const;

/** The text form: the resource's line, its conditions, then one line per child. */
export function formatTree(tree: Tree): string {
  const ready = tree.conditions.find((c) => c.type === 'Ready');
  const where = tree.namespace ? `${tree.namespace}/${tree.name}` : tree.name;
  const revision = tree.revision ? `  revision ${tree.revision}` : '';
  // Reconciling and Stalled say Ready's (or the rollout's) words again, for other tools: only "stalled" is news.
  const stalled = tree.conditions.some((c) => c.type === STALLED_CONDITION && c.status === 'True');
  const lines = [
    `${tree.kind} ${where}  Ready=${ready?.status ?? 'Unknown'}${ready?.reason ? ` ${ready.reason}` : ''}` +
      `${stalled ? ' (stalled)' : ''}${revision}`,
  ];
  if (ready?.message) lines.push(`  ${ready.message}`);
  const { shard } = tree;
  if (shard) {
    // On the ranges read path the member shown is the new ring's, which takes the resource up once it settles.
    const moving = !shard.moving
      ? ''
      : shard.path === 'labels'
        ? ' (being moved)'
        : ' once the ring settles (its members are changing)';
    lines.push(`  held by member ${shard.member} of ring ${shard.ring}${moving}`);
  }
  const { deletion } = tree;
  if (deletion) {
    const held = deletion.finalizers.length > 0 ? `, held by ${deletion.finalizers.join(', ')}` : '';
    lines.push(`  being deleted since ${deletion.since}${held}`);
  }
  // The API server gives a resource being deleted a new generation: not a spec change.
  if (
    !deletion &&
    tree.observedGeneration !== undefined &&
    tree.generation !== undefined &&
    tree.observedGeneration < tree.generation
  ) {
    lines.push(`  (status is of generation ${tree.observedGeneration}; the spec is at ${tree.generation})`);
  }
  const derived = new Set(['Ready', RECONCILING_CONDITION, STALLED_CONDITION]);
  for (const c of tree.conditions.filter((c) => !derived.has(c.type))) {
    lines.push(
      `  ${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`,
    );
  }
  const width = Math.max(0, ...tree.children.map((c) => `${c.kind} ${c.name}`.length));
  tree.children.forEach((c, i) => {
    const branch = i === tree.children.length - 1 ? '└──' : '├──';
    const label = `${c.kind} ${c.name}`.padEnd(width);
    const why = c.state === 'Ready' ? 'ready' : `${c.reason}: ${c.message}`;
    lines.push(`${branch} ${MARK[c.state]} ${label}  ${why}`);
  });
  return `${lines.join('\n')}\n`;
}

/** 0 when every resource is Ready and none is being deleted (one held by a finalizer is not done), else 1. */
export function exitStatus(trees: readonly Tree[]): 0 | 1 {
  const done = (t: Tree) =>
    !t.deletion && t.conditions.some((c) => c.type === 'Ready' && c.status === 'True');
  return trees.every(done) ? 0 : 1;
}

export async function treeCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const io = { out, err };
  const parsed = parseCommand(
    'tree',
    TREE_HELP,
    argv,
    { ...READ_OPTIONS, output: { type: 'string', short: 'o' } },
    io,
    true,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const format = values.output ?? 'text';
  if (positionals.length !== 1 || (format !== 'text' && format !== 'json')) {
    err.write(`reconstruct tree: give one KIND or KIND/NAME, and -o text or json\n\n${TREE_HELP}`);
    return 2;
  }
  const kinds = await commandKinds('tree', values, io);
  if (typeof kinds === 'number') return kinds;
  const target = targetOf('tree', positionals[0], values, kinds, err);
  if (typeof target === 'number') return target;
  const { definition, name, namespace } = target;
  try {
    const client = loadClient({ kubeconfig: values.kubeconfig, context: values.context });
    const resources = await readResources(client, definition, namespace, name);
    if (resources.length === 0) {
      err.write(`reconstruct tree: ${noneFound(target)}\n`);
      return 1;
    }
    const rings = await readRings(client);
    const trees: Tree[] = [];
    for (const r of resources) trees.push(await treeOf(client, definition, r, rings));
    out.write(
      format === 'json'
        ? `${JSON.stringify(name ? trees[0] : trees, null, 2)}\n`
        : trees.map(formatTree).join('\n'),
    );
    return exitStatus(trees);
  } catch (e) {
    err.write(`reconstruct tree: ${(e as Error).message}\n`);
    return 2;
  }
}
