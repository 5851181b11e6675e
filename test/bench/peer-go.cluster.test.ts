/**
 * The benchmark's Go peer (bench/peer-go: operator-sdk's memcached sample on controller-runtime, against our
 * Memcached CRD) builds and does its work: for each Memcached a finalizer, a Deployment it owns with
 * replicas = spec.size, and the Available condition; replicas follow a size change; a deletion runs its
 * finalizer. It runs as the benchmark runs it, with the cluster's admin kubeconfig (no RBAC of its own),
 * watching only this test's namespace.
 *
 * The build (bench/peer-go/build.sh) needs Go; it is cached outside the repository, so only the first run
 * on a machine compiles controller-runtime (minutes).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { peerGo } from '../../bench/controller/peer-go';
import { counter } from '../support/controller';
import { memcached } from '../fixtures/resources';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  kubectl,
  waitFor,
} from '../support/kubectl';

const BUILD_TIMEOUT_MS = 20 * 60_000;
const FINALIZER = 'cache.example.com/finalizer';
const NAMES = ['peer-a', 'peer-b', 'peer-c'];

jest.setTimeout(60_000);

interface Memcached {
  metadata: { uid: string; finalizers?: string[] };
  status?: { conditions?: { type: string; status: string; reason: string }[] };
}
interface Deployment {
  metadata: { ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[] };
  spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
}

let ns: string | undefined;
let peer: ChildProcess | undefined;
let exited: Promise<number | null> | undefined;
const logs: string[] = [];
let metricsUrl = '';

const peerLogs = () => logs.slice(-40).join('\n');

beforeAll(async () => {
  if (!process.env.KUBECONFIG)
    throw new Error('KUBECONFIG is not set: run the tests through scripts/cluster/with-cluster.sh');
  // Built and started exactly as bench:peer does (its defaults: one worker).
  peerGo.check();
  ns = createNamespace('peer-go');
  const launch = await peerGo.launch({ namespace: ns, workers: 1 });
  metricsUrl = launch.metricsUrl;
  const proc = spawn(launch.command, launch.args, { env: launch.env, stdio: ['ignore', 'pipe', 'pipe'] });
  peer = proc;
  exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  let buffered = '';
  const collect = (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    logs.push(...lines);
    if (process.env.RECONSTRUCT_TEST_LOGS) lines.forEach((l) => process.stderr.write(`[peer-go] ${l}\n`));
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`the peer exited ${proc.exitCode}:\n${peerLogs()}`);
      return (await fetch(launch.readyUrl).catch(() => undefined))?.ok;
    },
    { what: 'the Go peer to be ready', timeoutMs: 30_000 },
  );
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  if (ns && peer && peer.exitCode === null) {
    // Deleted while the peer runs, so that it removes its finalizer.
    kubectl(['delete', 'memcached', '--all', '-n', ns, '--wait=false'], { allowFail: true });
    await waitFor(() => NAMES.every((n) => !exists(['memcached', n, '-n', ns!])), {
      what: 'the peer to let its Memcacheds go',
      timeoutMs: 20_000,
    }).catch(() => undefined);
  }
  if (peer && peer.exitCode === null) {
    peer.kill('SIGTERM');
    const timer = setTimeout(() => peer?.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (ns) {
    // Whatever is left (a failed test) loses the finalizer, which nobody would remove now.
    for (const name of NAMES) {
      kubectl(
        ['patch', 'memcached', name, '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}'],
        {
          allowFail: true,
        },
      );
    }
    deleteNamespace(ns);
  }
});

it('gives each Memcached a finalizer, an owned Deployment of spec.size replicas and Available=True', async () => {
  applyYaml(NAMES.map((n) => JSON.stringify(memcached(n, { size: 1 }, ns))).join('\n---\n'));
  for (const name of NAMES) {
    const done = await waitFor(
      () => {
        const m = getJson<Memcached>(['memcached', name, '-n', ns!]);
        const available = m.status?.conditions?.find((c) => c.type === 'Available')?.status;
        if (!m.metadata.finalizers?.includes(FINALIZER) || available !== 'True') return undefined;
        if (!exists(['deployment', name, '-n', ns!])) return undefined;
        return { m, d: getJson<Deployment>(['deployment', name, '-n', ns!]) };
      },
      { what: `${name}: finalizer, Deployment and Available=True`, timeoutMs: 20_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\npeer logs:\n${peerLogs()}`);
    });
    expect(done.d.spec.replicas).toBe(1);
    // The CRD's default image, as the API server filled it in.
    expect(done.d.spec.template.spec.containers[0]?.image).toBe('memcached:1.4.36-alpine');
    expect(done.d.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Memcached', name, uid: done.m.metadata.uid, controller: true }),
    ]);
  }

  const metrics = await (await fetch(metricsUrl)).text();
  expect(metrics).toContain('controller_runtime_max_concurrent_reconciles{controller="memcached"} 1');
  expect(
    counter(metrics, 'controller_runtime_reconcile_total', (l) => l.includes('result="success"')),
  ).toBeGreaterThanOrEqual(NAMES.length);
  expect(counter(metrics, 'rest_client_requests_total')).toBeGreaterThan(0);
});

it('keeps the replicas at spec.size, and lets a deleted Memcached go through its finalizer', async () => {
  const [resized, deleted] = NAMES;
  kubectl(['patch', 'memcached', resized, '-n', ns!, '--type=merge', '-p', '{"spec":{"size":3}}']);
  await waitFor(() => getJson<Deployment>(['deployment', resized, '-n', ns!]).spec.replicas === 3, {
    what: `${resized} Deployment at 3 replicas`,
    timeoutMs: 15_000,
  });

  kubectl(['delete', 'memcached', deleted, '-n', ns!, '--wait=false']);
  await waitFor(() => !exists(['memcached', deleted, '-n', ns!]), {
    what: `${deleted} to be deleted (its finalizer removed by the peer)`,
    timeoutMs: 15_000,
  });
  await waitFor(
    () => logs.some((l) => l.includes('Removing the finalizer') && l.includes(`"name": "${deleted}"`)),
    {
      what: 'the peer to log its finalizer',
      timeoutMs: 5_000,
    },
  );
});
