/**
 * Two resources of a kind naming one external object (two DnsRecords for www.example.com): the older holds
 * it, the other stands aside (Ready=False, Conflict) touching nothing, and takes over once the object is
 * no longer the older one's.
 */
import { FQDN, cluster, converge, kind, provider, putRecord, ready, setUp, tokenSecret } from './harness';
import { SECRET } from '../../../constructs';
import { CONFLICT } from '../../../controller/external/runner';

beforeEach(async () => {
  setUp();
  cluster.put(SECRET, tokenSecret());
  putRecord('www');
  await converge('www');
  putRecord('www-copy', { name: 'www', ttl: 60 });
  await converge('www-copy');
  provider.calls.length = 0;
});
afterEach(() => cluster.external.stop(0));

describe('two resources naming one external object', () => {
  it('the other stands aside: Ready=False naming the holder, said once as an event, no call of its own', async () => {
    await converge('www-copy');
    expect(ready('www-copy')).toMatchObject({
      status: 'False',
      reason: CONFLICT,
      message: `DNS record ${FQDN} is the work of DnsRecord default/www, older: this one stands aside until it is not`,
    });
    expect(cluster.events.filter((e) => e.reason === CONFLICT)).toHaveLength(1);
    expect(provider.calls).toEqual([]);
    expect(provider.objects.get(FQDN)?.ttl).toBe(300);
    expect(ready('www')).toMatchObject({ status: 'True' });
  });

  it('deleting the one that stands aside leaves the object to the holder', async () => {
    cluster.remove(kind, 'default', 'www-copy');
    await converge('www-copy');
    expect(cluster.any(kind, 'default', 'www-copy')).toBeUndefined();
    expect(provider.writes).toEqual([]);
    expect(provider.objects.has(FQDN)).toBe(true);
  });

  it('once the holder is deleted (and its object with it), the other takes over and makes it again', async () => {
    cluster.remove(kind, 'default', 'www');
    await converge('www');
    expect(cluster.any(kind, 'default', 'www')).toBeUndefined();
    await converge('www-copy');
    expect(provider.objects.get(FQDN)?.ttl).toBe(60);
    expect(ready('www-copy')).toMatchObject({ status: 'True' });
  });

  it('once the holder names another object, the other takes this one over', async () => {
    cluster.patch(kind, 'default', 'www', { spec: { name: 'www2' } });
    await converge('www');
    await converge('www-copy');
    expect(provider.objects.get(FQDN)?.ttl).toBe(60);
    expect(provider.objects.has('www2.example.com')).toBe(true);
    expect(ready('www-copy')).toMatchObject({ status: 'True' });
  });
});

it('the kind’s identity tells objects apart where the description does not (one name on two servers)', async () => {
  setUp({ identity: (d, r) => `${r.metadata.name}: ${d.fqdn}` }); // as if each named another server
  cluster.put(SECRET, tokenSecret());
  putRecord('www');
  putRecord('www-copy', { name: 'www', ttl: 60 });
  await converge('www');
  await converge('www-copy');
  expect(ready('www-copy')).toMatchObject({ status: 'True' });
  expect(cluster.events.filter((e) => e.reason === CONFLICT)).toEqual([]);
});
