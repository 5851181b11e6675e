/**
 * Operating a resource on the API server, as a user would with the CLI: suspend it (nothing is written
 * for it while its Deployment is deleted and its spec changes), resume it (it converges at once), and
 * reconcile it now (`--wait` returns with the handled value in its status).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  applyYaml,
  kubectl,
  waitFor,
} from '../support/kubectl';
import { type RunningController, startController, watchingOnly } from '../support/controller';
import { memcached } from '../fixtures/resources';

jest.setTimeout(180_000);

const CLI = join(__dirname, '../../dist/cli/main.js');
let ns: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  ns = createNamespace('operate');
  controller = await startController(watchingOnly(ns, 'operate'));
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args, '-n', ns], { encoding: 'utf8' });
type Cache = {
  metadata: { resourceVersion: string };
  status?: {
    lastHandledReconcileAt?: string;
    conditions?: { type: string; status: string; message: string }[];
  };
};
const cache = () => getJson<Cache>(['memcached', 'cache', '-n', ns]);
const condition = (type: string) => cache().status?.conditions?.find((c) => c.type === type);
const replicas = () =>
  getJson<{ spec: { replicas: number } }>(['deployment', 'cache', '-n', ns]).spec.replicas;

it('suspended, writes nothing for 30 s while its Deployment goes and its spec changes; resumed, converges within 2 s', async () => {
  applyYaml(JSON.stringify(memcached('cache', { size: 1 }, ns)));
  await waitFor(() => exists(['deployment', 'cache', '-n', ns]), { what: 'the Deployment' });

  const suspend = cli('suspend', 'memcached/cache', '--reason', 'incident 42');
  expect([suspend.status, suspend.stderr]).toEqual([0, '']);
  expect(suspend.stdout).toBe(`Memcached ${ns}/cache: suspended\n`);
  await waitFor(() => condition('Suspended')?.status === 'True', { what: 'the Suspended condition' });
  // By whom: the API server's name for the caller (the test's admin kubeconfig), and why.
  expect(condition('Suspended')?.message).toMatch(/^reconcile suspended by \S+: incident 42 /);

  kubectl(['delete', 'deployment', 'cache', '-n', ns]);
  applyYaml(JSON.stringify(memcached('cache', { size: 3 }, ns)));
  const version = cache().metadata.resourceVersion;
  for (let waited = 0; waited < 30_000; waited += 2_000) {
    await new Promise((r) => setTimeout(r, 2_000));
    expect(exists(['deployment', 'cache', '-n', ns])).toBe(false);
    expect(cache().metadata.resourceVersion).toBe(version); // Not even a status write.
  }

  // Resumed as `reconstruct resume` does it, minus the CLI's start-up: the annotation goes.
  const started = Date.now();
  kubectl(['annotate', 'memcached', 'cache', '-n', ns, 'reconstruct.dev/reconcile-']);
  await waitFor(() => exists(['deployment', 'cache', '-n', ns]) && replicas() === 3, {
    what: 'the Deployment back, with 3 replicas',
    timeoutMs: 10_000,
    intervalMs: 50,
  });
  expect(Date.now() - started).toBeLessThan(2_000);
  await waitFor(() => condition('Suspended') === undefined, { what: 'the Suspended condition gone' });
});

it('reconciles now: --wait returns within 2 s with the handled value in the status', async () => {
  await waitFor(() => condition('Ready')?.status === 'True', { what: 'Ready', timeoutMs: 60_000 });
  const started = Date.now();
  const run = cli('reconcile', 'memcached/cache', '--wait');
  const tookMs = Date.now() - started;
  expect([run.status, run.stderr]).toEqual([0, '']);
  const token = /reconcile requested \((.+)\)/.exec(run.stdout)?.[1];
  expect(token).toBeDefined();
  expect(cache().status?.lastHandledReconcileAt).toBe(token);
  expect(run.stdout).toContain(`Memcached ${ns}/cache: Ready=True`);
  expect(tookMs).toBeLessThan(2_000 + 1_000);
});

it('refuses to reconcile a suspended resource, and resumes it with --wait', () => {
  expect(cli('suspend', 'memcached/cache').status).toBe(0);
  const refused = cli('reconcile', 'memcached/cache', '--wait');
  expect(refused.status).toBe(1);
  expect(refused.stderr).toBe(`Memcached ${ns}/cache is suspended: resume it first (reconstruct resume)\n`);

  const resume = cli('resume', 'memcached/cache', '--wait', '--timeout', '20');
  expect([resume.status, resume.stderr]).toEqual([0, '']);
  expect(resume.stdout).toBe(
    `Memcached ${ns}/cache: resumed\nMemcached ${ns}/cache: Ready=True Ready: all 2 child object(s) ready\n`,
  );
  expect(condition('Suspended')).toBeUndefined();
});
