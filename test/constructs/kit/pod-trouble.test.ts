/** Why a workload's pods are not ready, in their own words, from statuses the scheduler and kubelet wrote. */
import {
  oneLine,
  podSelectorOf,
  podTrouble,
  selectorQuery,
  troubleLine,
  withEvent,
} from '../../../constructs/kit/pod-trouble';
import { selectorMatches } from '../../../constructs/kit/selectors';
import {
  CONTAINER_CREATING,
  CRASH_LOOP,
  ERR_IMAGE_PULL,
  EVICTED,
  IMAGE_PULL_BACKOFF,
  INIT_FAILING,
  NEW,
  PROBE_FAILING,
  RUNNING_READY,
  UNSCHEDULABLE,
  pod,
  probeEvent,
} from '../../fixtures/pod-statuses';

const line = (...pods: ReturnType<typeof pod>[]) => {
  const t = podTrouble(pods);
  return t && troubleLine(t);
};

describe('podTrouble', () => {
  it("says the scheduler's reason and message for a pod it cannot place, with how many pods share it", () => {
    expect(line(pod('db-1', UNSCHEDULABLE), pod('db-0', UNSCHEDULABLE), pod('db-2', UNSCHEDULABLE))).toBe(
      'pod db-0 (and 2 more): Unschedulable: 0/3 nodes are available: 3 node(s) were unschedulable. ' +
        'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('says an image that cannot be pulled, in the kubelet words, cut to one sane line', () => {
    expect(line(pod('web-a', IMAGE_PULL_BACKOFF))).toBe(
      'pod web-a: ImagePullBackOff: container web: Back-off pulling image "registry.example.com/web:does-not-exist"',
    );
    const pull = line(pod('web-a', ERR_IMAGE_PULL))!;
    expect(pull).toMatch(
      /^pod web-a: ErrImagePull: container web: rpc error: code = NotFound desc = failed to pull/,
    );
    expect(pull.endsWith('…')).toBe(true);
    expect(pull.length).toBeLessThan(260);
  });

  it('says a crash loop with the last exit code and the restarts, an init container first', () => {
    expect(line(pod('web-a', CRASH_LOOP))).toBe(
      'pod web-a: CrashLoopBackOff: container web last ended with exit code 1 (Error), 5 restarts',
    );
    expect(line(pod('web-a', INIT_FAILING))).toBe(
      'pod web-a: CrashLoopBackOff: container migrate last ended with exit code 2 (Error), 3 restarts',
    );
  });

  it('picks the worst trouble among the pods: a failed pod, then a failing container, then the scheduler', () => {
    expect(line(pod('a', UNSCHEDULABLE), pod('b', CRASH_LOOP))).toMatch(/^pod b: CrashLoopBackOff/);
    expect(line(pod('a', CRASH_LOOP), pod('b', EVICTED))).toBe(
      'pod b: Evicted: The node was low on resource: memory. Threshold quantity: 100Mi, available: 92Mi.',
    );
  });

  it('says nothing of pods that are ready or on their way (created, being started)', () => {
    expect(podTrouble([pod('a', RUNNING_READY), pod('c', NEW)])).toBeUndefined();
    expect(podTrouble([])).toBeUndefined();
    // Scheduled, containers being created: only a Warning event would say what is wrong.
    const creating = podTrouble([pod('a', RUNNING_READY), pod('b', CONTAINER_CREATING)])!;
    expect(creating).toMatchObject({ pod: 'b', needsEvent: true });
    expect(withEvent(creating, [])).toBeUndefined();
  });

  it('asks for the events of a running pod that is not ready, and tells the newest Warning', () => {
    const trouble = podTrouble([pod('web-a', PROBE_FAILING)])!;
    expect(trouble).toMatchObject({ reason: 'NotReady', needsEvent: true });
    const told = withEvent(trouble, [
      probeEvent(
        'web-a',
        '2026-11-27T10:01:00Z',
        'Readiness probe failed: Get "http://10.0.0.5:80/": connection refused',
      ),
      probeEvent(
        'web-a',
        '2026-11-27T10:02:00Z',
        'Readiness probe failed: HTTP probe failed with statuscode: 503',
      ),
    ])!;
    expect(troubleLine(told)).toBe(
      'pod web-a: Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 503',
    );
    // A trouble the status says is told as it is, whatever the events.
    const crash = podTrouble([pod('web-a', CRASH_LOOP)])!;
    expect(withEvent(crash, [probeEvent('web-a', '2026-11-27T10:01:00Z', 'Back-off restarting')])).toBe(
      crash,
    );
  });
});

describe('oneLine', () => {
  it('keeps a short message, flattens newlines, and cuts a long one at a word', () => {
    expect(oneLine('a\n  b')).toBe('a b');
    const cut = oneLine(`${'word '.repeat(60)}end`);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toMatch(/word…$/);
  });
});

describe('the pods of a workload', () => {
  const deployment = {
    metadata: { name: 'web' },
    spec: {
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'canary', operator: 'DoesNotExist' },
        ],
      },
    },
  };

  it('are selected by its spec.selector, as a list query and as the API server matches labels', () => {
    const selector = podSelectorOf(deployment)!;
    expect(selectorQuery(selector)).toBe('app=web,tier in (a,b),!canary');
    expect(selectorMatches(selector, { app: 'web', tier: 'a' })).toBe(true);
    expect(selectorMatches(selector, { app: 'web', tier: 'c' })).toBe(false);
    expect(selectorMatches(selector, { app: 'web', tier: 'a', canary: 'x' })).toBe(false);
    expect(podSelectorOf({ metadata: { name: 'x' }, spec: {} })).toBeUndefined();
    expect(podSelectorOf({ metadata: { name: 'x' }, spec: { selector: {} } })).toBeUndefined();
  });
});
