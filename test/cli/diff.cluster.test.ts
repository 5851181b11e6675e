/**
 * `reconstruct diff` on the local control plane: before the controller acts it shows the resource, the
 * children it would create, a pending change and the children it would prune; once the controller has
 * reconciled, a second diff shows nothing (exit 0), so what it shows is what the controller does. The
 * resource is applied as the diff models it, `kubectl apply --server-side`: a Balancer's backends are a
 * list keyed by name, so an entry is removed by the field manager that applied it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webBalancer } from '../fixtures/resources';
import { type RunningController, startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

const CLI = join(__dirname, '../../dist/cli/main.js');
let ns: string;
let dir: string;
let controller: RunningController | undefined;

beforeAll(() => {
  ns = createNamespace('diff');
  dir = mkdtempSync(join(tmpdir(), 'diff-'));
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
  rmSync(dir, { recursive: true, force: true });
});

const balancer = (backends: string[]) => JSON.stringify(webBalancer(ns, backends));

function diff(content: string): { code: number; stdout: string; stderr: string } {
  const file = join(dir, `${uniqueName('lb')}.yaml`);
  writeFileSync(file, content);
  const run = spawnSync(process.execPath, [CLI, 'diff', file], { encoding: 'utf8', env: process.env });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** The objects a diff names, `+` new, `-` gone, `~` changed. */
function objects(text: string): string[] {
  const out: string[] = [];
  const blocks = text.split(/^diff -u -N /m).slice(1);
  for (const block of blocks) {
    const name = block.split(' ')[0].replace(/^live\//, '');
    const lines = block.split('\n');
    const removed = lines.some((l) => l.startsWith('-kind: '));
    const added = lines.some((l) => l.startsWith('+kind: '));
    out.push(`${added ? '+' : removed ? '-' : '~'} ${name}`);
  }
  return out.sort();
}

it('shows what the controller would do before it acts, and nothing once it has', async () => {
  // Nothing in the cluster yet: the resource and every child would be created.
  const first = diff(balancer(['a', 'b']));
  expect(first.stderr).toBe('');
  expect(first.code).toBe(1);
  expect(objects(first.stdout)).toEqual([
    `+ apps.v1.Deployment.${ns}.lbproxy`,
    `+ exposer.hliangzhao.io.v1beta1.Balancer.${ns}.lb`,
    `+ v1.ConfigMap.${ns}.lb-proxy-configmap`,
    `+ v1.Service.${ns}.lb`,
    `+ v1.Service.${ns}.lb-a-backend`,
    `+ v1.Service.${ns}.lb-b-backend`,
  ]);

  // Applied and reconciled: a second diff is empty.
  applyYaml(balancer(['a', 'b']), ['--server-side']);
  controller = await startController(['--namespaces', ns]);
  await waitFor(
    () =>
      getJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
        'balancer',
        'lb',
        '-n',
        ns,
      ]).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
    { what: 'Balancer lb Ready', timeoutMs: 60_000 },
  );
  const again = diff(balancer(['a', 'b']));
  expect([again.code, again.stdout, again.stderr]).toEqual([0, '', '']);

  // A backend dropped: the resource changes, the nginx config and Deployment roll, its Service is pruned.
  await controller.stop('SIGTERM');
  controller = undefined;
  const pending = diff(balancer(['a']));
  expect(pending.code).toBe(1);
  expect(objects(pending.stdout)).toEqual([
    `- v1.Service.${ns}.lb-b-backend`,
    `~ apps.v1.Deployment.${ns}.lbproxy`,
    `~ exposer.hliangzhao.io.v1beta1.Balancer.${ns}.lb`,
    `~ v1.ConfigMap.${ns}.lb-proxy-configmap`,
  ]);
  expect(pending.stdout).toContain('-    - name: b');
  // Shown, not done: the Service it would prune is still there, and so is the old spec.
  expect(exists(['service', 'lb-b-backend', '-n', ns])).toBe(true);
  expect(getJson<{ spec: { backends: unknown[] } }>(['balancer', 'lb', '-n', ns]).spec.backends).toHaveLength(
    2,
  );

  // What it showed is what the controller then does: after it acts, nothing is left to show.
  applyYaml(balancer(['a']), ['--server-side']);
  controller = await startController(['--namespaces', ns]);
  await waitFor(() => diff(balancer(['a'])).code === 0, {
    what: 'an empty diff after the controller acted',
    timeoutMs: 60_000,
  });
});

it('fails with exit status 2 naming the field of an invalid resource', () => {
  const bad = diff(balancer([]));
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('spec.backends');
});
