/**
 * The benchmark's kro peer (bench/peer-kro: kro's controller, built from its Go module, with a
 * ResourceGraphDefinition written to match our Memcached) builds, installs and does the same work as
 * reconstruct: for each kro.run Memcached a Deployment and a Service whose specs, as the API server stores
 * them, equal those of the children reconstruct renders for a cache.example.com Memcached of the same
 * size; the replicas follow a size change; finish() removes what prepare() installed. kro runs as the
 * benchmark runs it (its defaults, the cluster's admin kubeconfig).
 *
 * The build (bench/peer-kro/build.sh) needs Go and the Go module proxy; it is cached outside the
 * repository, so only the first run on a machine compiles kro (a minute or two).
 */
import { ControllerProcess } from '../../bench/controller/controller-process';
import { KRO_MEMCACHED, peerKro } from '../../bench/controller/peer-kro';
import { type CustomResource, type MemcachedSpec, memcachedKind, synthesize } from '../../constructs';
import type { KubeObject } from '../../constructs/kit';
import { loadClient } from '../../controller/kube/client';
import { createNamespace, deleteNamespace, exists, getJson, kubectl, waitFor } from '../support/kubectl';

const BUILD_TIMEOUT_MS = 20 * 60_000;
const NAMES = ['kro-a', 'kro-b'];
const KRO_CRD = `${KRO_MEMCACHED.plural}.kro.run`;

jest.setTimeout(60_000);

interface Child {
  spec: Record<string, unknown>;
}

let ns: string | undefined;
let kro: ControllerProcess | undefined;
const client = () => loadClient({ userAgent: 'reconstruct-test' });

const kroLogs = () => kro?.logs().slice(-40).join('\n') ?? '';

beforeAll(async () => {
  if (!process.env.KUBECONFIG)
    throw new Error('KUBECONFIG is not set: run the tests through scripts/cluster/with-cluster.sh');
  peerKro.check();
  await peerKro.prepare!(client());
  ns = createNamespace('peer-kro');
  kro = await ControllerProcess.start(peerKro, { namespace: ns, workers: 1 });
}, BUILD_TIMEOUT_MS + 120_000);

afterAll(async () => {
  if (ns && kro) {
    // Deleted while kro runs, so that it deletes the children and removes its finalizer.
    kubectl(['delete', KRO_CRD, '--all', '-n', ns, '--wait=false'], { allowFail: true });
    await waitFor(() => NAMES.every((n) => !exists([KRO_CRD, n, '-n', ns!])), {
      what: 'kro to let its Memcacheds go',
      timeoutMs: 20_000,
    }).catch(() => undefined);
  }
  await kro?.stop();
  if (ns) {
    for (const name of NAMES) {
      kubectl(['patch', KRO_CRD, name, '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}'], {
        allowFail: true,
      });
    }
    deleteNamespace(ns);
  }
  await peerKro.finish!(client());
});

/** What the API server stores for reconstruct's child of this kind, by a server-side dry run of it. */
function ours(name: string, size: number, kind: 'Deployment' | 'Service'): Child {
  const resource: CustomResource<MemcachedSpec> = {
    apiVersion: memcachedKind.apiVersion,
    kind: memcachedKind.kind,
    metadata: { name, namespace: ns!, uid: '00000000-0000-0000-0000-000000000000' },
    spec: { size },
  };
  const child = synthesize(memcachedKind, resource, { admitted: true }).find((c) => c.kind === kind);
  if (!child) throw new Error(`reconstruct's Memcached renders no ${kind}`);
  const out = kubectl(['apply', '--server-side', '--dry-run=server', '-o', 'json', '-f', '-'], {
    input: JSON.stringify({ ...child, metadata: { ...child.metadata, name: `${name}-ours` } }),
  });
  return JSON.parse(out.stdout) as Child;
}

/** A Service's spec without what the API server allocates (its IPs). */
const allocatedAway = (spec: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(spec).filter(([field]) => !['clusterIP', 'clusterIPs'].includes(field)));

it('makes for each Memcached the Deployment and Service reconstruct makes, field for field', async () => {
  kubectl(['apply', '-f', '-'], {
    input: NAMES.map((name) =>
      JSON.stringify({
        apiVersion: KRO_MEMCACHED.apiVersion,
        kind: KRO_MEMCACHED.kind,
        metadata: { name, namespace: ns },
        spec: { size: 1 },
      }),
    ).join('\n---\n'),
  });
  for (const name of NAMES) {
    await waitFor(() => exists(['deployment', name, '-n', ns!]) && exists(['service', name, '-n', ns!]), {
      what: `${name}: kro's Deployment and Service`,
      timeoutMs: 30_000,
    }).catch((err: Error) => {
      throw new Error(`${err.message}\nkro logs:\n${kroLogs()}`);
    });
    const deployment = getJson<Child>(['deployment', name, '-n', ns!]);
    const service = getJson<Child>(['service', name, '-n', ns!]);
    expect(deployment.spec).toEqual(ours(name, 1, 'Deployment').spec);
    expect(allocatedAway(service.spec)).toEqual(allocatedAway(ours(name, 1, 'Service').spec));
  }
  const resource = getJson<KubeObject>([KRO_CRD, NAMES[0], '-n', ns!]);
  expect(resource.metadata.finalizers).toContain('kro.run/finalizer');
  expect(kro!.errorLines()).toEqual([]);
});

it('keeps the Deployment at spec.size, counted in the metrics the bench reads', async () => {
  const [resized] = NAMES;
  kubectl(['patch', KRO_CRD, resized, '-n', ns!, '--type=merge', '-p', '{"spec":{"size":3}}']);
  await waitFor(() => getJson<Child>(['deployment', resized, '-n', ns!]).spec.replicas === 3, {
    what: `${resized} Deployment at 3 replicas`,
    timeoutMs: 15_000,
  });
  const metrics = await kro!.metrics();
  expect(metrics.reconciles()).toBeGreaterThanOrEqual(NAMES.length + 1);
  expect(metrics.writes()).toBeGreaterThanOrEqual(2 * NAMES.length);
  expect(metrics.requests(['get'])).toBeGreaterThan(0);
});
