/**
 * Runs the real controller (`node dist/cli/main.js controller`, built by `npm run build`) as a child
 * process against the test cluster, the way a user runs it, authenticated as a ServiceAccount with
 * exactly the rules the install derives (support/controller-role.ts) unless the test passes its own
 * `--kubeconfig`. Tests observe it through kubectl and through its /readyz and /metrics endpoints; every
 * 403 it gets is counted, and support/forbidden.ts fails the test that saw one.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as http from 'node:http';
import { join } from 'node:path';
import { freePort } from '../../controller/runtime/server';
import { controllerKubeconfig } from './controller-role';
import { waitFor } from './kubectl';

/** The CLI under test: this build, or RECONSTRUCT_TEST_CLI (another build's, to compare before and after). */
const CLI = process.env.RECONSTRUCT_TEST_CLI ?? join(__dirname, '../../dist/cli/main.js');

export interface RunningController {
  readonly process: ChildProcess;
  readonly healthPort: number;
  /** Everything it logged so far (JSON lines). */
  readonly logs: string[];
  metrics(): Promise<string>;
  /** The text of its /readyz?verbose. */
  readyz(): Promise<string>;
  /** Sends SIGTERM (or `signal`) and resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * GET `url` on a connection of its own (no keep-alive: a kept-alive connection may be closed by the server's
 * keep-alive timer just as a request goes out on it, more so on a loaded machine where timers fire late),
 * up to three times if the connection is reset under the request.
 */
async function fetchText(url: string, tries = 3): Promise<{ status: number; text: string }> {
  try {
    return await new Promise((resolve, reject) => {
      const req = http.get(url, { agent: false, headers: { connection: 'close' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  } catch (err) {
    if (tries <= 1 || !/ECONNRESET|socket hang up/.test(String((err as Error).message))) throw err;
    await new Promise((resolve) => setTimeout(resolve, 250));
    return fetchText(url, tries - 1);
  }
}

/** The controllers started by the current test file, and how many 403s of each were reported. */
const started: { controller: RunningController; forbidden: number; reported: number }[] = [];

/** RBAC denials as the API server words them (RBAC, and OwnerReferencesPermissionEnforcement's). */
const DENIED = /forbidden: User |cannot set blockOwnerDeletion if an ownerReference refers/i;
/**
 * The other 403s, as the controller's log of each refused write names them (its `reason`): NamespaceLifecycle
 * refuses new objects in a namespace being deleted (other test files' namespaces, and this one's as it
 * ends), and OwnerReferencesPermissionEnforcement cannot check an owner whose CRD the API server's discovery
 * has not caught up with yet (seconds after a CRD is installed, retried).
 */
const NOT_RBAC = new Set(['NamespaceTerminating', 'OwnerKindUndiscovered']);

const forbiddenReplies = (metrics: string) =>
  counter(metrics, 'rest_client_requests_total', (labels) => labels.includes('code="403"'));

/** The 403s a controller's log says were not RBAC's: one `api write` line each, with its reason. */
const notRbac = (logs: readonly string[]) =>
  logs.filter((l) => {
    if (!l.includes('"api write"') || !l.includes('"code":403')) return false;
    return NOT_RBAC.has((JSON.parse(l) as { reason?: string }).reason ?? '');
  }).length;

/**
 * The RBAC denials every controller of this test file got since the last call. Every 403 counts
 * (rest_client_requests_total, scraped while it runs and at stop) unless its log line (the controllers
 * under test log at debug level, so every refused write is there, with its reason) says it was not RBAC's.
 * A scrape may count a 403 whose line the test has not read yet (the line is written first, but comes
 * through another pipe): an unexplained count is read again, after the log has had time to come. Called
 * by support/forbidden.ts after each test.
 */
export async function newForbidden(): Promise<string[]> {
  const found: string[] = [];
  for (const entry of started) {
    const { controller } = entry;
    if (controller.process.exitCode === null && controller.process.signalCode === null) {
      const metrics = await controller.metrics().catch(() => undefined);
      if (metrics !== undefined) entry.forbidden = Math.max(entry.forbidden, forbiddenReplies(metrics));
    }
    const denials = () => {
      const denied = controller.logs.filter((l) => DENIED.test(l));
      return { denied, count: Math.max(entry.forbidden - notRbac(controller.logs), denied.length) };
    };
    let { denied, count } = denials();
    for (let waited = 0; count > entry.reported && waited < 2000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ({ denied, count } = denials());
    }
    if (count > entry.reported) {
      const example = denied.pop() ?? controller.logs.filter((l) => /forbidden|403/i.test(l)).pop();
      found.push(
        `controller on :${controller.healthPort}: ${count - entry.reported} forbidden (403) replies` +
          (example ? `, e.g. ${example}` : ''),
      );
      entry.reported = count;
    }
  }
  return found;
}

/** Starts a controller and waits until /readyz says its caches have synced. */
export async function startController(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  /** `refusalsExpected`: a test that takes rules away on purpose; its 403s fail nothing. */
  { refusalsExpected = false }: { refusalsExpected?: boolean } = {},
): Promise<RunningController> {
  // A sharded controller runs as `install --sharding` grants: wider lease rules.
  const kubeconfig = args.includes('--kubeconfig')
    ? undefined
    : controllerKubeconfig({ sharding: args.includes('--sharding') });
  const healthPort = await freePort();
  const proc = spawn(
    process.execPath,
    [
      CLI,
      'controller',
      '--health-addr',
      `127.0.0.1:${healthPort}`,
      '--metrics-addr',
      '0',
      // A port of its own for the conversion webhook (Balancer has two versions): tests run several.
      ...(args.includes('--webhook-addr') ? [] : ['--webhook-addr', '127.0.0.1:0']),
      '--log-format',
      'json',
      // Every failed request in the log, to tell an RBAC denial from a namespace being deleted.
      '--log-level',
      'debug',
      ...(kubeconfig ? ['--kubeconfig', kubeconfig] : []),
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'pipe'] },
  );
  const logs: string[] = [];
  let buffered = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    logs.push(...lines);
    if (process.env.RECONSTRUCT_TEST_LOGS) lines.forEach((l) => process.stderr.write(`[${proc.pid}] ${l}\n`));
  });
  // 'close', not 'exit': the process has exited and its stderr has been read to the end, so `logs` holds
  // every line it wrote (on 'exit' the last lines may still be in the pipe).
  let gone = false;
  const exited = new Promise<number | null>((resolve) =>
    proc.once('close', (code) => {
      gone = true;
      resolve(code);
    }),
  );
  const base = `http://127.0.0.1:${healthPort}`;
  // A controller that exits (a bad flag, a refused start) ends the wait at once, with what it logged.
  await waitFor(
    async () => gone || (await fetchText(`${base}/readyz`).catch(() => ({ status: 0 }))).status === 200,
    { what: 'the controller to be ready', timeoutMs: 60_000 },
  );
  if (gone) throw new Error(`controller exited ${proc.exitCode}:\n${logs.join('\n')}`);
  const entry = { forbidden: 0, reported: 0 };
  const controller: RunningController = {
    process: proc,
    healthPort,
    logs,
    metrics: async () => (await fetchText(`${base}/metrics`)).text,
    readyz: async () => (await fetchText(`${base}/readyz?verbose`)).text,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null) {
        // The last word of its metrics on 403s, before they go with the process.
        const metrics = await controller.metrics().catch(() => undefined);
        if (metrics !== undefined) entry.forbidden = Math.max(entry.forbidden, forbiddenReplies(metrics));
        proc.kill(signal);
      }
      return exited;
    },
  };
  if (!refusalsExpected) started.push(Object.assign(entry, { controller }));
  return controller;
}

/** Sum of a Prometheus counter's samples whose labels match `filter`. */
export function counter(
  metrics: string,
  name: string,
  filter: (labels: string) => boolean = () => true,
): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    const match = new RegExp(`^${name}(?:\\{(.*)\\})? ([0-9.e+-]+)$`).exec(line);
    if (match && filter(match[1] ?? '')) total += Number(match[2]);
  }
  return total;
}

/** Flags for a controller that watches only `namespace` and holds its leader lease `lease` there. */
export function watchingOnly(namespace: string, lease: string): string[] {
  return ['--namespaces', namespace, '--leader-elect', '--lease-name', lease, '--lease-namespace', namespace];
}

/** Whether the controller has logged that it became the leader. */
export const leads = (controller: RunningController): boolean =>
  controller.logs.some((l) => l.includes('"became leader"'));
