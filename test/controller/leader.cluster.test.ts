/**
 * Leader election against the real local control plane: driver processes
 * (test/controller/drivers/leader-driver.ts) campaign for one Lease; the test kills, releases and
 * overrides them and reads the Lease with kubectl.
 */
import { startDriver, type Driver } from './drivers/process';
import { createNamespace, deleteNamespace, getJson, kubectl, uniqueName } from '../support/kubectl';
import { sleep } from '../../controller/abortable';

jest.setTimeout(120_000);

const TIMING = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

interface Lease {
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    leaseTransitions?: number;
    renewTime?: string;
    acquireTime?: string;
  };
}

let ns: string;
let lease: string;
const drivers: Driver[] = [];
beforeAll(() => {
  ns = createNamespace('leader');
  lease = uniqueName('lease');
});
afterAll(async () => {
  await Promise.all(drivers.map((d) => d.kill()));
  if (ns) deleteNamespace(ns);
});

function candidate(identity: string): Driver {
  const driver = startDriver('leader-driver.ts', { namespace: ns, name: lease, identity, ...TIMING });
  drivers.push(driver);
  return driver;
}

const readLease = () => getJson<Lease>(['lease', lease, '-n', ns]).spec;
const started = (line: { t: string }) => line.t === 'started';

describe('LeaderElector', () => {
  let a: Driver;
  let b: Driver;
  let c: Driver;

  test('one candidate leads; the other takes over only once the dead leader’s lease expired', async () => {
    a = candidate('a');
    await a.waitFor(started, 'a to lead');
    b = candidate('b');
    // Longer than a lease duration: b must stay a standby while a renews.
    await sleep(TIMING.leaseDurationMs + 1500);
    expect(b.lines.some(started)).toBe(false);
    const held = readLease();
    expect(held).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 4, leaseTransitions: 0 });
    expect(held.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const killedAt = Date.now();
    await a.kill('SIGKILL');
    const took = (await b.waitFor(started, 'b to take over', 20_000)).at - killedAt;
    // Not before the lease could have expired, and within a lease duration plus a few retries.
    expect(took).toBeGreaterThan(TIMING.leaseDurationMs - 2 * TIMING.retryPeriodMs - 500);
    expect(took).toBeLessThan(TIMING.leaseDurationMs + 4 * TIMING.retryPeriodMs + 1000);
    expect(readLease()).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  test('release hands the lease over at once', async () => {
    c = candidate('c');
    await sleep(1500);
    expect(c.lines.some(started)).toBe(false);
    b.send('release');
    const released = await b.waitFor((l) => l.t === 'released', 'b to release');
    // The leadership signal was aborted, onStoppedLeading was not called (a deliberate hand-over).
    expect(released).toMatchObject({ aborted: true, leader: false });
    expect(b.lines.some((l) => l.t === 'stopped')).toBe(false);
    expect(await b.exited).toBe(0);
    const took = (await c.waitFor(started, 'c to take over', 10_000)).at - released.at;
    // Far less than a lease duration: c does not wait for expiry.
    expect(took).toBeLessThan(2 * TIMING.retryPeriodMs + 1000);
    expect(readLease()).toMatchObject({ holderIdentity: 'c', leaseDurationSeconds: 4 });
  });

  test('a leader whose lease is taken steps down and reports it', async () => {
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    kubectl([
      'patch',
      'lease',
      lease,
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { holderIdentity: 'intruder', renewTime: now, leaseDurationSeconds: 60 } }),
    ]);
    const stopped = await c.waitFor((l) => l.t === 'stopped', 'c to step down', 10_000);
    expect(stopped).toMatchObject({ aborted: true, leader: false });
    await c.waitFor((l) => l.t === 'ended', 'run() to resolve');
    expect(readLease().holderIdentity).toBe('intruder');
  });
});
