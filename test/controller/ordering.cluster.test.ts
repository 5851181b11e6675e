/**
 * Ordering that holds on updates, on the local control plane: a WebApp (test/fixtures/kinds/web-app.ts)
 * whose Deployment waits for a migration Job of its image. On an image change the Deployment keeps the
 * old image until the new Job completes; a fixed-name Job, whose template the API server will not
 * change, is replaced with the replace policy and named in Ready without it. The decisions behind it
 * are unit-tested in ordering.test.ts.
 */
import { join } from 'node:path';
import { sleep } from '../../controller/abortable';
import { webAppKind, type WebAppSpec } from '../fixtures/kinds/web-app';
import { type RunningController, startController } from '../support/controller';
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
  waitFor,
} from '../support/kubectl';

jest.setTimeout(240_000);

const MODULE = join(__dirname, '../fixtures/kinds/web-app.ts');

let ns: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  installCrds([webAppKind]);
  ns = createNamespace('ordering');
  controller = await startController(['--kinds', MODULE, '--no-builtin-kinds', '--namespaces', ns]);
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

const apply = (name: string, spec: WebAppSpec) =>
  applyYaml(
    JSON.stringify({
      apiVersion: webAppKind.apiVersion,
      kind: 'WebApp',
      metadata: { name, namespace: ns },
      spec,
    }),
  );
const ready = (name: string) => readyCondition('webapp', name, ns);
const image = (name: string) => {
  try {
    return getJson<{ spec: { template: { spec: { containers: { image: string }[] } } } }>([
      'deployment',
      name,
      '-n',
      ns,
    ]).spec.template.spec.containers[0].image;
  } catch {
    return undefined;
  }
};
const jobs = (name: string) =>
  getJson<{
    items: {
      metadata: { name: string; uid: string };
      spec: { template: { spec: { containers: { image: string }[] } } };
    }[];
  }>(['jobs', '-n', ns, '-l', `app.kubernetes.io/instance=${name}`]).items.map((j) => ({
    name: j.metadata.name,
    uid: j.metadata.uid,
    image: j.spec.template.spec.containers[0].image,
  }));
const isReady = (name: string) => ready(name)?.status === 'True';
/** Watches for `ms`: the Deployment must keep `expected` the whole time. */
async function keeps(name: string, expected: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    expect(image(name)).toBe(expected);
    await sleep(500);
  }
}

it('with a Job named after the image: the Deployment keeps its image until the new migration completes', async () => {
  apply('hashed', { image: 'app:v1', replicas: 1, migrate: { naming: 'hashed' } });
  // The first test after the CRD is installed: the API server may not map the kind for up to 30 s.
  await waitFor(() => isReady('hashed'), { what: 'the first version to be Ready', timeoutMs: 120_000 });
  expect(image('hashed')).toBe('app:v1');

  apply('hashed', { image: 'app:v2', replicas: 1, migrate: { naming: 'hashed', hold: true } });
  await waitFor(() => jobs('hashed').some((j) => j.image === 'app:v2'), { what: 'the new migration Job' });
  const held = jobs('hashed').find((j) => j.image === 'app:v2')!.name;
  await waitFor(() => ready('hashed')?.reason === 'Waiting', { what: 'Ready to say Waiting' });
  expect(ready('hashed')?.message).toBe(
    `Deployment hashed waits for Job ${held}: not complete (1 active, 0 succeeded)`,
  );
  await keeps('hashed', 'app:v1', 6_000);
  // A wait that lasts is said in an event too (controller/reconcile/waits.ts: after 5 s).
  const waits = () => events(ns, 'involvedObject.name=hashed,reason=Waiting').map((e) => e.message);
  await waitFor(() => waits().length > 0, { what: 'the Waiting event' });
  expect(waits()).toContain(`Deployment hashed waits for Job ${held}: not complete (1 active, 0 succeeded)`);

  apply('hashed', { image: 'app:v2', replicas: 1, migrate: { naming: 'hashed' } });
  await waitFor(() => image('hashed') === 'app:v2', {
    what: 'the Deployment to roll once the migration completed',
  });
  await waitFor(() => isReady('hashed'), { what: 'Ready again' });
});

it('with a fixed-name Job and no replace policy: Ready names the immutable field, the Deployment stays', async () => {
  apply('fixed', { image: 'app:v1', replicas: 1, migrate: { naming: 'fixed' } });
  await waitFor(() => isReady('fixed'), { what: 'the first version to be Ready', timeoutMs: 60_000 });

  apply('fixed', { image: 'app:v2', replicas: 1, migrate: { naming: 'fixed' } });
  await waitFor(() => ready('fixed')?.reason === 'ApplyFailed', { what: 'Ready to say the apply failed' });
  expect(ready('fixed')?.message).toMatch(
    /^Job fixed-migrate: spec\.template is immutable: the API server refuses the change/,
  );
  await keeps('fixed', 'app:v1', 4_000);
});

it('with a fixed-name Job and the replace policy: the Job is made again, then the Deployment rolls', async () => {
  apply('replaced', { image: 'app:v1', replicas: 1, migrate: { naming: 'fixed', replace: true } });
  await waitFor(() => isReady('replaced'), { what: 'the first version to be Ready', timeoutMs: 60_000 });
  const [first] = jobs('replaced');

  apply('replaced', { image: 'app:v2', replicas: 1, migrate: { naming: 'fixed', replace: true } });
  await waitFor(() => jobs('replaced').some((j) => j.uid !== first.uid && j.image === 'app:v2'), {
    what: 'the Job to be replaced',
  });
  await waitFor(() => image('replaced') === 'app:v2', { what: 'the Deployment to roll' });
  await waitFor(() => isReady('replaced'), { what: 'Ready again' });
});

it('deletes in reverse order: the Job the Deployment waited for stays until the Deployment is gone', async () => {
  apply('ordered', { image: 'app:v1', replicas: 1, migrate: { naming: 'fixed' } });
  await waitFor(() => isReady('ordered'), { what: 'Ready', timeoutMs: 60_000 });
  const present = (kind: string, name: string) => exists([kind, name, '-n', ns]);
  const holdDeployment = (finalizers: string[] | null) =>
    kubectl([
      'patch',
      'deployment',
      'ordered',
      '-n',
      ns,
      '--type=merge',
      '-p',
      JSON.stringify({ metadata: { finalizers } }),
    ]);
  // A finalizer of the test's own holds the Deployment while it is being deleted.
  holdDeployment(['example.com/hold']);
  kubectl(['delete', 'webapp', 'ordered', '-n', ns, '--wait=false']);
  await waitFor(
    () =>
      getJson<{ metadata: { deletionTimestamp?: string } }>(['deployment', 'ordered', '-n', ns]).metadata
        .deletionTimestamp !== undefined,
    { what: 'the Deployment to be deleted first' },
  );
  await sleep(3_000);
  expect([present('job', 'ordered-migrate'), present('webapp', 'ordered')]).toEqual([true, true]);

  holdDeployment(null);
  await waitFor(() => !present('job', 'ordered-migrate'), { what: 'the Job to go after it' });
  await waitFor(() => !present('webapp', 'ordered'), { what: 'the WebApp to go' });
});
