/**
 * An input from a kind's external work (`fromExternal`), on the in-memory cluster: the child that holds
 * it waits until the external object is observed, then carries what was observed, and follows it when
 * the object changes.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  CONFIG_MAP,
  SECRET,
  defineKind,
  fromExternal,
  type ResourcePropsWithInputs,
} from '../../../constructs';
import { FakeProvider, InMemoryCluster } from '../../../testing';
import {
  dnsRecordExternal,
  dnsRecordSchema,
  type DnsRecordSpec,
  type FoundRecord,
  type ProviderRecord,
} from '../../fixtures/kinds/dns-record';
import { TOKEN, tokenSecret } from '../external/harness';

/** A DnsRecord that publishes the provider's serial of its record in a ConfigMap `<name>-record`. */
class Published extends Construct {
  constructor(
    scope: Construct,
    id: string,
    props: ResourcePropsWithInputs<DnsRecordSpec, { serial: string }>,
  ) {
    super(scope, id);
    new ApiObject(this, 'record', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${props.name}-record` },
      data: { serial: props.inputs.serial },
    });
  }
}

it('waits for the observation, then carries it, and follows the object', async () => {
  const provider = new FakeProvider<ProviderRecord>();
  provider.token = TOKEN;
  const kind = defineKind({
    apiVersion: 'dns.example.com/v1',
    kind: 'DnsRecord',
    plural: 'dnsrecords',
    schema: dnsRecordSchema,
    children: [CONFIG_MAP],
    external: dnsRecordExternal(provider),
    inputs: { serial: fromExternal((o: FoundRecord) => String(o.serial)) },
    construct: Published,
  });
  const cluster = new InMemoryCluster([kind]);
  try {
    cluster.put(SECRET, tokenSecret());
    cluster.putResource(kind, 'www', { zone: 'example.com', name: 'www', values: ['192.0.2.1'] }, 'default');
    // Its first reconcile starts the observe: nothing is known of the object yet.
    await cluster.reconcile(kind, 'default', 'www');
    expect(cluster.any(CONFIG_MAP, 'default', 'www-record')).toBeUndefined();

    await cluster.converge(kind, 'default', 'www');
    expect(provider.objects.get('www.example.com')?.serial).toBe(1);
    expect(cluster.any(CONFIG_MAP, 'default', 'www-record')?.data).toEqual({ serial: '1' });

    cluster.patch(kind, 'default', 'www', { spec: { ttl: 600 } }); // the record changes: serial 2
    await cluster.converge(kind, 'default', 'www');
    expect(provider.objects.get('www.example.com')?.serial).toBe(2);
    expect(cluster.any(CONFIG_MAP, 'default', 'www-record')?.data).toEqual({ serial: '2' });
  } finally {
    await cluster.external.stop(0);
  }
});
