/**
 * Helpers of the in-cluster tests (cluster.test.ts): kubectl, polling, and the controller of this project's
 * kinds as a child process. They create and delete objects, so they refuse any cluster but the one
 * `npx reconstruct cluster run` starts for this project, unless RECONSTRUCT_EXAMPLE_CLUSTER=1 says so.
 */
import { spawn, spawnSync } from 'child_process';
import { writeFileSync } from 'fs';
import { join, resolve } from 'path';

export const PROJECT = resolve(__dirname, '..');
/** The install's namespace and ServiceAccount (`reconstruct install`'s defaults). */
export const SYSTEM = 'reconstruct-system';
export const SA = 'reconstruct-controller';
/** How long the controller gets for each step. */
export const BOUND_MS = 60_000;

/** Throws unless KUBECONFIG is this project's local cluster (or RECONSTRUCT_EXAMPLE_CLUSTER=1 says any will do). */
export function checkCluster(): void {
  const kubeconfig = process.env.KUBECONFIG ? resolve(process.env.KUBECONFIG) : '';
  const ours = kubeconfig === join(PROJECT, '.cluster', 'kubeconfig');
  if (!ours && process.env.RECONSTRUCT_EXAMPLE_CLUSTER !== '1') {
    throw new Error(
      'These tests create and delete objects in a cluster: run them in the local control plane with\n' +
        '  npx reconstruct cluster run -- npm run test:cluster\n' +
        'or set RECONSTRUCT_EXAMPLE_CLUSTER=1 to use the cluster of KUBECONFIG ' +
        `(${process.env.KUBECONFIG ?? '~/.kube/config'}).`,
    );
  }
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in the project folder, never before checkCluster() passes: a failed beforeAll does not
 * keep jest from running the nested ones.
 */
export function run(command: string, args: string[], input?: string): Run {
  checkCluster();
  const result = spawnSync(command, args, { cwd: PROJECT, encoding: 'utf8', input });
  if (result.error) throw result.error;
  return result;
}

/** `kubectl ARGS`'s output; throws with its stderr when it fails. */
export function kubectl(args: string[], input?: string): string {
  const result = run('kubectl', args, input);
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** `kubectl get ARGS -o json`, or undefined when there is no such object. */
export function getJson(args: string[]): any {
  const result = run('kubectl', ['get', ...args, '-o', 'json']);
  if (result.status !== 0) {
    if (/NotFound|not found/.test(result.stderr)) return undefined;
    throw new Error(`kubectl get ${args.join(' ')} failed: ${result.stderr}`);
  }
  return JSON.parse(result.stdout);
}

/** Polls `check` until it returns something truthy, for at most `timeoutMs`; a timeout shows `state()`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false,
  state: () => unknown,
  timeoutMs = BOUND_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs / 1000}s waiting for ${what}; state:\n${JSON.stringify(state(), null, 2)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * A kubeconfig (written into `dir`) for the cluster of KUBECONFIG that authenticates as the install's
 * ServiceAccount, with `namespace` as its default.
 */
export function serviceAccountKubeconfig(dir: string, namespace: string): string {
  const token = kubectl(['create', 'token', SA, '-n', SYSTEM, '--duration', '1h']).trim();
  const current = JSON.parse(kubectl(['config', 'view', '--raw', '--minify', '-o', 'json'])) as {
    clusters: { cluster: object }[];
  };
  const file = join(dir, 'controller-kubeconfig.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: current.clusters[0].cluster }],
      users: [{ name: 'sa', user: { token } }],
      contexts: [{ name: 'sa', context: { cluster: 'c', user: 'sa', namespace } }],
      'current-context': 'sa',
    }),
    { mode: 0o600 },
  );
  return file;
}

export interface Controller {
  /** Its log lines so far. */
  logs(): string[];
  /** SIGTERM, then SIGKILL if it has not exited within 15 s; nothing once it has. */
  stop(): Promise<void>;
}

/** Starts `reconstruct controller` for this project's kinds; resolves once its caches have synced. */
export async function startController(kubeconfig: string): Promise<Controller> {
  const args = [
    'controller',
    '--kinds',
    'src/index.ts',
    '--no-builtin-kinds',
    '--health-addr',
    '127.0.0.1:0', // any free port: nothing here polls it
    '--metrics-addr',
    '0',
    '--log-format',
    'json',
    '--kubeconfig',
    kubeconfig,
  ];
  // The bin itself rather than npx: one process, which SIGTERM reaches.
  const proc = spawn(join(PROJECT, 'node_modules', '.bin', 'reconstruct'), args, {
    cwd: PROJECT,
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  // Whatever happens to the tests, the controller does not outlive them.
  const kill = () => proc.kill('SIGKILL');
  process.once('exit', kill);
  const logs: string[] = [];
  let buffered = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    logs.push(...lines);
    if (process.env.RECONSTRUCT_TEST_LOGS) lines.forEach((l) => process.stderr.write(`${l}\n`));
  });
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  await waitFor(
    'the controller to sync its caches',
    () => {
      if (exited()) {
        throw new Error(`the controller exited (${proc.exitCode ?? proc.signalCode}):\n${logs.join('\n')}`);
      }
      return logs.some((l) => l.includes('caches synced'));
    },
    () => logs.slice(-30),
  );
  return {
    logs: () => logs,
    async stop() {
      process.off('exit', kill);
      if (exited()) return;
      const done = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const timer = setTimeout(kill, 15_000);
      await done;
      clearTimeout(timer);
    },
  };
}
