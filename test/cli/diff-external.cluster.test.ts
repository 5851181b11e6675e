/**
 * `reconstruct diff` of a kind with external work, on the local control plane: the object is observed and
 * what the controller would do to it is said (create, update with what differs, nothing), and the
 * provider is never written to: the test counts its calls. A Secret the handlers need that is missing is
 * an error naming it, not a change.
 */
import { planChanges, type Plan } from '../../cli/diff/dry-run';
import { loadClient } from '../../controller/kube/client';
import { FakeProvider } from '../../testing';
import { dnsRecordKind, type ProviderRecord } from '../fixtures/kinds/dns-record';
import { applyYaml, createNamespace, deleteNamespace, installCrds, kubectl } from '../support/kubectl';

jest.setTimeout(120_000);

const TOKEN = 'tok-diff-7c1e';
const provider = new FakeProvider<ProviderRecord>();
provider.token = TOKEN;
const kind = dnsRecordKind(provider);
let ns: string;

beforeAll(() => {
  installCrds([kind]);
  ns = createNamespace('diff-external');
  applyYaml(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dns-provider', namespace: ns },
      stringData: { token: TOKEN },
    }),
  );
});
afterAll(() => {
  if (ns) deleteNamespace(ns);
  kubectl(['delete', 'crd', kind.crd.metadata.name, '--ignore-not-found', '--wait=false'], {
    allowFail: true,
  });
});

const record = (spec: object = {}) => ({
  apiVersion: kind.apiVersion,
  kind: kind.kind,
  metadata: { name: 'www', namespace: ns },
  spec: { zone: 'example.com', name: 'www', values: ['192.0.2.1'], ...spec },
});
const plan = (spec: object = {}): Promise<Plan> => planChanges(loadClient({}), kind, record(spec));

it('observes only: says it would create, update or do nothing, and writes nothing to the provider', async () => {
  const created = await plan();
  expect(created.external).toEqual({ change: 'would create DNS record www.example.com' });
  // The resource itself is shown as `kubectl apply` would store it; nothing else (no children).
  expect(created.changes.map((c) => `${c.type.kind}/${c.name}`)).toEqual(['DnsRecord/www']);

  provider.change('www.example.com', { type: 'A', ttl: 300, values: ['192.0.2.1'], serial: 3 });
  const updated = await plan({ ttl: 600 });
  expect(updated.external).toEqual({ change: 'would update DNS record www.example.com: ttl: 300 -> 600' });

  expect((await plan()).external).toBeUndefined();

  expect(provider.calls.map((c) => c.op)).toEqual(['get', 'get', 'get']);
  expect(provider.writes).toEqual([]);
});

it('a Secret its handlers need that is missing is an error naming it', async () => {
  const missing = await plan({ tokenSecret: 'nowhere' });
  expect(missing.external).toEqual({
    error: `cannot observe DNS record www.example.com: MissingSecret: Secret ${ns}/nowhere does not exist`,
  });
  expect(provider.writes).toEqual([]);
});
