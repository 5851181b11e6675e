/** Where each kind stands, decided from its caches: the controller's per-kind independence, in milliseconds. */
import { balancerKind, memcachedKind, type Kind } from '../../../constructs';
import { KindStates, type WatchedCache } from '../../../controller/runtime/kind-states';
import { ApiError } from '../../../controller/kube/errors';
import { recordingLogger } from '../../support/logger';

class FakeCache implements WatchedCache {
  failure: unknown = undefined;
  synced = false;
  constructor(
    readonly resourceName: string,
    readonly namespace: string | undefined = undefined,
  ) {}
  get type() {
    return { apiVersion: 'v1', kind: this.resourceName, plural: this.resourceName, namespaced: true };
  }
  hasSynced(): boolean {
    return this.synced;
  }
}

function setup() {
  const { log, lines } = recordingLogger();
  const available = new Map<string, boolean>();
  const settled: string[] = [];
  const states = new KindStates(
    [memcachedKind, balancerKind],
    log,
    { kindAvailable: (kind, up) => void available.set(kind, up) },
    (definition: Kind) => void settled.push(definition.kind),
  );
  const deployments = new FakeCache('deployments.apps');
  const memcacheds = new FakeCache('memcacheds.cache.example.com');
  const balancers = new FakeCache('balancers.exposer.hliangzhao.io');
  states.need(memcachedKind, [memcacheds, deployments]);
  states.need(balancerKind, [balancers, deployments]);
  return { states, lines, available, ready: settled, deployments, memcacheds, balancers };
}

describe('KindStates', () => {
  it('makes a kind ready once its own caches synced, while a kind whose CRD is missing waits and says why', () => {
    const t = setup();
    expect(t.states.isReady()).toBe(false);
    t.memcacheds.synced = true;
    t.deployments.synced = true;
    t.states.refresh();
    expect(t.ready).toEqual(['Memcached']);
    expect(t.states.isReady()).toBe(false); // Balancer still syncing
    t.balancers.failure = new ApiError(
      404,
      'GET balancers: the server could not find the requested resource',
    );
    t.states.refresh();
    t.states.refresh();
    expect(t.states.isReady()).toBe(true);
    // Its resources are enqueued too, to say why in their status.
    expect(t.ready).toEqual(['Memcached', 'Balancer']);
    expect(t.states.of(balancerKind)).toEqual({
      kind: 'Balancer',
      state: 'unavailable',
      message: expect.stringContaining('does not serve balancers.exposer.hliangzhao.io') as string,
    });
    expect(t.available.get('Balancer')).toBe(false);
    expect(t.available.get('Memcached')).toBe(true);
    // Said once, however often the informers report.
    expect(t.lines.filter((l) => l.level === 'error').map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 'error', msg: expect.stringContaining('install its CustomResourceDefinition') as string },
    ]);
  });

  it('brings a kind back when its cache lists again, and enqueues its resources', () => {
    const t = setup();
    t.memcacheds.synced = t.deployments.synced = true;
    t.balancers.failure = new ApiError(403, 'forbidden');
    t.states.refresh();
    expect(t.states.of(balancerKind)?.message).toContain('grant get, list and watch');
    t.balancers.failure = undefined;
    t.balancers.synced = true;
    t.states.refresh();
    expect(t.ready).toEqual(['Memcached', 'Balancer', 'Balancer']);
    expect(t.lines.map((l) => l.msg)).toContain('kind available again');
    expect(t.lines.map((l) => l.msg)).toContain('caches synced; reconciling');
  });

  it('makes every kind that reads a refused cache wait, naming the namespace', () => {
    const t = setup();
    const services = new FakeCache('services', 'team-a');
    services.failure = new ApiError(403, 'services is forbidden');
    t.states.need(memcachedKind, [services]);
    t.memcacheds.synced = t.deployments.synced = t.balancers.synced = true;
    t.states.refresh();
    expect(t.states.of(memcachedKind)?.message).toContain('services in namespace team-a');
    expect(t.states.of(balancerKind)?.state).toBe('ready');
  });

  it('keeps a synced kind ready through a network error (its cache is stale, not refused)', () => {
    const t = setup();
    t.memcacheds.synced = t.deployments.synced = true;
    t.states.refresh();
    t.deployments.failure = new ApiError(0, 'socket hang up');
    t.states.refresh();
    expect(t.states.of(memcachedKind)?.state).toBe('ready');
  });

  it('says a kind is ready at info once, and at debug when its caches relist (a ring member taking a new share)', () => {
    const t = setup();
    t.memcacheds.synced = t.deployments.synced = true;
    t.states.refresh();
    t.memcacheds.synced = false; // relisting with a new selector
    t.states.refresh();
    expect(t.states.of(memcachedKind)?.state).toBe('syncing');
    t.memcacheds.synced = true;
    t.states.refresh();
    const said = t.lines.filter((l) => l.fields?.kind === 'Memcached').map((l) => `${l.level} ${l.msg}`);
    expect(said).toEqual(['info kind ready', 'debug kind ready again: its caches relisted']);
    // Its resources are enqueued each time it is ready.
    expect(t.ready).toEqual(['Memcached', 'Memcached']);
  });
});
