/**
 * A kind's external work as the controller runs it (controller/external), on the in-memory cluster with a
 * fake provider: observe, then apply only when what was observed differs; never a handler inside a
 * reconcile; the object's drift repaired at the observe interval and at once on a reconcile now; failures
 * said in the kind's words and retried with a backoff; Secrets read by name, never shown; bounded
 * concurrency, one handler at a time per resource (deletion: external-deletion.test.ts).
 */
import {
  EXTERNAL_FINALIZER,
  ExternalError,
  OBSERVE_INTERVAL_ANNOTATION,
  REQUESTED_AT_ANNOTATION,
  SECRET,
} from '../../../constructs';
import { createLogger } from '../../../controller/log';
import { PROBE_MS, RETRY_FIRST_MS, retryAfterMs } from '../../../controller/external/runner';
import {
  FQDN,
  TOKEN,
  annotate,
  cluster,
  converge,
  kind,
  provider,
  putRecord,
  ready,
  setUp,
  status,
  tokenSecret,
} from './harness';

beforeEach(() => setUp());
afterEach(() => cluster.external.stop(0));

describe('a new resource', () => {
  it('is observed, created, observed again, and Ready with what the provider says in its status', async () => {
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await converge();
    expect(provider.calls.map((c) => `${c.op} ${c.id}`)).toEqual([
      `get ${FQDN}`,
      `put ${FQDN}`,
      `get ${FQDN}`,
    ]);
    expect(provider.objects.get(FQDN)).toEqual({ type: 'A', ttl: 300, values: ['192.0.2.1'], serial: 1 });
    expect(ready()).toMatchObject({
      status: 'True',
      reason: 'Ready',
      message: `DNS record ${FQDN} is as the spec wants`,
    });
    expect(status().serial).toBe(1);
    expect(cluster.any(kind, 'default', 'www')?.metadata.finalizers).toEqual([EXTERNAL_FINALIZER]);
  });

  it('says it is being created while the provider works, and the reconcile does not wait for it', async () => {
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await cluster.reconcile(kind, 'default', 'www'); // the finalizer
    provider.latencyMs = 60_000;
    await cluster.reconcile(kind, 'default', 'www');
    // The observe was sent and has not answered: the reconcile is over all the same.
    expect(provider.calls).toHaveLength(1);
    expect(ready()).toMatchObject({ status: 'False', reason: 'Observing' });
  });
});

describe('a resource whose object is as the spec wants', () => {
  beforeEach(async () => {
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await converge();
    provider.calls.length = 0;
  });

  it('makes no call until its observe interval has passed, then only an observe', async () => {
    const { requeueAfterMs } = await converge();
    expect(provider.calls).toEqual([]);
    expect(requeueAfterMs).toBeGreaterThan(55_000);
    expect(requeueAfterMs).toBeLessThanOrEqual(60_000);
    cluster.clock += 60_000;
    await converge();
    expect(provider.calls.map((c) => c.op)).toEqual(['get']);
  });

  it('has its drift repaired at the next observe, and at once on a reconcile now', async () => {
    provider.change(FQDN, { type: 'A', ttl: 300, values: ['198.51.100.7'], serial: 9 });
    await converge();
    expect(provider.writes).toEqual([]); // not observed again yet
    annotate({ [REQUESTED_AT_ANNOTATION]: '2026-11-28T08:00:05Z' });
    await converge();
    expect(provider.writes.map((c) => c.op)).toEqual(['put']);
    expect(provider.objects.get(FQDN)?.values).toEqual(['192.0.2.1']);
    expect(ready()).toMatchObject({ status: 'True' });
  });

  it('is created again when it was lost out of band, within the interval its annotation sets', async () => {
    annotate({ [OBSERVE_INTERVAL_ANNOTATION]: '10s' });
    provider.lose(FQDN);
    cluster.clock += 10_000;
    await converge();
    expect(provider.writes.map((c) => c.op)).toEqual(['put']);
    expect(provider.objects.has(FQDN)).toBe(true);
  });

  it('is updated when its spec changes, saying what differs meanwhile', async () => {
    cluster.setSpec(kind, 'default', 'www', {
      zone: 'example.com',
      name: 'www',
      values: ['192.0.2.1'],
      ttl: 600,
    });
    await cluster.reconcile(kind, 'default', 'www'); // observes for the new spec
    await cluster.external.idle();
    await cluster.reconcile(kind, 'default', 'www'); // finds the ttl differs, applies
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Updating',
      message: `updating DNS record ${FQDN}: ttl: 300 -> 600`,
    });
    await converge();
    expect(provider.objects.get(FQDN)?.ttl).toBe(600);
    expect(ready()).toMatchObject({ status: 'True' });
  });
});

describe('failures', () => {
  it('an outage: Ready=False in the kind’s words, retried within 5 s, Ready again once the provider answers', async () => {
    cluster.put(SECRET, tokenSecret());
    putRecord();
    provider.down();
    const { requeueAfterMs } = await converge();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'ProviderUnreachable',
      message: 'the provider does not answer',
    });
    expect(requeueAfterMs).toBeGreaterThan(0);
    expect(requeueAfterMs).toBeLessThanOrEqual(RETRY_FIRST_MS);
    provider.up();
    await converge(); // the backoff has not ended: no call
    expect(provider.objects.size).toBe(0);
    cluster.clock += RETRY_FIRST_MS;
    await converge();
    expect(ready()).toMatchObject({ status: 'True' });
  });

  it('backs off doubling, from 5 s to 2 minutes at most, with jitter', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryAfterMs(n, () => 1))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 120_000, 120_000, 120_000,
    ]);
    expect(retryAfterMs(1, () => 0)).toBe(2_500);
  });

  it('while the provider is down, one resource of the kind tries again every 5 s and the others back off', async () => {
    const names = ['www', 'api', 'mail'];
    cluster.put(SECRET, tokenSecret());
    names.forEach((n) => putRecord(n));
    provider.down();
    const rounds: number[][] = [];
    let lateCalls = 0;
    for (let i = 0; i < 8; i++) {
      const calls = provider.calls.length;
      const waits: number[] = [];
      for (const n of names) waits.push((await converge(n)).requeueAfterMs ?? 0);
      rounds.push(waits);
      if (i >= 4) lateCalls += provider.calls.length - calls;
      cluster.clock += PROBE_MS;
    }
    for (const waits of rounds) expect(Math.min(...waits)).toBeLessThanOrEqual(PROBE_MS);
    expect(Math.max(...rounds[7])).toBeGreaterThanOrEqual(10_000);
    // In the last 20 s: the probe's 4 calls, and 2 at most of each other (they wait 10 s or more now),
    // where all three trying every 5 s would make 12.
    expect(lateCalls).toBeLessThanOrEqual(8);
  });

  it('a handler that says when to look again is looked at again then', async () => {
    setUp({
      observe: () => Promise.reject(new ExternalError('RateLimited', 'slow down', { retryAfterSeconds: 42 })),
    });
    cluster.put(SECRET, tokenSecret());
    putRecord();
    const { requeueAfterMs } = await converge();
    expect(requeueAfterMs).toBe(42_000);
    expect(ready()).toMatchObject({ status: 'False', reason: 'RateLimited', message: 'slow down' });
  });

  it('a provider back after a long outage: the probe notices within 5 s and wakes the others at once', async () => {
    const names = ['www', 'api', 'mail'];
    cluster.put(SECRET, tokenSecret());
    names.forEach((n) => putRecord(n));
    provider.down();
    for (let i = 0; i < 8; i++) {
      for (const n of names) await converge(n);
      cluster.clock += PROBE_MS;
    }
    // Two of them wait 10 s at least: only the probe would look by now, without the wake.
    provider.up();
    cluster.clock += PROBE_MS;
    for (let pass = 0; pass < 2; pass++) for (const n of names) await converge(n);
    for (const n of names) expect(ready(n)).toMatchObject({ status: 'True' });
  });

  it('a missing Secret or key: Ready=False naming it, and Ready once it is there', async () => {
    putRecord();
    await converge();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'MissingSecret',
      message: 'Secret default/dns-provider does not exist',
    });
    cluster.put(SECRET, { ...tokenSecret(), data: {} });
    annotate({ [REQUESTED_AT_ANNOTATION]: '1' });
    await converge();
    cluster.clock += 1_000; // a new message for the same reason is written after a moment (progress)
    await converge();
    expect(ready()).toMatchObject({ message: 'Secret default/dns-provider has no key token' });
    cluster.remove(SECRET, 'default', 'dns-provider');
    cluster.put(SECRET, tokenSecret());
    annotate({ [REQUESTED_AT_ANNOTATION]: '2' });
    await converge();
    expect(ready()).toMatchObject({ status: 'True' });
  });

  it('never shows a secret value: in the condition, the events or the log', async () => {
    setUp({
      observe: (_d, { secrets }) => Promise.reject(new Error(`token ${secrets.provider.token} was refused`)),
    });
    const lines: string[] = [];
    cluster.log = createLogger({ write: (line) => lines.push(line), level: 'debug' });
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await converge();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'ExternalError',
      message: 'token *** was refused',
    });
    const said = JSON.stringify([cluster.any(kind, 'default', 'www'), cluster.events, lines]);
    expect(lines.some((l) => l.includes('was refused'))).toBe(true);
    expect(said).not.toContain(TOKEN);
  });

  it('shows the values of the keys a kind declares plain (a host), and masks the others', async () => {
    setUp({
      secrets: {
        provider: {
          name: (r) => r.spec.tokenSecret,
          keys: ['token', 'endpoint'],
          plainKeys: ['endpoint'],
        },
      },
      observe: (_d, { secrets }) =>
        Promise.reject(new Error(`${secrets.provider.endpoint} refused token ${secrets.provider.token}`)),
    });
    const secret = tokenSecret();
    cluster.put(SECRET, {
      ...secret,
      data: { ...(secret.data as object), endpoint: btoa('api.example.net') },
    });
    putRecord();
    await converge();
    expect(ready()).toMatchObject({ status: 'False', message: 'api.example.net refused token ***' });
  });

  it('a handler that outlasts its timeout is aborted and said to have timed out', async () => {
    setUp({ timeoutSeconds: 0.05 });
    cluster.put(SECRET, tokenSecret());
    putRecord();
    provider.latencyMs = 5_000;
    await converge();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Timeout',
      message: 'observe did not finish within 0.05 s',
    });
  });
});

describe('bounds', () => {
  it('runs at most the kind’s concurrency of handlers at once', async () => {
    setUp({ concurrency: 2 });
    cluster.put(SECRET, tokenSecret());
    provider.latencyMs = 20;
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const name of names) putRecord(name);
    await Promise.all(names.map((name) => converge(name)));
    expect(provider.maxInFlight).toBe(2);
    for (const name of names) expect(ready(name)).toMatchObject({ status: 'True' });
  });

  it('runs one handler at a time per resource, however often it is reconciled', async () => {
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await cluster.reconcile(kind, 'default', 'www'); // the finalizer
    provider.latencyMs = 30;
    for (let i = 0; i < 5; i++) await cluster.reconcile(kind, 'default', 'www');
    expect(provider.calls).toHaveLength(1);
    await cluster.external.idle();
    expect(provider.maxInFlight).toBe(1);
  });
});

describe('events', () => {
  const said = () =>
    cluster.events
      .splice(0)
      .filter((e) => e.reason !== 'ReconcileRequested')
      .map((e) => `${e.type} ${e.reason}: ${e.message}`);

  it('say what was made, changed and deleted, and a failure once when it starts, not at each retry', async () => {
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await converge();
    expect(said()).toEqual([`Normal Created: created DNS record ${FQDN}`]);
    provider.change(FQDN, { type: 'A', ttl: 1, values: ['x'], serial: 2 });
    annotate({ [REQUESTED_AT_ANNOTATION]: 'drifted' });
    await converge();
    expect(said()).toEqual([
      `Normal Updated: updated DNS record ${FQDN}`,
      `Normal DriftCorrected: DNS record ${FQDN}: ttl: 1 -> 300 was changed outside the construct; set back to what the construct renders`,
    ]);
    provider.down();
    annotate({ [REQUESTED_AT_ANNOTATION]: 'down' });
    for (let i = 0; i < 3; i++) cluster.clock += (await converge()).requeueAfterMs ?? 0;
    expect(said()).toEqual(['Warning ProviderUnreachable: the provider does not answer']);
    provider.up();
    cluster.remove(kind, 'default', 'www');
    await converge();
    expect(said()).toEqual([`Normal Deleted: deleted DNS record ${FQDN}`]);
  });
});
