/**
 * FakeProvider's ids of its own (`create`, `list`): a kind whose provider names the objects it makes (as
 * most cloud APIs do) keeps the id in its status, finds its object by name before it has one, and makes
 * it once, across a controller's restart; an object lost out of band is made again under a new id.
 */
import { defineKind, type KindSchema } from '../../index';
import { FakeProvider, InMemoryCluster } from '../../testing';

interface BucketSpec {
  name: string;
  region: string;
}
interface Bucket {
  name: string;
  region: string;
}
type Found = Bucket & { id: string };

const schema: KindSchema = {
  description: 'A bucket in a storage provider.',
  spec: {
    type: 'object',
    required: ['name', 'region'],
    properties: { name: { type: 'string' }, region: { type: 'string' } },
  },
  status: { id: { type: 'string' } },
};

let provider: FakeProvider<Bucket>;
let cluster: InMemoryCluster;
const bucketKind = () =>
  defineKind<BucketSpec, { id?: string }, BucketSpec, Found, Bucket>({
    apiVersion: 'storage.example.com/v1',
    kind: 'Bucket',
    plural: 'buckets',
    schema,
    children: [],
    external: {
      describe: (d) => `bucket ${d.name}`,
      desired: (r) => ({ name: r.spec.name, region: r.spec.region }),
      // By the id in the status when there is one; else by name, among the provider's objects.
      async observe(d, { resource, signal }) {
        const id = resource.status?.id;
        const byId = id ? await provider.get(id, { signal }) : undefined;
        if (byId) return { id: id!, ...byId };
        const found = (await provider.list({ signal })).find((o) => o.value.name === d.name);
        return found && { id: found.id, ...found.value };
      },
      async apply(d, observed, { signal }) {
        if (observed) await provider.put(observed.id, d, { signal });
        else await provider.create(d, { signal });
      },
      async delete(o, { signal }) {
        await provider.delete(o.id, { signal });
      },
    },
    status: ({ observed }) => (observed ? { id: observed.id } : {}),
  });

let kind: ReturnType<typeof bucketKind>;
beforeEach(() => {
  provider = new FakeProvider<Bucket>();
  kind = bucketKind();
  cluster = new InMemoryCluster([kind]);
  cluster.putResource(kind, 'logs', { name: 'logs', region: 'eu' }, 'default');
});
afterEach(() => cluster.external.stop(0));

const converge = () => cluster.converge(kind, 'default', 'logs');
const status = () => cluster.any(kind, 'default', 'logs')?.status as { id?: string };

it('makes the object once, keeps the provider’s id in the status, and finds it by id after a restart', async () => {
  await converge();
  expect(provider.writes.map((c) => `${c.op} ${c.id}`)).toEqual(['create id-1']);
  expect(status().id).toBe('id-1');
  expect(cluster.ready(kind, 'default', 'logs')).toMatchObject({ status: 'True' });
  cluster.restart();
  provider.calls.length = 0;
  await converge();
  expect(provider.calls.map((c) => `${c.op} ${c.id}`)).toEqual(['get id-1']);
});

it('an object lost out of band is made again under a new id, which the status then says', async () => {
  await converge();
  provider.lose('id-1');
  cluster.restart(); // observes at once, as a reconcile now would
  await converge();
  expect(provider.writes.map((c) => `${c.op} ${c.id}`)).toEqual(['create id-1', 'create id-2']);
  expect(status().id).toBe('id-2');
  expect([...provider.objects.keys()]).toEqual(['id-2']);
});

it('a change of the spec is put to the object of the id it has', async () => {
  await converge();
  cluster.patch(kind, 'default', 'logs', { spec: { region: 'us' } });
  await converge();
  expect(provider.writes.map((c) => `${c.op} ${c.id}`)).toEqual(['create id-1', 'put id-1']);
  expect(provider.objects.get('id-1')).toEqual({ name: 'logs', region: 'us' });
});
