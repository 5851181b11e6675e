/**
 * `reconstruct_external_handlers{kind, state}`: a kind's handlers running and waiting for a slot of its
 * concurrency, as the runner counts them at the scrape.
 */
import { SECRET } from '../../../constructs';
import { Metrics } from '../../../controller/runtime/metrics';
import { FakeProvider, InMemoryCluster } from '../../../testing';
import { dnsRecordKind, type ProviderRecord } from '../../fixtures/kinds/dns-record';

it('counts the handlers running and waiting, per kind', async () => {
  const provider = new FakeProvider<ProviderRecord>();
  const kind = dnsRecordKind(provider, { concurrency: 2 });
  const cluster = new InMemoryCluster([kind]);
  const metrics = new Metrics();
  metrics.watchExternal(() => [{ kind: kind.kind, ...cluster.external.counts(kind) }]);
  cluster.put(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'dns-provider', namespace: 'default' },
    data: { token: Buffer.from('t').toString('base64') },
  });
  provider.latencyMs = 60_000;
  for (const name of ['a', 'b', 'c']) {
    cluster.putResource(kind, name, { zone: 'example.com', name, values: ['192.0.2.1'] }, 'default');
    await cluster.reconcile(kind, 'default', name); // the finalizer
    await cluster.reconcile(kind, 'default', name); // the observe, started
  }
  await new Promise((r) => setImmediate(r)); // the Secrets read, the handlers started
  const text = await metrics.render();
  expect(text).toContain('reconstruct_external_handlers{kind="DnsRecord",state="running"} 2');
  expect(text).toContain('reconstruct_external_handlers{kind="DnsRecord",state="waiting"} 1');
  await cluster.external.stop(0);
});
