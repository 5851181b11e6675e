/**
 * `npm run demo`: the operator end to end on a local control plane. Brings the cluster up (or reuses one
 * that is up), starts the controller as a child process, starts a throwaway MariaDB for the MySQL samples
 * (when installed), applies samples/, labels a fake node into the
 * NodePool sample's pool, and shows each resource converging: its Ready condition, status fields,
 * children and, for a NodePool, its member nodes. Runs until Ctrl-C, then stops the controller and the
 * cluster it brought up; with --once, exits 0 as soon as everything is Ready (1 after --timeout).
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LABEL_MANAGED_BY, MANAGER, builtinKinds as kinds } from '../constructs';
import { memberLabel } from '../constructs/node-pool/node-pool';
import { ClusterScripts, type Cluster, type Kubectl } from './cluster';
import { ControllerProcess } from './controller';
import { sleep } from '../controller/abortable';
import { mariadbInstalled, startMariadb, type MariadbServer } from './mariadb';
import { render, type Applied, type KubeObject, type Snapshot } from './view';

const HELP = `Usage: npm run demo [-- OPTIONS]   (or: node dist/demo/demo.js [OPTIONS])

Brings up a local control plane (scripts/cluster/up.sh; reuses one that is already up), starts
'reconstruct controller', starts a throwaway MariaDB server for samples/mysql-{database,user}.yaml
(left out when MariaDB is not installed: bash scripts/mariadb/install.sh), applies samples/ and shows
the resources and their children converging. Ctrl-C deletes the MySQL samples, stops MariaDB, the
controller, and the cluster if the demo brought it up.

Options:
  --once             exit 0 once every resource is Ready, 1 after --timeout (for CI)
  --timeout SECONDS  with --once: how long the resources may take after being applied (default 180)
  --interval SECONDS refresh period of the view (default 1.5)
  --keep-cluster     leave the cluster up at the end, even if the demo brought it up
  -h, --help         show this help
`;

interface Options {
  once: boolean;
  timeoutMs: number;
  intervalMs: number;
  keepCluster: boolean;
}

function parseOptions(argv: string[]): Options | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      once: { type: 'boolean' },
      timeout: { type: 'string' },
      interval: { type: 'string' },
      'keep-cluster': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const seconds = (flag: string, text: string | undefined, fallback: number) => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${flag}: "${text}" is not a positive number`);
    return n * 1000;
  };
  return {
    once: values.once ?? false,
    timeoutMs: seconds('timeout', values.timeout, 180),
    intervalMs: seconds('interval', values.interval, 1.5),
    keepCluster: values['keep-cluster'] ?? false,
  };
}

const say = (line: string) => process.stdout.write(`[demo] ${line}\n`);

/** `plural.group` for kubectl, e.g. `deployments.apps`, `memcacheds.cache.example.com`, `services`. */
const typeName = (t: { apiVersion: string; plural: string }) =>
  t.apiVersion.includes('/') ? `${t.plural}.${t.apiVersion.split('/')[0]}` : t.plural;

const RESOURCE_TYPES = kinds.map(typeName).join(',');
const CHILD_TYPES = [...new Set(kinds.flatMap((k) => k.children.map(typeName)))].join(',');

async function snapshot(kubectl: Kubectl): Promise<Snapshot> {
  const items = (list: { items: KubeObject[] }) => list.items;
  const [resources, children, nodes] = await Promise.all([
    kubectl.getJson<{ items: KubeObject[] }>([RESOURCE_TYPES, '-A']).then(items),
    kubectl
      .getJson<{ items: KubeObject[] }>([CHILD_TYPES, '-A', '-l', `${LABEL_MANAGED_BY}=${MANAGER}`])
      .then(items),
    kubectl.getJson<{ items: KubeObject[] }>(['nodes']).then(items),
  ]);
  return { resources, children, nodes };
}

/** The samples whose resources work on a MySQL server, applied only when the demo has one. */
const isMysqlSample = (file: string) => file.startsWith('mysql-') && file !== 'mysql-cluster.yaml';

/** The Secret the MySQL samples name (spec.serverSecretRef): the demo's server and its admin account. */
export const SERVER_SECRET = 'mysql-admin';

/**
 * A throwaway MariaDB server for the MysqlDatabase and MysqlUser samples, and the Secret naming it; when
 * MariaDB is not installed, undefined: those samples are left out, saying how to have them.
 */
async function startDatabase(kubectl: Kubectl): Promise<MariadbServer | undefined> {
  if (!mariadbInstalled()) {
    say(
      'MariaDB is not installed: leaving out samples/mysql-{database,user}.yaml (bash scripts/mariadb/install.sh adds them)',
    );
    return undefined;
  }
  const server = await startMariadb();
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: SERVER_SECRET },
    stringData: {
      host: server.host,
      port: String(server.port),
      username: server.username,
      password: server.password,
    },
  };
  await kubectl.check(['apply', '-f', '-'], { input: JSON.stringify(secret) });
  say(
    `started MariaDB on ${server.host}:${server.port} for the MySQL samples (its account in Secret ${SERVER_SECRET})`,
  );
  return server;
}

async function deleteMysqlSamples(kubectl: Kubectl, root: string): Promise<void> {
  const dir = join(root, 'samples');
  const files = readdirSync(dir)
    .filter(isMysqlSample)
    .flatMap((f) => ['-f', join(dir, f)]);
  say('deleting the MySQL samples (their server stops with the demo)');
  const result = await kubectl.run(['delete', ...files, '--ignore-not-found', '--timeout=60s'], {
    timeoutMs: 90_000,
  });
  if (result.code !== 0) say(`kubectl delete of the MySQL samples failed: ${result.stderr.trim()}`);
}

/** `kubectl apply` of samples/ (without the MySQL ones when there is no server): what was applied, with the namespace kubectl chose. */
async function applySamples(kubectl: Kubectl, root: string, withMysql: boolean): Promise<Applied[]> {
  const dir = join(root, 'samples');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && (withMysql || !isMysqlSample(f)))
    .sort()
    .flatMap((f) => ['-f', join(dir, f)]);
  const out = await kubectl.check(['apply', ...files, '-o', 'json']);
  const parsed = JSON.parse(out) as KubeObject | { kind: 'List'; items: KubeObject[] };
  const objects = 'items' in parsed ? parsed.items : [parsed];
  return objects.map((o) => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace,
    name: o.metadata.name,
  }));
}

/** Makes one fake node a member of each applied NodePool (the first node with no role yet), if none is. */
async function labelMembers(kubectl: Kubectl, applied: Applied[]): Promise<void> {
  for (const pool of applied.filter((a) => a.kind === 'NodePool')) {
    const label = memberLabel(pool.name);
    const nodes = (await kubectl.getJson<{ items: KubeObject[] }>(['nodes'])).items.sort((a, b) =>
      a.metadata.name.localeCompare(b.metadata.name),
    );
    if (nodes.some((n) => n.metadata.labels?.[label] !== undefined)) continue;
    const hasRole = (n: KubeObject) =>
      Object.keys(n.metadata.labels ?? {}).some((k) => k.startsWith('node-role.kubernetes.io/'));
    const node = nodes.find((n) => !hasRole(n)) ?? nodes[0];
    if (!node) throw new Error(`no node to put into NodePool ${pool.name}`);
    await kubectl.check(['label', 'node', node.metadata.name, `${label}=`, '--overwrite']);
    say(`labelled node ${node.metadata.name} ${label}= (a member of NodePool ${pool.name})`);
  }
}

/**
 * Draws the view in place on a terminal (the lines above it stay); elsewhere prints it again only when
 * something in it changed, so a CI log shows each step once.
 */
class Screen {
  private drawn = 0;
  private lastKey = '';
  private readonly tty = process.stdout.isTTY === true;

  draw(header: string[], body: string[], force = false): void {
    if (this.tty) {
      const width = Math.max(20, (process.stdout.columns || 120) - 1);
      const height = Math.max(5, (process.stdout.rows || 50) - 1);
      let lines = [...header, ...body].map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
      if (lines.length > height)
        lines = [...lines.slice(0, height - 1), '… (enlarge the terminal to see more)'];
      const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
      process.stdout.write(`${up}${lines.map((l) => `${l}\x1b[K\n`).join('')}\x1b[J`);
      this.drawn = lines.length;
      return;
    }
    const key = body.join('\n');
    if (!force && key === this.lastKey) return;
    this.lastKey = key;
    process.stdout.write(`\n${[...header, ...body].join('\n')}\n`);
  }
}

const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

async function watch(
  cluster: Cluster,
  controller: ControllerProcess,
  applied: Applied[],
  options: Options,
  signal: AbortSignal,
): Promise<number> {
  const screen = new Screen();
  const started = Date.now();
  const log = relative(process.cwd(), controller.logFile) || controller.logFile;
  let last: Snapshot = { resources: [], children: [], nodes: [] };
  while (!signal.aborted) {
    let readError = '';
    try {
      last = await snapshot(cluster.kubectl);
    } catch (err) {
      readError = (err as Error).message.split('\n')[0];
    }
    if (signal.aborted) break;
    if (!controller.running) {
      say(`the controller exited; the end of its log (${log}):\n${controller.tail(20)}`);
      return 1;
    }
    const { lines, views } = render(applied, last);
    const ready = views.filter((v) => v.done).length;
    const allReady = ready === views.length;
    const elapsed = Date.now() - started;
    const header = [
      `reconstruct demo · ${seconds(elapsed)} since samples/ was applied · ` +
        (options.once
          ? `--once: exits when all are Ready (timeout ${seconds(options.timeoutMs)})`
          : 'Ctrl-C stops it'),
      `controller pid ${controller.pid} · log ${log} · ${controller.readyUrl} · ${controller.metricsUrl}`,
      ...(options.once
        ? []
        : [
            `in another terminal: export KUBECONFIG=${cluster.kubeconfig} PATH=${dirname(cluster.kubectl.bin)}:$PATH`,
          ]),
      '',
    ];
    const waiting = views.find((v) => !v.done);
    const footer = allReady
      ? `${ready}/${views.length} Ready${options.once ? '' : ' · edit or delete a resource in another terminal and watch'}`
      : `${ready}/${views.length} Ready · waiting for ${waiting?.title}: ${waiting?.waitingFor ?? ''}`;
    const body = [
      ...lines,
      footer,
      ...(readError ? [`(kubectl: ${readError}; showing the last good read)`] : []),
    ];

    if (options.once && allReady) {
      screen.draw(header, body, true);
      say(`all ${views.length} resources Ready ${seconds(elapsed)} after samples/ was applied`);
      return 0;
    }
    if (options.once && elapsed > options.timeoutMs) {
      screen.draw(header, body, true);
      say(`not everything was Ready after ${seconds(options.timeoutMs)}:`);
      for (const v of views.filter((x) => !x.done)) say(`  ${v.title}: ${v.waitingFor ?? ''}`);
      say(`the end of the controller's log (${log}):\n${controller.tail(20)}`);
      return 1;
    }
    screen.draw(header, body);
    await sleep(options.intervalMs, signal);
  }
  return options.once ? 1 : 0;
}

async function main(argv: string[]): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch (err) {
    process.stderr.write(`demo: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  const root = resolve(__dirname, '..', '..');
  const begun = Date.now();

  // The first signal starts an orderly stop; more (npm forwards the terminal's Ctrl-C once more) wait for it.
  const stop = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (process.stdout.isTTY) process.stdout.write('\n'); // after the ^C the terminal echoed
    if (stop.signal.aborted) return say(`${name}: still stopping, please wait`);
    say(`${name}: stopping`);
    stop.abort(name);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const scripts = new ClusterScripts(root);
  let cluster: Cluster | undefined;
  let controller: ControllerProcess | undefined;
  let database: MariadbServer | undefined;
  process.once('exit', () => controller?.killNow());
  let code: number;
  let viewing = false;
  try {
    cluster = await scripts.ensure(stop.signal, say);
    if (stop.signal.aborted) throw new Error('interrupted');
    controller = await ControllerProcess.start({
      cli: join(root, 'dist', 'cli', 'main.js'),
      kubeconfig: cluster.kubeconfig,
      logFile: join(scripts.stateDir, 'demo-controller.log'),
    });
    say(`started the controller (pid ${controller.pid}, log ${join('.cluster', 'demo-controller.log')})`);
    await controller.waitReady(60_000, stop.signal);
    if (stop.signal.aborted) throw new Error('interrupted');
    database = await startDatabase(cluster.kubectl);
    say(`controller ready (${controller.readyUrl}); applying samples/`);
    const applied = await applySamples(cluster.kubectl, root, database !== undefined);
    say(`applied ${applied.map((a) => `${a.kind} ${a.name}`).join(', ')}`);
    await labelMembers(cluster.kubectl, applied);
    viewing = true;
    code = await watch(cluster, controller, applied, options, stop.signal);
  } catch (err) {
    const message = (err as Error).message;
    if (!stop.signal.aborted) {
      say(`failed: ${message}`);
      if (controller) say(`the end of the controller's log:\n${controller.tail(20)}`);
    }
    code = 1;
  }
  // Ctrl-C is how an interactive demo ends; before the view was up, or with --once, it is an interruption.
  if (stop.signal.aborted) code = viewing && !options.once ? 0 : stop.signal.reason === 'SIGTERM' ? 143 : 130;

  // The MySQL samples go with the demo's server, while the controller runs: their finalizers drop what
  // they made there; left behind, they would wait for a server that is gone.
  if (database && cluster && controller?.running) await deleteMysqlSamples(cluster.kubectl, root);
  if (controller) {
    say('stopping the controller');
    const exit = await controller.stop();
    if (exit !== 0) say(`the controller exited with ${exit} (log: ${controller.logFile})`);
  }
  if (database) {
    say('stopping MariaDB');
    await database.destroy();
  }
  if (cluster?.broughtUp && !options.keepCluster) {
    if (await scripts.inUseByOthers()) {
      say(
        "leaving the cluster up: a test run in this work tree is using it (stop it with 'npm run cluster:down')",
      );
    } else {
      say('bringing the cluster down');
      if ((await scripts.down()) !== 0) {
        say("scripts/cluster/down.sh failed: run 'npm run cluster:down'");
        code ||= 1;
      }
    }
  } else if (cluster) {
    say(
      `leaving the cluster up (${cluster.broughtUp ? '--keep-cluster' : 'it was up before the demo'}): ` +
        "stop it with 'npm run cluster:down'",
    );
    if (viewing) {
      // The NodePool's finalizer needs a running controller: a delete without one waits forever.
      say('the samples stay applied: delete them while a controller runs (NodePool has a finalizer)');
    }
  }
  say(`done in ${seconds(Date.now() - begun)}, exit ${code}`);
  return code;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
