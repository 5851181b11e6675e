/**
 * Faults in the children's world: an object of the same name that is not ours (ErrResourceExists) is
 * noticed when it goes, within seconds, not at the resync; pods that cannot be created (a quota) are said
 * in the resource's Ready condition, with the API server's reason.
 */
import { databaseManager, memcached } from '../fixtures/resources';
import { startController, type RunningController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  kubectl,
  waitFor,
} from '../support/kubectl';
import { record } from './support';

jest.setTimeout(120_000);

let ns: string;
let controller: RunningController;
beforeAll(async () => {
  ns = createNamespace('children');
  controller = await startController(['--namespaces', ns]);
});
afterAll(async () => {
  await controller?.stop();
  if (ns) deleteNamespace(ns);
});

type Ready = { status: string; reason: string; message: string };
const ready = (resource: string) =>
  getJson<{ status?: { conditions?: (Ready & { type: string })[] } }>([
    resource,
    '-n',
    ns,
  ]).status?.conditions?.find((c) => c.type === 'Ready');

it('a DatabaseManager whose Deployment name is taken goes ahead within seconds of the foreign one going', async () => {
  kubectl(['create', 'deployment', 'taken', '--image=mysql:8', '-n', ns]);
  applyYaml(
    JSON.stringify(databaseManager('db', { dbtype: 'mysql', deploymentName: 'taken', replicas: 1 }, ns)),
  );
  await waitFor(() => ready('databasemanager/db')?.reason === 'ErrResourceExists', {
    what: 'the DatabaseManager to say its Deployment name is taken',
  });
  kubectl(['delete', 'deployment', 'taken', '-n', ns, '--wait=true']);
  const gone = Date.now();
  await waitFor(
    () =>
      exists(['deployment', 'taken', '-n', ns]) &&
      getJson<{ metadata: { ownerReferences?: { kind: string }[] } }>(['deployment', 'taken', '-n', ns])
        .metadata.ownerReferences?.[0]?.kind === 'DatabaseManager',
    { what: 'the DatabaseManager’s own Deployment', timeoutMs: 30_000 },
  );
  const seconds = (Date.now() - gone) / 1000;
  expect(seconds).toBeLessThan(10);
  record({
    fault: 'a foreign object in a child’s way (ErrResourceExists) deleted',
    bound: 'reconciled when it goes (its watch), not at a resync',
    recovery: `${seconds.toFixed(1)} s`,
    lostOrDuplicated: 'none',
  });
});

it('pods that cannot be created are said in Ready, with the reason', async () => {
  kubectl(['create', 'quota', 'no-pods', '--hard=pods=0', '-n', ns]);
  applyYaml(JSON.stringify(memcached('mc', { size: 1 }, ns)));
  const started = Date.now();
  const condition = await waitFor(
    () => {
      const c = ready('memcached/mc');
      return c?.message.includes('exceeded quota') ? c : undefined;
    },
    { what: 'Ready to say why no pod is created', timeoutMs: 60_000 },
  );
  expect(condition.status).toBe('False');
  expect(condition.message).toContain('cannot create pods');
  record({
    fault: 'pods cannot be created (a ResourceQuota refuses them)',
    bound: 'Ready=False says why (the Deployment’s ReplicaFailure)',
    recovery: `said in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    lostOrDuplicated: '-',
  });
});
