/**
 * Drift you can watch (controller/drift/phase.ts), on the in-memory cluster: a child changed by hand is
 * repaired and reported (correct, the default) or left as it is and reported (warn, on the resource or
 * its kind's CRD), with a `Drifted` condition in warn mode and one event per drift.
 */
import { CUSTOM_RESOURCE_DEFINITION, DEPLOYMENT, DRIFT_ANNOTATION, memcachedKind } from '../../../constructs';
import { DriftPhase, driftIn, driftModeOf, fieldOf } from '../../../controller/drift/phase';
import { ApiError } from '../../../controller/kube/errors';
import { InMemoryCluster } from '../../../testing';
import { NS, kinds, reconcilerHelpers } from '../reconcile/reconciler-helpers';

let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster(kinds);
});
const { reconcile, writes } = reconcilerHelpers(() => cluster);

const replicas = () => (cluster.any(DEPLOYMENT, NS, 'cache')?.spec as { replicas: number }).replicas;
const drifted = () =>
  (
    cluster.any(memcachedKind, NS, 'cache')?.status as
      { conditions?: { type: string; status: string; message: string }[] } | undefined
  )?.conditions?.find((c) => c.type === 'Drifted');
const events = (reason: string) => cluster.events.filter((e) => e.reason === reason).map((e) => e.message);

/** A Memcached of 2 reconciled, then its Deployment scaled to 7 by hand. */
async function handEdited(mode?: 'warn' | 'correct') {
  cluster.putResource(memcachedKind, 'cache', { size: 2 }, NS);
  if (mode)
    cluster.patch(memcachedKind, NS, 'cache', { metadata: { annotations: { [DRIFT_ANNOTATION]: mode } } });
  await reconcile(memcachedKind, 'cache');
  cluster.patch(DEPLOYMENT, NS, 'cache', { spec: { replicas: 7 } });
  writes();
}

describe('correct (the default)', () => {
  it('repairs the field and says so once, with no Drifted condition', async () => {
    await handEdited();
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toContain('apply Deployment/cache');
    expect(replicas()).toBe(2);
    expect(events('DriftCorrected')).toEqual([
      'Deployment cache: spec.replicas was changed outside the construct; set back to what the construct renders',
    ]);
    expect(drifted()).toBeUndefined();
    await reconcile(memcachedKind, 'cache');
    expect(events('DriftCorrected')).toHaveLength(1);
  });

  it('does not call a repair made while its apply fails, and reports it once a later one succeeds', async () => {
    await handEdited();
    cluster.refuse('apply', new ApiError(500, 'etcdserver: request timed out'));
    await expect(cluster.reconciler().reconcile(memcachedKind, NS, 'cache')).rejects.toThrow('timed out');
    expect(replicas()).toBe(7);
    expect(events('DriftCorrected')).toEqual([]);
    cluster.refuse('apply', undefined);
    await reconcile(memcachedKind, 'cache');
    expect(replicas()).toBe(2);
    expect(events('DriftCorrected')).toHaveLength(1);
  });
});

describe('warn', () => {
  it('leaves the field as edited, with a Drifted condition and one Warning event naming it', async () => {
    await handEdited('warn');
    await reconcile(memcachedKind, 'cache');
    expect(writes()).not.toContain('apply Deployment/cache');
    expect(replicas()).toBe(7);
    expect(drifted()).toMatchObject({
      status: 'True',
      reason: 'ChangedOutside',
      message: `Deployment cache: spec.replicas differs from what the construct renders; left as it is (${DRIFT_ANNOTATION}: warn)`,
    });
    expect(events('Drifted')).toEqual([
      `Deployment cache: spec.replicas was changed outside the construct; left as it is (${DRIFT_ANNOTATION}: warn)`,
    ]);
    // Again and again: still left, said once.
    await reconcile(memcachedKind, 'cache');
    await reconcile(memcachedKind, 'cache');
    expect(replicas()).toBe(7);
    expect(events('Drifted')).toHaveLength(1);
  });

  it('says Drifted=False once the child is as rendered again, and reports a new drift anew', async () => {
    await handEdited('warn');
    await reconcile(memcachedKind, 'cache');
    cluster.patch(DEPLOYMENT, NS, 'cache', { spec: { replicas: 2 } });
    await reconcile(memcachedKind, 'cache');
    expect(drifted()).toMatchObject({ status: 'False', reason: 'AsRendered' });
    cluster.patch(DEPLOYMENT, NS, 'cache', { spec: { replicas: 5 } });
    await reconcile(memcachedKind, 'cache');
    expect(events('Drifted')).toHaveLength(2);
  });

  it("still applies a change of the resource's spec: only a change made to the child alone is drift", async () => {
    await handEdited('warn');
    await reconcile(memcachedKind, 'cache');
    writes();
    cluster.setSpec(memcachedKind, NS, 'cache', { size: 3 });
    await reconcile(memcachedKind, 'cache');
    expect(writes()).toContain('apply Deployment/cache');
    expect(replicas()).toBe(3);
    expect(drifted()).toMatchObject({ status: 'False' });
  });

  it("is the kind's mode when its CRD says warn, unless the resource says correct", async () => {
    cluster.put(CUSTOM_RESOURCE_DEFINITION, {
      ...memcachedKind.crd,
      metadata: { ...memcachedKind.crd.metadata, annotations: { [DRIFT_ANNOTATION]: 'warn' } },
    });
    await handEdited();
    await reconcile(memcachedKind, 'cache');
    expect(replicas()).toBe(7);
    cluster.patch(memcachedKind, NS, 'cache', {
      metadata: { annotations: { [DRIFT_ANNOTATION]: 'correct' } },
    });
    await reconcile(memcachedKind, 'cache');
    expect(replicas()).toBe(2);
  });
});

describe('the parts', () => {
  it('reads the mode from the resource, then the CRD; anything else is correct', () => {
    const on = (value?: string) => ({
      metadata: {
        name: 'x',
        annotations: value ? { [DRIFT_ANNOTATION]: value } : ({} as Record<string, string>),
      },
    });
    expect(driftModeOf(on('warn'), undefined)).toBe('warn');
    expect(driftModeOf(on(), { [DRIFT_ANNOTATION]: 'warn' })).toBe('warn');
    expect(driftModeOf(on('correct'), { [DRIFT_ANNOTATION]: 'warn' })).toBe('correct');
    expect(driftModeOf(on('loud'), undefined)).toBe('correct');
    expect(driftModeOf(on(), undefined)).toBe('correct');
  });

  it('names a field as a user writes it', () => {
    expect(fieldOf('/spec/replicas')).toBe('spec.replicas');
    expect(fieldOf('/spec/template/spec/containers/0/image')).toBe('spec.template.spec.containers[0].image');
  });

  it('counts each new drift once, by kind and child kind', () => {
    const counted: string[] = [];
    const phase = new DriftPhase({
      events: { emit: () => {} },
      counted: (k, c) => counted.push(`${k}/${c}`),
    });
    const resource = {
      apiVersion: memcachedKind.apiVersion,
      kind: memcachedKind.kind,
      metadata: { name: 'cache', namespace: NS },
      spec: { size: 1 },
    };
    const drifts = (field: string) => [{ child: 'Deployment cache', childKind: 'Deployment', field }];
    phase.report('key', 'Memcached', resource, 'correct', drifts('spec.replicas'));
    phase.report('key', 'Memcached', resource, 'correct', drifts('spec.replicas'));
    phase.report('key', 'Memcached', resource, 'correct', drifts('spec.paused'));
    expect(counted).toEqual(['Memcached/Deployment', 'Memcached/Deployment']);
  });

  it('reads a drift from why a child needs an apply, and nothing else', () => {
    const child = { kind: 'Deployment', metadata: { name: 'web' } };
    expect(driftIn('drifted at /spec/template/spec/containers/0/image', child)).toEqual({
      child: 'Deployment web',
      childKind: 'Deployment',
      field: 'spec.template.spec.containers[0].image',
    });
    expect(driftIn('missing', child)).toBeUndefined();
    expect(driftIn(undefined, child)).toBeUndefined();
  });
});
