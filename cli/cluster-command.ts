import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const CLUSTER_HELP = `Usage: reconstruct cluster COMMAND [--crds DIR] [--feature-gates LIST] [--runtime-config LIST]

A local Kubernetes control plane to try kinds and run tests against: etcd, kube-apiserver,
kube-controller-manager, kube-scheduler and kwok with three fake nodes, all on 127.0.0.1 (Linux).
The binaries are built once from their Go modules (needs Go 1.26 or newer) into
~/.cache/reconstruct/. The cluster belongs to the current folder: its state and kubeconfig go to
./.cluster/ (add it to .gitignore).

Commands:
  up              start the cluster (or reuse the one that is up) and install the CRDs
  down            stop the cluster and remove .cluster/
  run -- CMD...   start a cluster, run CMD with KUBECONFIG set to it and the pinned kubectl first
                  on PATH, then stop it again; exits with CMD's status
  kubeconfig      print the path of the cluster's kubeconfig
  build           build the binaries if needed and print their folder

Options:
  --crds DIR      install the CRDs in DIR/*.yaml (up, run; default: ./crds/ if it exists)
  --feature-gates LIST
                  Kubernetes feature gates of every component, as key=value,... (up, run; default:
                  StorageVersionMigrator=true,ShardedListAndWatch=true, which reconstruct migrate and
                  the controller's --sharding use; "" for none). A cluster that is up with other
                  gates is not reused: stop it first
  --runtime-config LIST
                  API groups to serve beyond the defaults, as group/version=true,... (up, run;
                  default: storagemigration.k8s.io/v1beta1=true; "" for none)
  -h, --help      show this help

Environment:
  RECONSTRUCT_BIN_DIR=DIR      use the binaries in DIR (etcd, kube-apiserver, kube-controller-manager,
                               kube-scheduler, kubectl, kwok, kwokctl), build nothing
  RECONSTRUCT_CACHE_DIR=DIR    cache of the built binaries (default ~/.cache/reconstruct)
  RECONSTRUCT_PROJECT_DIR=DIR  the folder whose .cluster/ and crds/ to use (default: the current one)
  RECONSTRUCT_USE_EXISTING_CLUSTER=1
                               run: use the cluster KUBECONFIG points at, only install the CRDs

  export KUBECONFIG=$(npx reconstruct cluster kubeconfig)
`;

/** How the scripts' messages tell the user to run a command (`... cluster down`). */
const CLI_HINT = 'npx reconstruct cluster';

const SUBCOMMANDS = ['up', 'down', 'run', 'kubeconfig', 'build'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/**
 * The folder of the cluster scripts: `scripts/cluster/` in the first of `from` and its three
 * parents that has `scripts/cluster/up.sh`. From `dist/cli/` (compiled, in the repository or in an
 * installed package) that is two levels up; from `cli/` (the sources, under jest or tsx), one.
 */
export function findScriptsDir(from: string = __dirname): string | undefined {
  let dir = resolve(from);
  for (let level = 0; level <= 3; level++) {
    const candidate = join(dir, 'scripts', 'cluster');
    if (existsSync(join(candidate, 'up.sh'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** The options that take a value, and the environment variable each is passed to the scripts in. */
const VALUE_OPTIONS = {
  '--crds': 'RECONSTRUCT_CRDS_DIR',
  '--feature-gates': 'RECONSTRUCT_CLUSTER_FEATURE_GATES',
  '--runtime-config': 'RECONSTRUCT_CLUSTER_RUNTIME_CONFIG',
} as const;
type ValueOption = keyof typeof VALUE_OPTIONS;

interface Parsed {
  subcommand?: string;
  values: Partial<Record<ValueOption, string>>;
  help: boolean;
  command: string[];
}

/** The value option `arg` is (`--crds` or `--crds=DIR`), if it is one. */
const optionOf = (arg: string): ValueOption | undefined =>
  (Object.keys(VALUE_OPTIONS) as ValueOption[]).find((o) => arg === o || arg.startsWith(`${o}=`));

/** Parses argv; a string is a usage error. Everything after `--` (or `run`'s first word) is CMD. */
function parse(argv: string[]): Parsed | string {
  const parsed: Parsed = { help: false, command: [], values: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      if (parsed.subcommand !== 'run') return `"--" goes with "run" only`;
      parsed.command = argv.slice(i + 1);
      break;
    } else if (arg === '-h' || arg === '--help') {
      parsed.help = true;
    } else if (optionOf(arg)) {
      const option = optionOf(arg) as ValueOption;
      const value = arg === option ? argv[++i] : arg.slice(option.length + 1);
      if (value === undefined || (option === '--crds' && !value))
        return option === '--crds' ? '--crds needs a folder' : `${option} needs a list ("" for none)`;
      parsed.values[option] = value;
    } else if (arg.startsWith('-')) {
      return `unknown option "${arg}"`;
    } else if (parsed.subcommand === undefined) {
      parsed.subcommand = arg;
    } else if (parsed.subcommand === 'run') {
      parsed.command = argv.slice(i);
      break;
    } else {
      return `unexpected argument "${arg}"`;
    }
  }
  return parsed;
}

function fail(message: string, code: number): number {
  process.stderr.write(`reconstruct cluster: ${message}\n`);
  return code;
}

function usageError(message: string): number {
  process.stderr.write(`reconstruct cluster: ${message}\n\n${CLUSTER_HELP}`);
  return 2;
}

/**
 * Runs `bash ARGS...` with inherited stdio and resolves to its exit status (128 + the signal
 * number when a signal ended it). SIGINT and SIGTERM are passed on to it: the scripts tear down
 * what they started, and this process waits for them to finish.
 */
function runBash(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolveStatus) => {
    const child = spawn('bash', args, { stdio: 'inherit', env });
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
    const forward = (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const signal of signals) process.on(signal, forward);
    let settled = false;
    const settle = (status: number) => {
      if (settled) return;
      settled = true;
      for (const signal of signals) process.off(signal, forward);
      resolveStatus(status);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT')
        settle(fail('bash is needed to run the local control plane and is not on PATH', 127));
      else settle(fail(`cannot run bash: ${err.message}`, 1));
    });
    child.on('exit', (code, signal) => {
      settle(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}

/** `reconstruct cluster ...`: resolves to the exit status. */
export async function clusterCommand(argv: string[]): Promise<number> {
  const parsed = parse(argv);
  if (typeof parsed === 'string') return usageError(parsed);
  if (parsed.help) {
    process.stdout.write(CLUSTER_HELP);
    return 0;
  }
  const { subcommand } = parsed;
  if (subcommand === undefined) return usageError('no command given');
  if (!(SUBCOMMANDS as readonly string[]).includes(subcommand)) {
    return usageError(`unknown command "${subcommand}"`);
  }
  const sub = subcommand as Subcommand;
  if (sub === 'run' && parsed.command.length === 0) {
    return usageError('run: no command given');
  }
  const given = Object.keys(parsed.values);
  if (given.length > 0 && sub !== 'up' && sub !== 'run') {
    return usageError(`${given[0]} goes with "up" and "run" only`);
  }

  const scriptsDir = findScriptsDir();
  if (!scriptsDir) {
    return fail(`cannot find scripts/cluster/ above ${__dirname} (is the package installed completely?)`, 1);
  }
  if (process.platform !== 'linux' && sub !== 'kubeconfig') {
    return fail(`the local control plane runs on Linux only (this is ${process.platform})`, 1);
  }

  const env: NodeJS.ProcessEnv = { ...process.env };
  if (!env.RECONSTRUCT_PROJECT_DIR) env.RECONSTRUCT_PROJECT_DIR = process.cwd();
  if (!env.RECONSTRUCT_CLUSTER_CLI) env.RECONSTRUCT_CLUSTER_CLI = CLI_HINT;
  const { values } = parsed;
  if (values['--crds'] !== undefined) {
    const crds = resolve(values['--crds']);
    if (!existsSync(crds) || !statSync(crds).isDirectory())
      return fail(`--crds ${values['--crds']}: not a folder`, 2);
    env.RECONSTRUCT_CRDS_DIR = crds;
  }
  for (const option of ['--feature-gates', '--runtime-config'] as const) {
    const value = values[option];
    if (value !== undefined) env[VALUE_OPTIONS[option]] = value;
  }

  // Each script prints its own one-line error (Go missing, binaries missing, ...) on failure.
  switch (sub) {
    case 'up':
      return runBash([join(scriptsDir, 'up.sh')], env);
    case 'down':
      return runBash([join(scriptsDir, 'down.sh')], env);
    case 'build':
      return runBash([join(scriptsDir, 'build.sh')], env);
    case 'run':
      return runBash([join(scriptsDir, 'with-cluster.sh'), ...parsed.command], env);
    case 'kubeconfig':
      // lib.sh is where the path is decided; it is only read here, nothing is started.
      return runBash(
        [
          '-c',
          'source "$1/lib.sh" || exit 1; printf "%s\\n" "$CLUSTER_KUBECONFIG"; ' +
            '[[ -f $CLUSTER_KUBECONFIG ]] || log "no cluster is up in $PROJECT_DIR (start one: $(cluster_hint up))"',
          'reconstruct-cluster',
          scriptsDir,
        ],
        env,
      );
  }
}
