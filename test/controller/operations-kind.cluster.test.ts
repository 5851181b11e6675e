/**
 * Suspending a whole kind on the API server: `reconstruct suspend KIND --kind` annotates the kind's
 * CustomResourceDefinition, and a controller watching all namespaces (the only one that watches CRDs)
 * suspends each resource of the kind at once, and resumes them when the annotation goes.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { crdName, memcachedKind } from '../../constructs';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  kubectl,
  waitFor,
} from '../support/kubectl';
import { type RunningController, startController } from '../support/controller';
import { memcached } from '../fixtures/resources';

jest.setTimeout(120_000);

const CLI = join(__dirname, '../../dist/cli/main.js');
let ns: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  ns = createNamespace('operate-kind');
  controller = await startController([]);
});
afterAll(async () => {
  // Whatever happened, the kind is not left suspended for the tests that follow.
  kubectl([
    'annotate',
    'crd',
    crdName(memcachedKind),
    'reconstruct.dev/reconcile-',
    'reconstruct.dev/suspend-reason-',
  ]);
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
const suspended = () =>
  getJson<{ status?: { conditions?: { type: string; message: string }[] } }>([
    'memcached',
    'cache',
    '-n',
    ns,
  ]).status?.conditions?.find((c) => c.type === 'Suspended');

it('suspends every resource of the kind through its CRD, and resumes them when the annotation goes', async () => {
  applyYaml(JSON.stringify(memcached('cache', { size: 1 }, ns)));
  await waitFor(() => exists(['deployment', 'cache', '-n', ns]), { what: 'the Deployment' });

  const suspend = cli('suspend', 'memcached', '--kind', '--reason', 'storage maintenance');
  expect([suspend.status, suspend.stderr]).toEqual([0, '']);
  expect(suspend.stdout).toBe(
    `every Memcached: suspended (CustomResourceDefinition ${crdName(memcachedKind)})\n`,
  );
  await waitFor(() => suspended(), { what: 'the Suspended condition', timeoutMs: 5_000 });
  expect(suspended()?.message).toMatch(
    /^reconcile of every Memcached suspended by \S+: storage maintenance /,
  );

  kubectl(['delete', 'deployment', 'cache', '-n', ns]);
  await new Promise((r) => setTimeout(r, 5_000));
  expect(exists(['deployment', 'cache', '-n', ns])).toBe(false);

  const started = Date.now();
  expect(cli('resume', 'memcached', '--kind').status).toBe(0);
  await waitFor(() => exists(['deployment', 'cache', '-n', ns]), {
    what: 'the Deployment back',
    timeoutMs: 10_000,
    intervalMs: 50,
  });
  expect(Date.now() - started).toBeLessThan(2_000 + 1_000); // Within 2 s, plus the CLI's start-up.
  await waitFor(() => suspended() === undefined, { what: 'the Suspended condition gone' });
});
