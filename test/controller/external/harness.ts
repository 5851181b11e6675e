/**
 * The DnsRecord kind on the in-memory cluster with a fake provider, for the tests of external work: the
 * world each test starts from (setUp, in a beforeEach) and what the tests do to it. The bindings are live:
 * `provider`, `kind` and `cluster` are those of the last setUp.
 */
import type { KubeObject } from '../../../constructs';
import { FakeProvider, InMemoryCluster } from '../../../testing';
import { dnsRecordKind, type ProviderRecord } from '../../fixtures/kinds/dns-record';

export const TOKEN = 'tok-3f9a1c77e2';
export const FQDN = 'www.example.com';
export let provider: FakeProvider<ProviderRecord>;
export let kind: ReturnType<typeof dnsRecordKind>;
export let cluster: InMemoryCluster;

export function setUp(overrides: Parameters<typeof dnsRecordKind>[1] = {}) {
  provider = new FakeProvider<ProviderRecord>();
  provider.token = TOKEN;
  kind = dnsRecordKind(provider, overrides);
  cluster = new InMemoryCluster([kind]);
  cluster.clock = Date.parse('2026-11-28T08:00:00Z');
}

/** The provider's token, in the Secret the resources name. */
export const tokenSecret = (token = TOKEN, name = 'dns-provider'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default' },
  data: { token: Buffer.from(token).toString('base64') },
});
export const putRecord = (name = 'www', spec: object = {}) =>
  cluster.putResource(kind, name, { zone: 'example.com', name, values: ['192.0.2.1'], ...spec }, 'default');
export const converge = (name = 'www') => cluster.converge(kind, 'default', name);
export const ready = (name = 'www') => cluster.ready(kind, 'default', name);
export const status = (name = 'www') => cluster.any(kind, 'default', name)?.status as { serial?: number };
export const annotate = (annotations: Record<string, string>, name = 'www') =>
  cluster.patch(kind, 'default', name, { metadata: { annotations } });
