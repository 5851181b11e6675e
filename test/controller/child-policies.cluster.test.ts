/**
 * Each child policy on the local control plane, with the controller running as a user runs it
 * (`reconstruct controller --kinds`), for the PolicyDemo kind of test/fixtures/kinds/policy-demo.ts.
 * Every check here fails when the policy is ignored: run with RECONSTRUCT_TEST_POLICIES=off to render
 * the same children without policies and see each test fail.
 */
import { join } from 'node:path';
import { policyDemoKind, type PolicyDemoSpec } from '../fixtures/kinds/policy-demo';
import { leads, type RunningController, startController, watchingOnly } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  events,
  exists,
  getJson,
  installCrds,
  kubectl,
  readyCondition,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(240_000);

const MODULE = join(__dirname, '../fixtures/kinds/policy-demo.ts');
const POLICIES = process.env.RECONSTRUCT_TEST_POLICIES !== 'off';

let ns: string;
let lease: string;
const running: RunningController[] = [];
const start = async () => {
  const c = await startController([
    '--kinds',
    MODULE,
    '--no-builtin-kinds',
    ...watchingOnly(ns, lease),
    '--lease-duration',
    '6',
  ]);
  running.push(c);
  return c;
};

beforeAll(async () => {
  installCrds([policyDemoKind]);
  ns = createNamespace('policies');
  lease = uniqueName('lease');
  await start();
});
afterAll(async () => {
  await Promise.all(running.map((c) => c.stop('SIGKILL')));
  if (ns) deleteNamespace(ns);
});

const apply = (name: string, spec: PolicyDemoSpec) =>
  applyYaml(
    JSON.stringify({
      apiVersion: policyDemoKind.apiVersion,
      kind: policyDemoKind.kind,
      metadata: { name, namespace: ns },
      spec: { ...spec, policies: POLICIES },
    }),
  );

const ready = (name: string) => readyCondition('policydemo', name, ns);
const get = <T>(kind: string, name: string) => getJson<T>([kind, name, '-n', ns]);
const token = (name: string) =>
  Buffer.from(get<{ data: { token: string } }>('secret', `${name}-token`).data.token, 'base64').toString();
const eventsOf = (name: string, reason: string) =>
  events(ns, `involvedObject.name=${name},reason=${reason}`).map((e) => e.message);
const inNamespace = (kind: string, name: string) => exists([kind, name, '-n', ns]);

it('create-only: the generated value survives a spec change, a restart and a failover; a deleted Secret is made anew', async () => {
  apply('tok', { token: true });
  // The first test after the CRD is installed: the API server may not map the kind for up to 30 s.
  await waitFor(() => inNamespace('secret', 'tok-token'), { what: 'the token Secret', timeoutMs: 60_000 });
  const first = token('tok');
  expect(first).toMatch(/^[A-Za-z0-9]{16}$/);

  // A spec change: the reconcile that makes the data ConfigMaps leaves the Secret as it was.
  apply('tok', { token: true, data: true });
  await waitFor(() => inNamespace('configmap', 'tok-scratch'), { what: 'the spec change to be reconciled' });
  expect(token('tok')).toBe(first);

  // A restart: a new process knows nothing but the cluster.
  const [leader] = running;
  expect(await leader.stop('SIGTERM')).toBe(0);
  const restarted = await start();
  await waitFor(() => leads(restarted), { what: 'the restarted controller to lead' });
  apply('tok', { token: true });
  await waitFor(() => !inNamespace('configmap', 'tok-scratch'), { what: 'the second spec change' });
  expect(token('tok')).toBe(first);

  // A failover: a standby takes the lease from a killed leader and reconciles a third change.
  const standby = await start();
  await restarted.stop('SIGKILL');
  await waitFor(() => leads(standby), { what: 'the standby to take over', timeoutMs: 30_000 });
  apply('tok', { token: true, data: true });
  await waitFor(() => inNamespace('configmap', 'tok-scratch'), { what: 'the new leader to reconcile' });
  expect(token('tok')).toBe(first);

  kubectl(['delete', 'secret', 'tok-token', '-n', ns]);
  await waitFor(() => inNamespace('secret', 'tok-token'), { what: 'a new token Secret' });
  expect(token('tok')).toMatch(/^[A-Za-z0-9]{16}$/);
  expect(token('tok')).not.toBe(first);
});

it('retain: a retained child outlives its rendering and its resource, labelled; its sibling does not', async () => {
  apply('keep', { data: true });
  await waitFor(() => inNamespace('configmap', 'keep-data') && inNamespace('configmap', 'keep-scratch'), {
    what: 'both ConfigMaps',
  });

  apply('keep', {});
  await waitFor(() => !inNamespace('configmap', 'keep-scratch'), { what: 'the sibling to be pruned' });
  expect(inNamespace('configmap', 'keep-data')).toBe(true);
  await waitFor(() => eventsOf('keep', 'Retained').length > 0, { what: 'the Retained event' });
  expect(eventsOf('keep', 'Retained')[0]).toContain('ConfigMap keep-data');

  // Rendered again by the same resource: taken back; then the resource goes.
  apply('keep', { data: true });
  await waitFor(() => inNamespace('configmap', 'keep-scratch'), { what: 'the sibling again' });
  kubectl(['delete', 'policydemo', 'keep', '-n', ns]);
  await waitFor(() => !inNamespace('configmap', 'keep-scratch'), {
    what: 'the garbage collector to delete the sibling',
    timeoutMs: 90_000,
  });
  const data = get<{ metadata: { labels: Record<string, string>; ownerReferences?: unknown[] } }>(
    'configmap',
    'keep-data',
  );
  expect(data.metadata.labels).toMatchObject({
    'app.kubernetes.io/managed-by': 'reconstruct',
    'app.kubernetes.io/instance': 'keep',
  });
  expect(data.metadata.ownerReferences ?? []).toEqual([]);
});

it('ignore fields: the autoscaler owns spec.replicas; the image still follows the spec; no write loop', async () => {
  type Deployment = {
    metadata: { generation: number };
    spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  };
  const web = () => get<Deployment>('deployment', 'scale-web');
  apply('scale', { web: { image: 'busybox:1.36', replicas: 2 } });
  await waitFor(() => inNamespace('deployment', 'scale-web'), { what: 'the Deployment' });
  expect(web().spec.replicas).toBe(2);

  // An autoscaler-style writer, with its own field manager, scales it.
  const scale = () =>
    kubectl([
      'patch',
      'deployment',
      'scale-web',
      '-n',
      ns,
      '--type=merge',
      '--field-manager=autoscaler',
      '-p',
      '{"spec":{"replicas":4}}',
    ]);
  scale();
  apply('scale', { web: { image: 'busybox:1.37', replicas: 2 } });
  await waitFor(() => web().spec.template.spec.containers[0].image === 'busybox:1.37', {
    what: 'the image change',
  });
  expect(web().spec.replicas).toBe(4);
  await waitFor(() => ready('scale')?.status === 'True', { what: 'scale Ready', timeoutMs: 60_000 });

  // 30 s with the autoscaler asserting its value every second: neither it nor the controller writes the
  // Deployment (its managers' write times stay; the controller's lease renewals are not about it).
  const managers = () =>
    getJson<{ metadata: { managedFields: { manager: string; operation: string; time: string }[] } }>([
      'deployment',
      'scale-web',
      '-n',
      ns,
      '--show-managed-fields',
    ])
      .metadata.managedFields.filter((f) => f.manager !== 'kube-controller-manager')
      .map((f) => `${f.manager} ${f.operation} ${f.time}`)
      .sort();
  const generation = web().metadata.generation;
  const before = managers();
  // The autoscaler's update took spec.replicas from reconstruct-initial, which then owns nothing.
  expect(before.map((m) => m.split(' ').slice(0, 2).join(' '))).toEqual([
    'autoscaler Update',
    'reconstruct Apply',
  ]);
  let autoscalerWrites = 0;
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    if (web().spec.replicas !== 4) {
      scale();
      autoscalerWrites += 1;
    }
  }
  expect(autoscalerWrites).toBe(0);
  expect(web().metadata.generation).toBe(generation);
  expect(managers()).toEqual(before);
});

it('wait for: a child waiting for a sibling that is not ready is not created, and the status says so', async () => {
  apply('order', { gate: { schedulable: false } });
  await waitFor(() => inNamespace('deployment', 'order-gate'), { what: 'the gate Deployment' });
  await waitFor(() => ready('order')?.reason === 'Waiting', { what: 'Ready=False Waiting' });
  expect(ready('order')?.message).toMatch(
    /^ConfigMap order-after waits for Deployment order-gate: 0 of 1 replicas (updated|available)$/,
  );
  // A wait that lasts (5 s, controller/reconcile/waits.ts) is said in a Waiting event; the child is not made.
  await waitFor(
    () =>
      eventsOf('order', 'Waiting').some((e) =>
        e.includes('ConfigMap order-after waits for Deployment order-gate'),
      ),
    { what: 'a Waiting event once the wait has lasted', timeoutMs: 30_000 },
  );
  expect(inNamespace('configmap', 'order-after')).toBe(false);

  apply('order', { gate: { schedulable: true } });
  await waitFor(() => inNamespace('configmap', 'order-after'), {
    what: 'the ConfigMap once the gate is ready',
    timeoutMs: 90_000,
  });
});

it('readiness: Ready names the Deployment, StatefulSet or Job that blocks, with why', async () => {
  const cases: [string, PolicyDemoSpec['blocker'], RegExp][] = [
    ['block-deploy', 'Deployment', /^Deployment block-deploy-blocker: 0 of 1 replicas (updated|available)$/],
    ['block-sts', 'StatefulSet', /^StatefulSet block-sts-blocker: 0 of 1 replicas ready$/],
    ['block-job', 'Job', /^Job block-job-blocker: not complete \(1 active, 0 succeeded\)$/],
  ];
  for (const [name, blocker] of cases) apply(name, { blocker });
  for (const [name, , message] of cases) {
    await waitFor(() => message.test(ready(name)?.message ?? ''), {
      what: `${name}: Ready naming its blocker`,
      timeoutMs: 60_000,
    });
    expect(ready(name)).toMatchObject({ status: 'False', reason: 'Progressing' });
  }
});
