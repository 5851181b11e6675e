/**
 * The in-cluster tests' helpers of a new project (test/support/cluster.ts), as its file's text: kubectl,
 * polling, and the controller of the project's kinds as a child process. `init` writes it, and `create
 * kind` when a project has none.
 */
import { KINDS_MODULE } from './layout';

export const CLUSTER_HELPERS = `/**
 * Helpers of the in-cluster tests (*.cluster.test.ts): kubectl, polling, and the controller of this
 * project's kinds as a child process. They run in the local control plane \`npm run test:cluster\` starts
 * (\`reconstruct cluster run\`), and refuse any other cluster unless RECONSTRUCT_TEST_CLUSTER=1 says so:
 * they create and delete objects.
 */
import { spawn, spawnSync } from 'child_process';
import { join, resolve } from 'path';

export const PROJECT = resolve(__dirname, '../..');
/** How long each step gets. */
const BOUND_MS = 60_000;

export function checkCluster(): void {
  const kubeconfig = process.env.KUBECONFIG ? resolve(process.env.KUBECONFIG) : '';
  const ours = kubeconfig === join(PROJECT, '.cluster', 'kubeconfig');
  if (!ours && process.env.RECONSTRUCT_TEST_CLUSTER !== '1') {
    throw new Error(
      'These tests create and delete objects in a cluster: run them with \`npm run test:cluster\` ' +
        '(a local control plane of their own), or set RECONSTRUCT_TEST_CLUSTER=1 to use the cluster of ' +
        \`KUBECONFIG (\${process.env.KUBECONFIG ?? '~/.kube/config'}).\`,
    );
  }
}

export function kubectl(args: string[], input?: string): string {
  checkCluster();
  const result = spawnSync('kubectl', args, { cwd: PROJECT, encoding: 'utf8', input });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(\`kubectl \${args.join(' ')} failed: \${result.stderr}\`);
  return result.stdout;
}

/** \`kubectl get ARGS -o json\`, or undefined when there is no such object. */
export function getJson(args: string[]): any {
  checkCluster();
  const result = spawnSync('kubectl', ['get', ...args, '-o', 'json'], { cwd: PROJECT, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (/NotFound|not found/.test(result.stderr)) return undefined;
    throw new Error(\`kubectl get \${args.join(' ')} failed: \${result.stderr}\`);
  }
  return JSON.parse(result.stdout);
}

/** A resource's Ready condition. */
export function readyCondition(resource: any): { status: string; reason: string; message: string } | undefined {
  return (resource?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
}

/** Polls \`check\` until it returns something truthy, for at most \`timeoutMs\`; a timeout shows \`state()\`. */
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
      throw new Error(\`timed out after \${timeoutMs / 1000}s waiting for \${what}; state:\\n\${JSON.stringify(state(), null, 2)}\`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

export interface Controller {
  /** Its log lines so far. */
  logs(): string[];
  /** SIGTERM, then SIGKILL if it has not exited within 15 s. */
  stop(): Promise<void>;
}

/** Starts \`reconstruct controller --kinds ${KINDS_MODULE}\`; resolves once its caches have synced. */
export async function startController(): Promise<Controller> {
  checkCluster();
  const args = ['controller', '--kinds', '${KINDS_MODULE}', '--no-builtin-kinds'];
  // Any free port for health, no metrics: nothing here polls them.
  args.push('--health-addr', '127.0.0.1:0', '--metrics-addr', '0', '--log-format', 'json');
  // The bin itself rather than npx: one process, which SIGTERM reaches.
  const proc = spawn(join(PROJECT, 'node_modules', '.bin', 'reconstruct'), args, {
    cwd: PROJECT,
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  // Whatever happens to the tests, the controller does not outlive them.
  const kill = () => proc.kill('SIGKILL');
  process.once('exit', kill);
  const lines: string[] = [];
  let partial = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const split = text.split('\\n');
    partial = split.pop() ?? '';
    lines.push(...split);
  });
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  await waitFor(
    'the controller to sync its caches',
    () => {
      if (exited()) throw new Error(\`the controller exited (\${proc.exitCode ?? proc.signalCode}):\\n\${lines.join('\\n')}\`);
      return lines.some((l) => l.includes('caches synced'));
    },
    () => lines.slice(-30),
  );
  return {
    logs: () => lines,
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
`;
