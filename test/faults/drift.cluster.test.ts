/**
 * Drift that server-side apply alone cannot undo converges back: a Service port and a container port
 * changed by hand (their list-map keys: apply would add ours beside them and the API server refuses the
 * duplicate name), an env entry renamed and a volume added by another manager (apply would keep them
 * beside ours).
 */
import { startController, type RunningController } from '../support/controller';
import { applyYaml, createNamespace, deleteNamespace, getJson, kubectl, waitFor } from '../support/kubectl';
import { databaseManager, memcached, webBalancer } from '../fixtures/resources';
import { record } from './support';

jest.setTimeout(180_000);

let ns: string;
let controller: RunningController;
beforeAll(async () => {
  ns = createNamespace('drift');
  controller = await startController(['--namespaces', ns]);
  applyYaml(
    [
      memcached('mc', { size: 1 }, ns),
      webBalancer(ns, ['a']),
      databaseManager('db', { dbtype: 'mysql', deploymentName: 'db', replicas: 1 }, ns),
    ]
      .map((d) => JSON.stringify(d))
      .join('\n---\n'),
  );
  await waitFor(
    () =>
      kubectl(['get', 'deployment/mc', 'service/mc', 'deployment/db', 'deployment/lbproxy', '-n', ns], {
        allowFail: true,
      }).code === 0,
    {
      what: 'the children',
    },
  );
});
afterAll(async () => {
  await controller?.stop();
  if (ns) deleteNamespace(ns);
});

const patch = (object: string, ops: unknown[]) =>
  kubectl(['patch', object, '-n', ns, '--type=json', '-p', JSON.stringify(ops)]);
const ready = (resource: string) =>
  getJson<{ status?: { conditions?: { type: string; status: string; reason: string }[] } }>([
    resource,
    '-n',
    ns,
  ]).status?.conditions?.find((c) => c.type === 'Ready');
type Pod = {
  containers: { ports?: { containerPort: number; name?: string }[]; env?: { name: string }[] }[];
  volumes?: { name: string }[];
};
const template = (deployment: string) =>
  getJson<{ spec: { template: { spec: Pod } } }>([deployment, '-n', ns]).spec.template.spec;

async function converges(what: string, change: () => void, done: () => boolean): Promise<number> {
  change();
  const started = Date.now();
  await waitFor(done, { what, timeoutMs: 30_000 });
  const seconds = (Date.now() - started) / 1000;
  return seconds;
}

it('a Service port changed by hand comes back, and the resource does not stay ApplyFailed', async () => {
  const seconds = await converges(
    'the Service to have exactly its one port again',
    () => patch('service/mc', [{ op: 'replace', path: '/spec/ports/0/port', value: 11212 }]),
    () => {
      const ports = getJson<{ spec: { ports: { port: number }[] } }>(['service/mc', '-n', ns]).spec.ports;
      return ports.length === 1 && ports[0].port === 11211;
    },
  );
  expect(ready('memcached/mc')?.reason).not.toBe('ApplyFailed');
  record({
    fault: 'a Service port (list-map key) edited by hand',
    bound: 'back to the desired port at the next reconcile (the child’s own watch event)',
    recovery: `${seconds.toFixed(1)} s`,
    lostOrDuplicated: 'none (no duplicate port left)',
  });
});

it('a container port changed by hand comes back', async () => {
  const seconds = await converges(
    'the container to have exactly its one port again',
    () =>
      patch('deployment/mc', [
        { op: 'replace', path: '/spec/template/spec/containers/0/ports/0/containerPort', value: 11299 },
      ]),
    () => {
      const ports = template('deployment/mc').containers[0].ports ?? [];
      return ports.length === 1 && ports[0].containerPort === 11211;
    },
  );
  expect(ready('memcached/mc')?.reason).not.toBe('ApplyFailed');
  record({
    fault: 'a container port (list-map key) edited by hand',
    bound: 'back at the next reconcile',
    recovery: `${seconds.toFixed(1)} s`,
    lostOrDuplicated: 'none',
  });
});

it('an env entry renamed by hand is renamed back, not kept beside ours', async () => {
  const seconds = await converges(
    'the env to be exactly the desired one again',
    () =>
      patch('deployment/db', [
        { op: 'replace', path: '/spec/template/spec/containers/0/env/0/name', value: 'RENAMED' },
      ]),
    () => {
      const env = template('deployment/db').containers[0].env ?? [];
      return env.length === 1 && env[0].name === 'MYSQL_RANDOM_ROOT_PASSWORD';
    },
  );
  record({
    fault: 'an env entry (list-map key) renamed by hand',
    bound: 'back at the next reconcile',
    recovery: `${seconds.toFixed(1)} s`,
    lostOrDuplicated: 'none (the renamed entry is removed)',
  });
});

it('a volume another manager added beside ours is removed', async () => {
  const volumes = () => (template('deployment/lbproxy').volumes ?? []).map((v) => v.name);
  const before = volumes();
  expect(before.length).toBeGreaterThan(0);
  const seconds = await converges(
    'the volumes to be the desired ones again',
    () =>
      patch('deployment/lbproxy', [
        { op: 'add', path: '/spec/template/spec/volumes/-', value: { name: 'extra', emptyDir: {} } },
      ]),
    () => JSON.stringify(volumes()) === JSON.stringify(before),
  );
  record({
    fault: 'a volume added beside ours by another manager',
    bound: 'removed at the next reconcile',
    recovery: `${seconds.toFixed(1)} s`,
    lostOrDuplicated: 'none',
  });
});

it('repaired each drift without a failed reconcile', async () => {
  await waitFor(
    () => controller.logs.filter((l) => l.includes('repaired drift that an apply cannot undo')).length >= 4,
    { what: 'a log line for each of the four repairs' },
  );
  expect(controller.logs.filter((l) => l.includes('reconcile failed'))).toEqual([]);
});
