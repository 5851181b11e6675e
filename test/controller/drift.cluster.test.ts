/**
 * Drift you can watch, on the API server (controller/drift): a Memcached's Deployment scaled by hand is
 * left as edited for 60 s in warn mode, with a `Drifted` condition and a Warning event naming the field and
 * `reconstruct_drift_total` counting it; in correct mode (the default) it is scaled back within seconds
 * and the repair reported the same way.
 */
import { DRIFT_ANNOTATION } from '../../constructs';
import { counter, startController, watchingOnly, type RunningController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  events,
  getJson,
  kubectl,
  waitFor,
} from '../support/kubectl';
import { memcached } from '../fixtures/resources';

jest.setTimeout(240_000);

let ns: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  ns = createNamespace('drift');
  controller = await startController(watchingOnly(ns, 'drift'));
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

type Status = { conditions?: { type: string; status: string; reason: string; message: string }[] };
const drifted = (name: string) =>
  getJson<{ status?: Status }>(['memcached', name, '-n', ns]).status?.conditions?.find(
    (c) => c.type === 'Drifted',
  );
const replicas = (name: string) =>
  getJson<{ spec: { replicas: number } }>(['deployment', name, '-n', ns]).spec.replicas;
const said = (name: string, reason: string) =>
  events(ns, `involvedObject.name=${name},reason=${reason}`).map((e) => e.message);
const drifts = async () =>
  counter(
    await controller!.metrics(),
    'reconstruct_drift_total',
    (l) => l.includes('kind="Memcached"') && l.includes('child_kind="Deployment"'),
  );

/** A Memcached of 2 made and applied, then its Deployment scaled to 5 by hand (kubectl scale). */
async function scaledByHand(name: string, annotations: Record<string, string> = {}) {
  const resource = memcached(name, { size: 2 }, ns);
  applyYaml(JSON.stringify({ ...resource, metadata: { ...resource.metadata, annotations } }));
  await waitFor(() => replicas(name) === 2, { what: `${name}'s Deployment`, timeoutMs: 60_000 });
  kubectl(['scale', 'deployment', name, '-n', ns, '--replicas=5']);
}

it('warn: leaves the hand edit for 60 s, and says which field in the condition, an event and the metric', async () => {
  const before = await drifts();
  await scaledByHand('kept', { [DRIFT_ANNOTATION]: 'warn' });
  await waitFor(() => drifted('kept')?.status === 'True', { what: 'Drifted=True', timeoutMs: 30_000 });
  expect(drifted('kept')).toMatchObject({
    reason: 'ChangedOutside',
    message: `Deployment kept: spec.replicas differs from what the construct renders; left as it is (${DRIFT_ANNOTATION}: warn)`,
  });
  await waitFor(() => said('kept', 'Drifted').length > 0, { what: 'the Drifted event' });
  expect(said('kept', 'Drifted')).toEqual([
    `Deployment kept: spec.replicas was changed outside the construct; left as it is (${DRIFT_ANNOTATION}: warn)`,
  ]);
  for (let waited = 0; waited < 60_000; waited += 5_000) {
    expect(replicas('kept')).toBe(5);
    await new Promise((r) => setTimeout(r, 5_000));
  }
  expect(replicas('kept')).toBe(5);
  expect(said('kept', 'Drifted')).toHaveLength(1);
  expect((await drifts()) - before).toBe(1);

  // Switched to correct: repaired, and the condition goes.
  kubectl(['annotate', 'memcached', 'kept', '-n', ns, `${DRIFT_ANNOTATION}=correct`, '--overwrite']);
  await waitFor(() => replicas('kept') === 2, {
    what: 'the repair once the mode is correct',
    timeoutMs: 30_000,
  });
  await waitFor(() => drifted('kept') === undefined, { what: 'no Drifted condition in correct mode' });
});

it('correct (the default): scales it back within seconds, and reports the repair', async () => {
  const before = await drifts();
  await scaledByHand('fixed');
  await waitFor(() => replicas('fixed') === 2, { what: 'the Deployment scaled back', timeoutMs: 30_000 });
  await waitFor(() => said('fixed', 'DriftCorrected').length > 0, { what: 'the DriftCorrected event' });
  expect(said('fixed', 'DriftCorrected')).toEqual([
    'Deployment fixed: spec.replicas was changed outside the construct; set back to what the construct renders',
  ]);
  expect(drifted('fixed')).toBeUndefined();
  expect((await drifts()) - before).toBe(1);
});
