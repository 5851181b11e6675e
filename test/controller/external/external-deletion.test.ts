/**
 * A deletion of a resource whose kind works outside Kubernetes: held by the kit's finalizer until the
 * object is deleted (or retained), never an apply once deleting, and what becomes of it when its Secret
 * went first.
 */
import { SECRET } from '../../../constructs';
import { RETRY_FIRST_MS } from '../../../controller/external/runner';
import { FQDN, cluster, converge, kind, provider, putRecord, ready, setUp, tokenSecret } from './harness';

beforeEach(() => setUp());
afterEach(() => cluster.external.stop(0));

describe('deletion', () => {
  beforeEach(async () => {
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await converge();
    provider.calls.length = 0;
  });

  it('deletes the object, then releases the finalizer: the resource goes', async () => {
    cluster.remove(kind, 'default', 'www');
    await converge();
    expect(provider.writes.map((c) => c.op)).toEqual(['delete']);
    expect(provider.objects.size).toBe(0);
    expect(cluster.any(kind, 'default', 'www')).toBeUndefined();
  });

  it('its namespace deleted with the Secret: the object is deleted with the Secret’s last data, and the resource goes', async () => {
    cluster.clock += 60_000; // long after the Secret was read: not a kept read
    cluster.remove(SECRET, 'default', 'dns-provider');
    cluster.remove(kind, 'default', 'www');
    await converge();
    expect(provider.writes.map((c) => c.op)).toEqual(['delete']);
    expect(provider.objects.size).toBe(0);
    expect(cluster.any(kind, 'default', 'www')).toBeUndefined();
  });

  it('with the Secret gone before a controller that never read it: held, saying what to do', async () => {
    cluster.restart();
    cluster.remove(SECRET, 'default', 'dns-provider');
    cluster.remove(kind, 'default', 'www');
    await converge();
    expect(provider.calls).toEqual([]);
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'MissingSecret',
      message:
        'Secret default/dns-provider does not exist: the object cannot be deleted without it; create it ' +
        'again, or remove the finalizer reconstruct.dev/external to leave the object where it is',
    });
    cluster.patch(kind, 'default', 'www', { metadata: { finalizers: [] } });
    expect(cluster.any(kind, 'default', 'www')).toBeUndefined();
    expect(provider.objects.has(FQDN)).toBe(true);
  });

  it('is held while the provider is down, saying so, and never applies', async () => {
    provider.change(FQDN, { type: 'A', ttl: 1, values: ['x'], serial: 5 }); // drifted: a live one would apply
    provider.down();
    cluster.remove(kind, 'default', 'www');
    await converge();
    expect(cluster.any(kind, 'default', 'www')?.metadata.deletionTimestamp).toBeDefined();
    expect(ready()).toMatchObject({ status: 'False', reason: 'ProviderUnreachable' });
    provider.up();
    cluster.clock += RETRY_FIRST_MS;
    await converge();
    expect(provider.calls.filter((c) => c.op === 'put')).toEqual([]);
    expect(cluster.any(kind, 'default', 'www')).toBeUndefined();
  });

  it('leaves the object where the kind retains it', async () => {
    setUp({ retain: () => true });
    cluster.put(SECRET, tokenSecret());
    putRecord();
    await converge();
    provider.calls.length = 0;
    cluster.remove(kind, 'default', 'www');
    await converge();
    expect(provider.calls).toEqual([]);
    expect(provider.objects.has(FQDN)).toBe(true);
    expect(cluster.any(kind, 'default', 'www')).toBeUndefined();
  });

  it('lets a retained one go at once even while its handlers fail: nothing outside is touched', async () => {
    setUp({ retain: () => true });
    cluster.put(SECRET, tokenSecret());
    provider.down();
    putRecord();
    await converge();
    expect(ready()).toMatchObject({ status: 'False', reason: 'ProviderUnreachable' });
    cluster.remove(kind, 'default', 'www');
    await converge();
    expect(cluster.any(kind, 'default', 'www')).toBeUndefined();
  });
});
