/**
 * One kind that cannot work never stops the others: a missing CRD and a forbidden list each leave the
 * other kinds reconciling, are reported (a log line saying what to do, a metric, /readyz?verbose, the
 * resource's status), and are picked up without a restart once fixed; a sharded controller's ring leader
 * places the other kinds' resources while one kind's CRD is missing.
 */
import { join } from 'node:path';
import { databaseManager, memcached as fixture, webBalancer } from '../fixtures/resources';
import { counter, startController, type RunningController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  forgetConversionUrl,
  getJson,
  kubectl,
  uniqueName,
  waitFor,
} from '../support/kubectl';
import { startMember } from '../controller/sharding/member-process';
import { shardLabel } from '../../controller/sharding/members';
import { serviceAccountKubeconfig } from '../support/controller-role';
import { installRules, record } from './support';

jest.setTimeout(180_000);

const BALANCER_CRD = 'balancers.exposer.hliangzhao.io';
const BALANCER_CRD_FILE = join(__dirname, '../../crds/exposer.hliangzhao.io_balancers.yaml');

let ns: string;
const running: RunningController[] = [];
beforeAll(() => {
  ns = createNamespace('kinds');
});
// Each test's controller goes with it, so that a failed test leaves none to act on the next one's resources.
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop('SIGKILL')));
  // A controller killed after it pointed the CRD's webhook at its own URL leaves it there: the file, which
  // names the Service, is refused beside it.
  if (exists(['crd', BALANCER_CRD])) forgetConversionUrl(BALANCER_CRD);
  kubectl(['apply', '--server-side', '-f', BALANCER_CRD_FILE]);
});
afterAll(() => {
  kubectl(['delete', 'namespace', 'reconstruct-faults', '--ignore-not-found', '--wait=false']);
  kubectl([
    'delete',
    'clusterrole,clusterrolebinding',
    'reconstruct-faults:no-services',
    '--ignore-not-found',
  ]);
  if (ns) deleteNamespace(ns);
});

const memcached = (name: string) => JSON.stringify(fixture(name, { size: 1 }, ns));
const readyCondition = (resource: string, name: string) =>
  getJson<{ status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }>([
    resource,
    name,
    '-n',
    ns,
  ]).status?.conditions?.find((c) => c.type === 'Ready');
const readyz = (c: RunningController) => c.readyz();
const available = async (c: RunningController, kind: string) =>
  counter(await c.metrics(), 'reconstruct_kind_available', (l) => l.includes(`kind="${kind}"`));
const requests = async (c: RunningController) => counter(await c.metrics(), 'reconstruct_api_requests_total');
const notFound = async (c: RunningController) =>
  counter(await c.metrics(), 'reconstruct_api_requests_total', (l) => l.includes('code="404"'));

it('runs the other kinds while a CRD is missing, and picks it up within seconds once installed', async () => {
  kubectl(['delete', 'crd', BALANCER_CRD, '--ignore-not-found']);
  // Cluster-wide, as an install runs it: a controller confined to namespaces does not watch CRDs.
  const controller = await startController([]);
  running.push(controller);

  applyYaml(memcached('while-missing'));
  const started = Date.now();
  await waitFor(() => exists(['deployment', 'while-missing', '-n', ns]), {
    what: 'the Memcached Deployment while the Balancer CRD is missing',
    // A CRD deleted a moment ago: the API server's admission may not map the other kinds' owners for up
    // to 30 s (the controller retries every 3 s, logging "waiting for the API server to map the kind").
    timeoutMs: 45_000,
  });
  const otherKind = (Date.now() - started) / 1000;
  expect(await readyz(controller)).toMatch(
    new RegExp(
      `\\[-\\]kind Balancer unavailable: the API server does not serve ${BALANCER_CRD}.*install its CustomResourceDefinition`,
    ),
  );
  expect(await readyz(controller)).toContain('[+]kind Memcached ready');
  expect(await available(controller, 'Balancer')).toBe(0);
  expect(await available(controller, 'Memcached')).toBe(1);
  const said = controller.logs.filter((l) => l.includes('Balancer resources are not reconciled'));
  expect(said).toHaveLength(1);
  expect(said[0]).toContain('"level":"error"');

  // Ten seconds of the fault: the refused list is retried with backoff, not in a loop.
  const before = { all: await requests(controller), refused: await notFound(controller) };
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const during = (await requests(controller)) - before.all;
  expect((await notFound(controller)) - before.refused).toBeLessThanOrEqual(5);

  const installed = Date.now();
  kubectl(['apply', '--server-side', '-f', BALANCER_CRD_FILE]);
  kubectl(['wait', '--for', 'condition=Established', `crd/${BALANCER_CRD}`, '--timeout=30s']);
  await waitFor(
    async () => {
      applyYaml(JSON.stringify(webBalancer(ns, ['a'])));
      return (
        (await available(controller, 'Balancer')) === 1 && readyCondition('balancer', 'lb') !== undefined
      );
    },
    { what: 'the Balancer to be reconciled after its CRD came back', timeoutMs: 15_000 },
  );
  const pickedUp = (Date.now() - installed) / 1000;
  expect(await readyz(controller)).toContain('[+]kind Balancer ready');
  record({
    fault: 'a kind’s CRD missing at start, installed later',
    bound: 'other kinds unaffected; picked up within 15 s of the install',
    recovery: `other kind reconciled in ${otherKind.toFixed(1)} s; CRD picked up in ${pickedUp.toFixed(1)} s`,
    lostOrDuplicated: 'none',
    requestsPer10s: String(during),
  });
});

it('runs the kinds that do not need a forbidden list, and says so on the others until it is granted', async () => {
  const all = installRules();
  const withoutServices = all
    .map((r) => ({
      ...r,
      resources: r.resources.filter((x) => !(r.apiGroups[0] === '' && x === 'services')),
    }))
    .filter((r) => r.resources.length > 0);
  const kubeconfig = serviceAccountKubeconfig('no-services', 'reconstruct-faults', withoutServices);
  const controller = await startController(
    ['--namespaces', ns, '--kubeconfig', kubeconfig],
    {},
    { refusalsExpected: true },
  );
  running.push(controller);

  applyYaml(
    JSON.stringify(databaseManager('db', { dbtype: 'mysql', deploymentName: 'db-mysql', replicas: 1 }, ns)),
  );
  applyYaml(memcached('forbidden'));
  await waitFor(() => exists(['deployment', 'db-mysql', '-n', ns]), {
    what: 'the DatabaseManager Deployment while services are forbidden',
    timeoutMs: 20_000,
  });
  const condition = await waitFor(
    () => {
      const c = readyCondition('memcached', 'forbidden');
      return c?.reason === 'Unavailable' ? c : undefined;
    },
    { what: 'the Memcached to say why it is not reconciled', timeoutMs: 20_000 },
  );
  expect(condition.status).toBe('False');
  expect(condition.message).toContain('forbidden to list and watch services');
  expect(exists(['deployment', 'forbidden', '-n', ns])).toBe(false);
  expect(await readyz(controller)).toContain(
    '[-]kind Memcached unavailable: forbidden to list and watch services',
  );
  expect(await available(controller, 'DatabaseManager')).toBe(1);

  const granted = Date.now();
  applyYaml(
    JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reconstruct-faults:no-services' },
      rules: all,
    }),
  );
  await waitFor(() => exists(['service', 'forbidden', '-n', ns]), {
    what: 'the Memcached Service once services are granted',
    timeoutMs: 45_000,
  });
  const recovered = (Date.now() - granted) / 1000;
  record({
    fault: 'list/watch of a child kind forbidden (RBAC), granted later',
    bound: 'kinds without that child unaffected; resumed within the informer backoff (≤ 30 s) of the grant',
    recovery: `resumed ${recovered.toFixed(1)} s after the grant`,
    lostOrDuplicated: 'none',
  });
  expect(
    controller.logs.filter((l) => l.includes('"status":403') && l.includes('"level":"warn"')).length,
  ).toBeLessThan(5);
});

it("places and runs the other kinds' resources in a ring while a CRD is missing, and its kind once installed", async () => {
  // The first test's Balancer keeps the finalizer of its controller, gone: the CRD's deletion would wait.
  if (exists(['balancer', 'lb', '-n', ns]))
    kubectl(['patch', 'balancer', 'lb', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  kubectl(['delete', 'crd', BALANCER_CRD, '--ignore-not-found']);
  const ring = uniqueName('ring');
  // Cluster-wide, as an install runs it; its Lease in the test's namespace.
  const member = await startMember(ring, ns, 'off');
  running.push(member);

  applyYaml(memcached('in-ring'));
  await waitFor(() => exists(['deployment', 'in-ring', '-n', ns]), {
    what: 'the Memcached Deployment, placed in the ring while the Balancer CRD is missing',
    // As above: admission may not map the owners of a CRD deleted a moment ago for up to 30 s.
    timeoutMs: 45_000,
  });
  const shardOf = (resource: string, name: string) =>
    getJson<{ metadata: { labels?: Record<string, string> } }>([resource, name, '-n', ns]).metadata.labels?.[
      shardLabel(ring)
    ];
  expect(shardOf('memcached', 'in-ring')).toBeDefined();

  kubectl(['apply', '--server-side', '-f', BALANCER_CRD_FILE]);
  kubectl(['wait', '--for', 'condition=Established', `crd/${BALANCER_CRD}`, '--timeout=30s']);
  await waitFor(
    () => {
      applyYaml(JSON.stringify(webBalancer(ns, ['a'])));
      return shardOf('balancer', 'lb') !== undefined && readyCondition('balancer', 'lb') !== undefined;
    },
    { what: 'the Balancer to be placed and reconciled after its CRD came back', timeoutMs: 30_000 },
  );
});
