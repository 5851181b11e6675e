/**
 * The conditions that say a resource's health to other tools (controller/health/conditions.ts), as the
 * status writes them: Reconciling while on its way, Stalled when waiting will not help, neither once
 * Ready; and where stalled comes from (the kit's own refusals, a child failed for good, a handler's
 * ExternalError). Argo CD's and kstatus's verdicts on them: test/controller/health.cluster.test.ts.
 */
import { ExternalError, type CustomResource, type Readiness } from '../../../constructs/kit';
import { childReadiness } from '../../../constructs/kit/child-readiness';
import { healthConditions } from '../../../controller/health/conditions';
import { failureReadiness } from '../../../controller/external/call';
import { nextStatus, onlyProgress, type Condition } from '../../../controller/reconcile/status';

const notReady = (reason: string, extra: Partial<Readiness> = {}): Readiness => ({
  ready: false,
  reason,
  message: `${reason} message`,
  ...extra,
});
const READY: Readiness = { ready: true, reason: 'Ready', message: 'all ready' };
const rollout = (status: string, reason: string) => ({
  type: 'Rollout',
  status,
  reason,
  message: `${reason}!`,
});
const types = (said: { type: string; status: string; reason: string }[]) =>
  said.map((c) => `${c.type}=${c.status}/${c.reason}`);

describe('healthConditions', () => {
  it.each([
    ['Ready', READY, [], []],
    ['on its way', notReady('Progressing'), [], ['Reconciling=True/Progressing']],
    ['stalled', notReady('InvalidSpec', { stalled: true }), [], ['Stalled=True/InvalidSpec']],
    ['Ready, and a stalled flag on it means nothing', { ...READY, stalled: true }, [], []],
    [
      'Ready, held back by a rollout',
      READY,
      [rollout('False', 'Waiting')],
      ['Reconciling=True/RolloutWaiting'],
    ],
    ['Ready, the rollout stopped', READY, [rollout('False', 'Stopped')], ['Stalled=True/RolloutStopped']],
    [
      'moving to a revision, not Ready',
      notReady('Progressing'),
      [rollout('True', 'Moving')],
      ['Reconciling=True/Progressing'],
    ],
  ])('%s', (_what, readiness, others, expected) => {
    expect(types(healthConditions(readiness, others))).toEqual(expected);
  });

  it('says the reason and message of Ready, or of the rollout that holds the resource', () => {
    expect(healthConditions(notReady('Creating'), [])).toEqual([
      { type: 'Reconciling', status: 'True', reason: 'Creating', message: 'Creating message' },
    ]);
    expect(healthConditions(READY, [rollout('False', 'Stopped')])[0].message).toBe('Stopped!');
  });
});

describe('the status written', () => {
  const resource = (conditions?: Condition[]): CustomResource => ({
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name: 'cache', namespace: 'ns', generation: 2 },
    spec: {},
    ...(conditions ? { status: { observedGeneration: 2, conditions } } : {}),
  });
  const at = (s: string) => new Date(`2026-11-30T0${s}:00:00Z`);
  const conditionsOf = (status: Record<string, unknown> | undefined) =>
    (status as { conditions: Condition[] }).conditions;

  it('carries Reconciling while not Ready, Stalled when stalled, and neither once Ready', () => {
    const creating = conditionsOf(nextStatus(resource(), {}, notReady('Creating'), at('1')));
    expect(creating.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=False', 'Reconciling=True']);
    const stalled = conditionsOf(
      nextStatus(resource(creating), {}, notReady('ApplyFailed', { stalled: true }), at('2')),
    );
    expect(stalled.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=False', 'Stalled=True']);
    expect(stalled[1].lastTransitionTime).toBe('2026-11-30T02:00:00Z');
    const ready = conditionsOf(nextStatus(resource(stalled), {}, READY, at('3')));
    expect(ready.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=True']);
  });

  it('keeps the time Reconciling became true while the resource stays on its way', () => {
    const first = conditionsOf(nextStatus(resource(), {}, notReady('Creating'), at('1')));
    const later = conditionsOf(nextStatus(resource(first), {}, notReady('Scaling'), at('2')));
    expect(later[1]).toMatchObject({ reason: 'Scaling', lastTransitionTime: '2026-11-30T01:00:00Z' });
  });

  it('is still only progress (a write that may wait) when Ready and Reconciling keep their reasons', () => {
    const first = conditionsOf(nextStatus(resource(), {}, notReady('Creating'), at('1')));
    expect(onlyProgress(resource(first), { ...notReady('Creating'), message: '1 of 3 ready' })).toBe(true);
    expect(onlyProgress(resource(first), notReady('Creating', { stalled: true }))).toBe(false);
  });
});

describe('where stalled comes from', () => {
  const child = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate' } };
  it('a Job that failed, a pod that failed, a child of any kind that says Stalled', () => {
    const job = {
      ...child,
      status: { conditions: [{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }] },
    };
    expect(childReadiness(child, job).stalled).toBe(true);
    const running = { ...child, status: { active: 1 } };
    expect(childReadiness(child, running).stalled).toBeUndefined();
    const cr = { apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', metadata: { name: 'm' } };
    const said = (conditions: object[]) => childReadiness(cr, { ...cr, status: { conditions } });
    expect(
      said([
        { type: 'Ready', status: 'False', reason: 'InvalidSpec' },
        { type: 'Stalled', status: 'True' },
      ]).stalled,
    ).toBe(true);
    expect(
      said([
        { type: 'Ready', status: 'False', reason: 'Creating' },
        { type: 'Reconciling', status: 'True' },
      ]).stalled,
    ).toBeUndefined();
  });

  it("a handler's ExternalError that says so; any other failure is on its way", () => {
    expect(new ExternalError('AccessDenied', 'refused', { stalled: true }).stalled).toBe(true);
    expect(failureReadiness({ reason: 'AccessDenied', message: 'refused', stalled: true })).toEqual({
      ready: false,
      reason: 'AccessDenied',
      message: 'refused',
      stalled: true,
    });
    expect(failureReadiness({ reason: 'ServerUnreachable', message: 'no route' })).not.toHaveProperty(
      'stalled',
    );
  });
});
