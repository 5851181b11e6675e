/**
 * A new revision of a kind on the local control plane (docs/OPERATING.md, "Rolling out a new revision"):
 * 50 resources of the Rolling kind run its first build (test/fixtures/kinds/rolling-v1.ts); the
 * controller is restarted with the second build (rolling-v2.ts), which changes every Deployment, and moves
 * them at most 5 at a time, oldest first, measured from the Deployments' own rollouts; then with a third
 * build that breaks Ready (rolling-v3-broken.ts), one at a time, which stops after 2 failures.
 */
import { join } from 'node:path';
import { rolling } from '../fixtures/kinds/rolling';
import { rollingV1 } from '../fixtures/kinds/rolling-v1';
import { type RunningController, startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  installCrds,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(420_000);

const COUNT = 50;
const IN_FLIGHT = 5;
const BUILD = (n: string) => join(__dirname, `../fixtures/kinds/rolling-${n}.ts`);

let ns: string;
let controller: RunningController | undefined;

const run = async (build: string, ...flags: string[]) => {
  await controller?.stop();
  controller = await startController([
    '--kinds',
    BUILD(build),
    '--no-builtin-kinds',
    '--namespaces',
    ns,
    ...flags,
  ]);
};

beforeAll(() => {
  installCrds([rollingV1]);
  ns = createNamespace('rollout');
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

interface Deployment {
  metadata: { name: string; generation: number };
  spec: {
    replicas: number;
    template: { spec: { containers: { env?: { name: string; value: string }[] }[] } };
  };
  status?: {
    observedGeneration?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    replicas?: number;
  };
}
interface Rolling {
  metadata: { name: string };
  status?: {
    lastAppliedRevision?: string;
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}
const NAMES = Array.from({ length: COUNT }, (_, i) => `r${String(i).padStart(2, '0')}`);
const deployments = () => getJson<{ items: Deployment[] }>(['deployments', '-n', ns]).items;
const rollings = () => getJson<{ items: Rolling[] }>(['rollings', '-n', ns]).items;
const buildOf = (d: Deployment) =>
  d.spec.template.spec.containers[0].env?.find((e) => e.name === 'BUILD')?.value;
/** The Deployment's controller has rolled out its latest spec: every replica updated and available. */
const rolledOut = (d: Deployment) =>
  (d.status?.observedGeneration ?? 0) >= d.metadata.generation &&
  d.status?.updatedReplicas === d.spec.replicas &&
  d.status?.availableReplicas === d.spec.replicas &&
  d.status?.replicas === d.spec.replicas;
const allAt = (revision: string) => {
  const items = rollings();
  return (
    items.length === COUNT &&
    items.every(
      (r) =>
        r.status?.lastAppliedRevision === revision &&
        r.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    )
  );
};

/**
 * Watches the Deployments while `until` is false: the most of them rolling at once (their template at
 * `build` and not rolled out yet), and the order in which they first took `build`.
 */
async function observe(build: string, until: () => boolean, timeoutMs: number) {
  const order: string[] = [];
  let most = 0;
  const look = () => {
    const items = deployments();
    const rolling = items.filter((d) => buildOf(d) === build && !rolledOut(d)).length;
    most = Math.max(most, rolling);
    for (const d of items)
      if (buildOf(d) === build && !order.includes(d.metadata.name)) order.push(d.metadata.name);
  };
  const deadline = Date.now() + timeoutMs;
  while (!until()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${order.length} of ${COUNT} at ${build}`);
    look();
    await new Promise((r) => setTimeout(r, 100));
  }
  // Once more: those that took the build between the last look and \`until\` turning true (a CI run missed one).
  look();
  return { order, most };
}

it(`moves ${COUNT} resources to a new build at most ${IN_FLIGHT} at a time, oldest first, and stops a broken one after 2`, async () => {
  // Created oldest first: r00 to r49, a few at a time so that their creation times differ.
  await run('v1');
  for (const name of NAMES) {
    applyYaml(JSON.stringify(rolling(name, ns)));
    if (Number(name.slice(1)) % 10 === 9) await new Promise((r) => setTimeout(r, 1_100));
  }
  await waitFor(() => allAt('v1'), { what: `${COUNT} Rollings Ready at v1`, timeoutMs: 180_000 });

  const started = Date.now();
  await run('v2', '--rollout-max-in-flight', String(IN_FLIGHT));
  const v2 = await observe('v2', () => allAt('v2'), 240_000);
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `v1 -> v2: ${COUNT} resources in ${seconds.toFixed(1)} s, at most ${v2.most} Deployments rolling at once (limit ${IN_FLIGHT})\n`,
  );
  expect(v2.most).toBeLessThanOrEqual(IN_FLIGHT);
  expect(v2.most).toBeGreaterThan(1); // a pace, not one at a time
  expect(v2.order).toHaveLength(COUNT);
  // Oldest first: the first five to move are the five oldest; the last ten among the newest twenty.
  expect([...v2.order.slice(0, IN_FLIGHT)].sort()).toEqual(NAMES.slice(0, IN_FLIGHT));
  expect(v2.order.slice(-10).every((n) => NAMES.indexOf(n) >= 30)).toBe(true);
  expect(deployments().every((d) => buildOf(d) === 'v2' && rolledOut(d))).toBe(true);
  expect(await controller!.metrics()).toMatch(
    /reconstruct_rollout_resources\{kind="Rolling",state="done"\} 50/,
  );

  // A build that breaks Ready (its pods fit no node), one at a time: two fail past the deadline, and
  // the rollout stops there.
  await run(
    'v3-broken',
    '--rollout-max-in-flight',
    '1',
    '--rollout-failure-threshold',
    '2',
    '--rollout-progress-deadline',
    '8',
  );
  const stopped = () =>
    rollings().filter((r) =>
      r.status?.conditions?.some((c) => c.type === 'Rollout' && c.reason === 'Stopped'),
    ).length ===
    COUNT - 2;
  const v3 = await observe('v3', stopped, 90_000);
  await new Promise((r) => setTimeout(r, 10_000)); // and stays stopped
  const atV3 = deployments()
    .filter((d) => buildOf(d) === 'v3')
    .map((d) => d.metadata.name);
  process.stdout.write(`v2 -> v3 (broken): stopped after ${atV3.length} resources: ${atV3.join(', ')}\n`);
  expect(atV3).toEqual(NAMES.slice(0, 2));
  expect(v3.most).toBeLessThanOrEqual(2);
  const held = rollings().find((r) => r.metadata.name === 'r10')!;
  expect(held.status?.lastAppliedRevision).toBe('v2');
  expect(held.status?.conditions?.find((c) => c.type === 'Rollout')?.message).toMatch(
    /^the rollout of revision v3 stopped: 2 resource\(s\) moved to it are not Ready after 8 s \(r00, r01\)/,
  );
  expect(held.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
});
