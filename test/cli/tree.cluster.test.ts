/**
 * `reconstruct tree` on the local control plane: a resource's children, ready or why not, before and after
 * the controller acts, the children it would prune, and the JSON form for scripts.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Tree } from '../../cli/tree/walk';
import { webBalancer } from '../fixtures/resources';
import { type RunningController, startController } from '../support/controller';
import { applyYaml, createNamespace, deleteNamespace, getJson, waitFor } from '../support/kubectl';

jest.setTimeout(180_000);

const CLI = join(__dirname, '../../dist/cli/main.js');
let ns: string;
let controller: RunningController | undefined;

beforeAll(() => {
  ns = createNamespace('tree');
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

const tree = (...args: string[]) => {
  const run = spawnSync(process.execPath, [CLI, 'tree', ...args, '-n', ns], {
    encoding: 'utf8',
    env: process.env,
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
};
const balancer = (backends: string[]) => JSON.stringify(webBalancer(ns, backends));
const ready = () =>
  getJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
    'balancer',
    'lb',
    '-n',
    ns,
  ]).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

it('shows each child ready or why not, and the children the next reconcile prunes', async () => {
  applyYaml(balancer(['a', 'b']));
  const before = tree('balancer/lb');
  expect(before.code).toBe(1);
  expect(before.stdout).toContain('✗ Deployment lbproxy');
  expect(before.stdout).toContain('does not exist yet');

  controller = await startController(['--namespaces', ns]);
  await waitFor(ready, { what: 'Balancer lb Ready', timeoutMs: 60_000 });
  const after = tree('balancers/lb', '-o', 'json');
  expect(after.code).toBe(0);
  const json = JSON.parse(after.stdout) as Tree;
  expect(json.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
  expect(json.children.map((c) => `${c.kind} ${c.name} ${c.state}`).sort()).toEqual([
    'ConfigMap lb-proxy-configmap Ready',
    'Deployment lbproxy Ready',
    'Service lb Ready',
    'Service lb-a-backend Ready',
    'Service lb-b-backend Ready',
  ]);

  // The controller stopped and a backend dropped: its Service is still there, marked for pruning.
  await controller.stop('SIGTERM');
  controller = undefined;
  applyYaml(balancer(['a']));
  const stale = JSON.parse(tree('balancer/lb', '-o', 'json').stdout) as Tree;
  expect(stale.children.find((c) => c.name === 'lb-b-backend')).toMatchObject({
    state: 'Stale',
    reason: 'NotWanted',
  });
  expect(tree('balancer/lb').stdout).toMatch(/- Service lb-b-backend +NotWanted: no longer rendered/);
});

it('says so for a resource that does not exist, and for a kind it does not know', () => {
  expect(tree('memcached/nothing')).toMatchObject({
    code: 1,
    stderr: `reconstruct tree: no Memcached nothing in ${ns}\n`,
  });
  expect(tree('widgets/x').code).toBe(2);
});
