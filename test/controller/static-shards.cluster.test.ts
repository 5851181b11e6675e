/**
 * Static sharding by label, as Flux's controllers shard (`--watch-label-selector`): one controller takes the
 * Memcached labelled `sharding.fluxcd.io/key=a`, another those without the key, each with a Lease of its
 * own. Each reconciles its own only, their children carry the label (so each caches its own children
 * only), and a resource relabelled moves: the other takes it up, its children follow, and the one it left
 * writes nothing more for it.
 */
import { counter, type RunningController, startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  kubectl,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

const KEY = 'sharding.fluxcd.io/key';

let ns: string;
let shardA: RunningController;
let rest: RunningController;

interface Deployment {
  metadata: { labels?: Record<string, string> };
  spec: { replicas: number };
}

const start = (selector: string) =>
  startController([
    '--namespaces',
    ns,
    '--leader-elect',
    '--lease-namespace',
    ns,
    '--watch-label-selector',
    selector,
  ]);

function memcached(name: string, size: number, shard?: string): void {
  applyYaml(
    JSON.stringify({
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name, namespace: ns, ...(shard ? { labels: { [KEY]: shard } } : {}) },
      spec: { size },
    }),
  );
}

const deployment = (name: string): Deployment | undefined =>
  exists(['deployment', name, '-n', ns]) ? getJson<Deployment>(['deployment', name, '-n', ns]) : undefined;

/** What the controller wrote so far: its creations, patches (applies, status) and deletions; not its Lease. */
const writes = async (controller: RunningController) =>
  counter(await controller.metrics(), 'reconstruct_api_requests_total', (l) =>
    /verb="(create|patch|delete)"/.test(l),
  );

beforeAll(async () => {
  ns = createNamespace('static-shards');
  shardA = await start(`${KEY}=a`);
  rest = await start(`!${KEY}`);
});
afterAll(async () => {
  await shardA?.stop();
  await rest?.stop();
  if (ns) deleteNamespace(ns);
});

it('has each shard reconcile its own resources, each leading its own Lease, the children labelled as theirs', async () => {
  await waitFor(() => [shardA, rest].every((c) => c.logs.some((l) => l.includes('"became leader"'))), {
    what: 'both shards to lead',
  });
  const leases = getJson<{ items: { metadata: { name: string } }[] }>(['leases', '-n', ns]).items.map(
    (l) => l.metadata.name,
  );
  expect(leases.filter((l) => /^reconstruct-controller-[0-9a-f]{10}$/.test(l))).toHaveLength(2);

  const settled = () => new Promise((r) => setTimeout(r, 2000));
  const [a0, rest0] = [await writes(shardA), await writes(rest)];
  memcached('in-a', 1, 'a');
  const a = await waitFor(() => deployment('in-a'), { what: "in-a's Deployment" });
  expect(a.metadata.labels?.[KEY]).toBe('a');
  await settled();
  const [a1, rest1] = [await writes(shardA), await writes(rest)];
  expect(a1).toBeGreaterThan(a0);
  expect(rest1).toBe(rest0);

  memcached('plain', 1);
  const plain = await waitFor(() => deployment('plain'), { what: "plain's Deployment" });
  expect(plain.metadata.labels).not.toHaveProperty(KEY);
  await settled();
  expect(await writes(rest)).toBeGreaterThan(rest1);
  expect(await writes(shardA)).toBe(a1);
  await waitFor(
    () =>
      kubectl(['get', 'memcached', 'plain', '-n', ns, '-o', 'jsonpath={.status.conditions}']).stdout.includes(
        'Ready',
      ),
    {
      what: "plain's status",
    },
  );
});

it('moves a resource relabelled: the other shard takes it up, its children follow, the first writes no more', async () => {
  kubectl(['label', 'memcached', 'plain', '-n', ns, `${KEY}=a`]);
  await waitFor(() => deployment('plain')?.metadata.labels?.[KEY] === 'a', {
    what: "plain's Deployment to carry shard a's label",
  });
  // Settled: a change now is shard a's alone.
  await new Promise((r) => setTimeout(r, 2000));
  const before = await writes(rest);
  expect(before).toBeGreaterThan(0); // plain's, while it was theirs
  kubectl(['patch', 'memcached', 'plain', '-n', ns, '--type=merge', '-p', '{"spec":{"size":2}}']);
  await waitFor(() => deployment('plain')?.spec.replicas === 2, {
    what: "plain's Deployment scaled by shard a",
  });
  await new Promise((r) => setTimeout(r, 2000));
  expect(await writes(rest)).toBe(before);

  // And back: without the key, the rest take it, and the label leaves its children.
  kubectl(['label', 'memcached', 'plain', '-n', ns, `${KEY}-`]);
  await waitFor(
    () => deployment('plain') !== undefined && !(KEY in (deployment('plain')!.metadata.labels ?? {})),
    {
      what: "the label to leave plain's Deployment",
    },
  );
  expect(await writes(rest)).toBeGreaterThan(before);
});
