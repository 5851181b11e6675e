/**
 * A namespaced install (`reconstruct install --namespaces a,b`) on a real API server with RBAC: the
 * controller, authenticated as the install's ServiceAccount, reconciles a resource in a watched namespace
 * with no 403 (support/forbidden.ts), leaves one elsewhere alone, and the ServiceAccount can write no
 * child kind outside its namespaces (`kubectl auth can-i ... -n kube-system` says no).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  uniqueName,
  waitFor,
  forgetConversionUrl,
} from '../../support/kubectl';
import { type RunningController, startController } from '../../support/controller';
import { tokenKubeconfig } from '../../support/controller-role';
import { memcached } from '../../fixtures/resources';

jest.setTimeout(180_000);

const CLI = join(__dirname, '../../../dist/cli/main.js');
const SA = 'reconstruct-controller';

let system: string;
let a: string;
let b: string;
let other: string;
let withoutCrds: string;
let controller: RunningController | undefined;

const canI = (verb: string, resource: string, namespace?: string) =>
  kubectl(
    [
      'auth',
      'can-i',
      verb,
      resource,
      '--as',
      `system:serviceaccount:${system}:${SA}`,
      ...(namespace ? ['-n', namespace] : []),
    ],
    { allowFail: true },
  ).stdout.trim();

const readiness = (name: string, namespace: string) =>
  getJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
    'memcached',
    name,
    '-n',
    namespace,
  ]).status?.conditions?.find((c) => c.type === 'Ready')?.status;

beforeAll(() => {
  system = uniqueName('reconstruct-ns');
  a = createNamespace('watched-a');
  b = createNamespace('watched-b');
  other = createNamespace('unwatched');
  const run = spawnSync(
    process.execPath,
    [CLI, 'install', '--namespace', system, '--namespaces', `${a},${b}`],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`reconstruct install failed: ${run.stderr}`);
  withoutCrds = parseAllDocuments(run.stdout)
    .map((d) => d.toJS() as { kind: string })
    .filter((d) => d.kind !== 'CustomResourceDefinition')
    .map((d) => JSON.stringify(d))
    .join('\n---\n');
  forgetConversionUrl('balancers.exposer.hliangzhao.io'); // a killed local run's
  applyYaml(run.stdout);
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  // The install's cluster-scoped objects, and its Role in default, too.
  if (withoutCrds)
    kubectl(['delete', '--ignore-not-found', '--wait=false', '-f', '-'], { input: withoutCrds });
  for (const ns of [a, b, other]) if (ns) deleteNamespace(ns);
});

describe('reconstruct install --namespaces', () => {
  it('grants child kinds in the watched namespaces only', () => {
    expect(canI('create', 'deployments', a)).toBe('yes');
    expect(canI('patch', 'services', b)).toBe('yes');
    expect(canI('create', 'deployments', 'kube-system')).toBe('no');
    expect(canI('create', 'deployments', other)).toBe('no');
    expect(canI('list', 'configmaps', 'kube-system')).toBe('no');
    expect(canI('list', 'configmaps')).toBe('no'); // not cluster-wide
    expect(canI('list', 'memcacheds.cache.example.com')).toBe('no');
    // Cluster-scoped resources stay cluster-wide.
    expect(canI('create', 'runtimeclasses.node.k8s.io')).toBe('yes');
  });

  it('reconciles a resource in a watched namespace as the ServiceAccount, and none elsewhere', async () => {
    controller = await startController([
      '--kubeconfig',
      tokenKubeconfig(SA, system),
      '--namespaces',
      `${a},${b}`,
      '--leader-elect',
      '--lease-namespace',
      system,
      '--lease-name',
      uniqueName('lease'),
    ]);
    applyYaml(JSON.stringify(memcached('mc', { size: 1 }, a)));
    applyYaml(JSON.stringify(memcached('mc', { size: 1 }, other)));
    await waitFor(() => readiness('mc', a) === 'True', {
      what: `memcached ${a}/mc Ready`,
      timeoutMs: 90_000,
    });
    expect(readiness('mc', other)).toBeUndefined();
    expect(kubectl(['get', 'deployment', 'mc', '-n', other], { allowFail: true }).code).not.toBe(0);
  });
});
