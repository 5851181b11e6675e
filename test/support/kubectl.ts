/**
 * Tiny helpers for the cluster integration tests: they talk to the API server only through the
 * pinned `kubectl` binary that scripts/cluster/with-cluster.sh puts first on PATH, with the
 * KUBECONFIG it exports. No Kubernetes client library is involved.
 */
import { spawnSync } from 'child_process';
import type { Kind } from '../../constructs/kit';
import { sleep } from '../../controller/abortable';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface KubectlOptions {
  /** Written to kubectl's standard input (e.g. with `-f -`). */
  input?: string;
  /** Return a non-zero result instead of throwing. */
  allowFail?: boolean;
  /** Kill kubectl after this many milliseconds (default 60 s). */
  timeoutMs?: number;
}

/** Runs `kubectl ARGS...`; throws with stdout/stderr on a non-zero exit unless allowFail. */
export function kubectl(args: string[], opts: KubectlOptions = {}): KubectlResult {
  const res = spawnSync('kubectl', args, {
    input: opts.input,
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
    env: process.env,
  });
  if (res.error) {
    throw new Error(
      `kubectl ${args.join(' ')}: ${res.error.message}` +
        ((res.error as NodeJS.ErrnoException).code === 'ENOENT'
          ? ' (kubectl not on PATH: run the tests through scripts/cluster/with-cluster.sh)'
          : ''),
    );
  }
  const result: KubectlResult = {
    stdout: res.stdout ?? '',
    stderr: res.stderr ?? '',
    code: res.status ?? (res.signal ? 128 : 1),
  };
  if (result.code !== 0 && !opts.allowFail) {
    throw new Error(
      `kubectl ${args.join(' ')} exited ${result.code}\n` +
        `stderr: ${result.stderr.trim()}\nstdout: ${result.stdout.trim()}`,
    );
  }
  return result;
}

/** `kubectl get ARGS... -o json`, parsed. */
export function getJson<T = unknown>(args: string[]): T {
  return JSON.parse(kubectl(['get', ...args, '-o', 'json']).stdout) as T;
}

/** True when `kubectl get ARGS...` finds the object. */
export function exists(args: string[]): boolean {
  const res = kubectl(['get', ...args, '-o', 'name'], { allowFail: true });
  if (res.code === 0) return true;
  if (/NotFound|not found/i.test(res.stderr)) return false;
  throw new Error(`kubectl get ${args.join(' ')}: ${res.stderr.trim()}`);
}

/** `kubectl apply -f -` with the given YAML (or JSON); throws on rejection. */
export function applyYaml(
  yaml: string,
  extraArgs: string[] = [],
  { timeoutMs }: Pick<KubectlOptions, 'timeoutMs'> = {},
): KubectlResult {
  return kubectl(['apply', '-f', '-', ...extraArgs], { input: yaml, timeoutMs });
}

/**
 * `kubectl apply` of a List of `items`. kubectl applies one object at a time (a read and a write each): a
 * list of hundreds took over a minute on a loaded two-core machine, so the time allowed grows with the list
 * (a minute, and half a second an object).
 */
export function applyList(items: readonly object[]): KubectlResult {
  return applyYaml(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), [], {
    timeoutMs: 60_000 + 500 * items.length,
  });
}

/** `kubectl create -f -`, returning the result instead of throwing (for admission tests). */
export function tryCreate(yaml: string, extraArgs: string[] = []): KubectlResult {
  return kubectl(['create', '-f', '-', ...extraArgs], { input: yaml, allowFail: true });
}

/** `kubectl delete -f -` ignoring objects that are already gone. */
export function deleteYaml(yaml: string, extraArgs: string[] = []): KubectlResult {
  return kubectl(['delete', '--ignore-not-found', '--wait=false', '-f', '-', ...extraArgs], {
    input: yaml,
  });
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is being waited for, for the error message. */
  what: string;
}

/**
 * Polls fn until it returns a truthy value (returned) or the timeout passes (throws, naming
 * `what` and the last value or error seen).
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  { timeoutMs = 30_000, intervalMs = 250, what }: WaitOptions,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${detail})`);
    }
    await sleep(intervalMs);
  }
}

/** A short random suffix, so that tests never collide with each other or with earlier runs. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Creates a namespace and returns its name; delete it with deleteNamespace in afterAll. */
export function createNamespace(prefix = 'test'): string {
  const name = uniqueName(prefix);
  kubectl(['create', 'namespace', name]);
  return name;
}

export function deleteNamespace(name: string): void {
  kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=false'], { allowFail: true });
}

/** A status condition, as `kubectl get -o json` shows it. */
export interface StatusCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** The Ready condition of `kubectl get RESOURCE NAME [-n NAMESPACE]`, if its status has one. */
export function readyCondition(
  resource: string,
  name: string,
  namespace?: string,
): StatusCondition | undefined {
  return getJson<{ status?: { conditions?: StatusCondition[] } }>([
    resource,
    name,
    ...(namespace ? ['-n', namespace] : []),
  ]).status?.conditions?.find((c) => c.type === 'Ready');
}

/** Applies each kind's CustomResourceDefinition and waits until the API server serves it (Established). */
export function installCrds(kinds: readonly Pick<Kind, 'crd'>[]): void {
  for (const { crd } of kinds) applyYaml(JSON.stringify(crd));
  kubectl(['wait', '--for=condition=Established', ...kinds.map(({ crd }) => `crd/${crd.metadata.name}`)]);
}

/** An Event, as much of `kubectl get events -o json` as the tests read. */
export interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  count?: number;
  involvedObject: { kind: string; name: string };
}

/** The Events in `namespace` that `fieldSelector` selects (e.g. `involvedObject.name=db,reason=Created`). */
export function events(namespace: string, fieldSelector: string): KubeEvent[] {
  return getJson<{ items: KubeEvent[] }>(['events', '-n', namespace, '--field-selector', fieldSelector])
    .items;
}

/**
 * Points a CRD's conversion webhook back at the install's Service, from the URL a controller run on this
 * machine pointed it at when it was killed before it could do so itself (docs/OPERATING.md): `kubectl
 * apply` of an install, which names the Service, is refused while the CRD also has a URL.
 */
export function forgetConversionUrl(crd: string): void {
  const service = {
    namespace: 'reconstruct-system',
    name: 'reconstruct-controller-webhook',
    path: '/convert',
    port: 443,
  };
  kubectl([
    'patch',
    'crd',
    crd,
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { conversion: { webhook: { clientConfig: { url: null, service } } } } }),
  ]);
}
