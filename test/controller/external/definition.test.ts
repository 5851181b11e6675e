/**
 * A kind with external work as defined and installed: its checks, its defaults, the default comparison of
 * what the spec wants with what was observed, and the RBAC it gets: `get` on the Secrets it names and no
 * list or watch of any Secret, no child caches or child RBAC when it has no children.
 */
import {
  KindDefinitionError,
  defineKind,
  fieldDifferences,
  type CustomResource,
  type KindExternal,
} from '../../../constructs';
import { durationSeconds } from '../../../constructs/kit/external';
import { installManifests } from '../../../controller/install/install';
import { FakeProvider } from '../../../testing';
import { dnsRecordExternal, dnsRecordKind, dnsRecordSchema } from '../../fixtures/kinds/dns-record';

const base = {
  apiVersion: 'dns.example.com/v1',
  kind: 'DnsRecord',
  plural: 'dnsrecords',
  schema: dnsRecordSchema,
};
const external = dnsRecordExternal(new FakeProvider());

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
const rulesOf = (kind: ReturnType<typeof defineKind>) => {
  const docs = installManifests({ kinds: [kind], version: '0.0.0' }) as { kind: string; rules?: Rule[] }[];
  return docs.find((d) => d.kind === 'ClusterRole')?.rules ?? [];
};

describe('defineKind with external work', () => {
  it('takes no children and no construct: its resources render nothing', () => {
    const kind = dnsRecordKind(new FakeProvider());
    expect(kind.children).toEqual([]);
    expect(kind.external).toMatchObject({ observeIntervalSeconds: 60, timeoutSeconds: 30, concurrency: 10 });
  });

  it('still refuses a kind with no children and no external work', () => {
    expect(() => defineKind({ ...base, children: [] })).toThrow(
      /children is missing: .*a kind whose work is all outside Kubernetes \(external\) says \[\]/,
    );
  });

  it("gives its handlers the resource's status as the kind's Status type", async () => {
    const seen: (number | undefined)[] = [];
    type Spec = { name: string };
    const kind = defineKind<Spec, { serial?: number }, Spec, undefined, Spec>({
      ...base,
      children: [],
      external: {
        describe: (desired) => `record ${desired.name}`,
        desired: (resource) => resource.spec,
        observe: (_desired, context) => {
          seen.push(context.resource.status?.serial);
          // @ts-expect-error: the kind's Status says nothing of `address`
          const address: unknown = context.resource.status?.address;
          seen.push(address === undefined ? undefined : -1);
          return Promise.resolve(undefined);
        },
        apply: () => Promise.resolve(),
        delete: () => Promise.resolve(),
      },
    });
    const resource = {
      apiVersion: base.apiVersion,
      kind: base.kind,
      metadata: { name: 'a' },
      spec: { name: 'a' },
    };
    const log = { debug: () => undefined, info: () => undefined, warn: () => undefined };
    const context = { signal: new AbortController().signal, secrets: {}, log };
    await kind.external!.observe(
      { name: 'a' },
      { ...context, resource: { ...resource, status: { serial: 7 } } },
    );
    expect(seen).toEqual([7, undefined]);
  });

  it('names each missing handler and bad bound', () => {
    const broken: object = {
      desired: () => ({}),
      concurrency: 0,
      secrets: { api: { name: 5, plainKeys: 'host' } },
    };
    let error: KindDefinitionError | undefined;
    try {
      defineKind({ ...base, children: [], external: broken as KindExternal });
    } catch (err) {
      error = err as KindDefinitionError;
    }
    expect(error?.message).toContain('external.observe is missing: it must be a function');
    expect(error?.message).toContain('external.apply is missing');
    expect(error?.message).toContain('external.delete is missing');
    expect(error?.message).toContain('external.concurrency must be a positive number (got 0)');
    expect(error?.message).toContain("external.secrets.api.name must be a Secret's name");
    expect(error?.message).toContain('external.secrets.api.keys must list the keys it reads');
    expect(error?.message).toContain('external.secrets.api.plainKeys must list keys');
  });

  it('a cluster-scoped kind must say in which namespace its Secret is', () => {
    const secrets = { api: { name: 'token', keys: ['token'] } };
    expect(() =>
      defineKind({ ...base, scope: 'Cluster', children: [], external: { ...external, secrets } }),
    ).toThrow('external.secrets.api.namespace is missing: a cluster-scoped kind must name it');
  });
});

describe('the install of a kind with external work', () => {
  it('grants get on a Secret the spec names, and no list or watch of Secrets', () => {
    const rules = rulesOf(dnsRecordKind(new FakeProvider()));
    const secrets = rules.filter((r) => r.resources.includes('secrets'));
    expect(secrets).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    // No child kinds: only its own resources, events and the CRDs' names.
    expect(rules.map((r) => r.resources.join(','))).toEqual([
      'events',
      'secrets',
      'customresourcedefinitions',
      'dnsrecords',
      'dnsrecords/status',
    ]);
  });

  it('grants get on exactly the Secret it names, when the name is fixed', () => {
    const secrets = { provider: { name: 'dns-provider', keys: ['token'] } };
    const kind = defineKind({ ...base, children: [], external: { ...external, secrets } });
    expect(rulesOf(kind).filter((r) => r.resources.includes('secrets'))).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['dns-provider'] },
    ]);
  });
});

describe('fieldDifferences', () => {
  it('says each field of what is wanted that the observed object lacks or has otherwise', () => {
    const wanted = { ttl: 600, values: ['a', 'b'], type: 'A', note: undefined };
    expect(fieldDifferences(wanted, { ttl: 300, values: ['a'], type: 'A', serial: 4 })).toEqual([
      'ttl: 300 -> 600',
      'values: ["a"] -> ["a","b"]',
    ]);
    expect(fieldDifferences(wanted, { ttl: 600, values: ['a', 'b'], type: 'A', serial: 4 })).toEqual([]);
    expect(fieldDifferences({ ttl: 1 }, {})).toEqual(['ttl: (none) -> 1']);
    expect(fieldDifferences('x', 'y')).toEqual(['"y" -> "x"']);
  });
});

describe('the observe interval annotation', () => {
  it('reads seconds, minutes and hours, and nothing else', () => {
    expect(durationSeconds('30s')).toBe(30);
    expect(durationSeconds('5m')).toBe(300);
    expect(durationSeconds('1h')).toBe(3600);
    expect(durationSeconds('90')).toBe(90);
    expect(durationSeconds('500ms')).toBe(0.5);
    expect(durationSeconds('soon')).toBeUndefined();
    expect(durationSeconds('0s')).toBeUndefined();
  });
});

it('desired sees the resource as stored (its defaults filled in)', () => {
  const kind = dnsRecordKind(new FakeProvider());
  const resource = {
    metadata: { name: 'www', namespace: 'default' },
    spec: kind.withDefaults({ zone: 'example.com', name: 'www', values: ['b', 'a'] }),
  } as CustomResource<never>;
  expect(kind.external?.desired(resource)).toEqual({
    fqdn: 'www.example.com',
    type: 'A',
    ttl: 300,
    values: ['a', 'b'],
  });
});
