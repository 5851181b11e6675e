/**
 * bench:peer, its entry point: reconstruct against what users would pick instead, side by side on the local
 * control plane: the Go controller-runtime operator (bench/peer-go, operator-sdk's memcached sample) and
 * kro, a kind defined as data (bench/peer-kro: kro's controller and a ResourceGraphDefinition that makes
 * the same children as our Memcached).
 *
 *   npm run bench:peer                                # N = 500 (3 rounds) and 2,000 (1 round)
 *   npm run bench:peer -- --counts 50 --pairs 1       # a quick look
 *   npm run bench:peer -- --peers kro                 # against kro alone
 *
 * For each count, rounds of one run each: reconstruct (its defaults: 4 workers), the Go peer and kro (their
 * defaults: one worker), the order rotated every round, so that none always runs on a cluster settling
 * from another; then each peer once with reconstruct's workers (kro also with a client QPS that never
 * throttles). Each run is
 * controller A of bench:controller (phases/controller.ts) in a fresh namespace, the controller running with
 * its own resync period: N Memcached of size 1 created, 32 requests in flight; time to the last Deployment
 * and to all Ready; CPU during the burst (/proc); API requests per resource (its /metrics); RSS; 20 single
 * updates; then a quiet minute once everything converged.
 *
 * The two do different work per resource (the peer: a Deployment, a finalizer, an Available condition;
 * reconstruct: a Deployment, a Service, status.nodes, a Ready condition), so both are judged by the same
 * milestones: children applied is the Deployment seen, Ready is the Deployment's replicas all ready.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { loadClient } from '../../controller/kube/client';
import { Cluster } from './cluster';
import { removeControllerLogs } from './controller-process';
import type { ControllerUnderTest, Milestones } from './controller-under-test';
import { guard, run } from './guard';
import { Observer } from './observer';
import { peerGo } from './peer-go';
import { peerKro, peerKroTuned } from './peer-kro';
import { type Column, type PeerRun, peerTable } from './peer-report';
import { PEER_HELP, type PeerSettings, peerSettings, runSettings } from './peer-settings';
import { directPhase } from './phases/baseline';
import { controllerPhase } from './phases/controller';
import { resourceNames } from './phases/workload';
import { reconstruct as builtinReconstruct, reconstructUnderTest } from './reconstruct';
import type { Results } from './report';
import { log } from './support';

/** The same milestones for both: what the peer makes is a Deployment, and it sets no Ready condition. */
const MILESTONES: Milestones = { children: ['Deployment'], ready: 'deployment' };

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function main(): Promise<number> {
  let p: PeerSettings | undefined;
  try {
    p = peerSettings();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${PEER_HELP}`);
    return 2;
  }
  if (!p) return 0;
  const settings = p;
  const reconstruct = reconstructUnderTest(settings.sameWork);
  const go = settings.peers.includes('go');
  const kro = settings.peers.includes('kro');
  const http1 = settings.peers.includes('http1');
  /** Each round's runs, in the first round's order: the controller, its workers, its column. */
  const contenders: [ControllerUnderTest, number, Column][] = [
    [reconstruct, settings.workers, 'reconstruct'],
    ...(http1
      ? [
          [reconstructUnderTest(settings.sameWork, true), settings.workers, 'http1'] as [
            ControllerUnderTest,
            number,
            Column,
          ],
        ]
      : []),
    ...(go && !settings.tunedOnly ? [[peerGo, 1, 'peer'] as [ControllerUnderTest, number, Column]] : []),
    ...(kro && !settings.tunedOnly ? [[peerKro, 1, 'kro'] as [ControllerUnderTest, number, Column]] : []),
  ];
  const tuned: [ControllerUnderTest, number, Column][] = [
    ...(go ? [[peerGo, settings.workers, 'peer4'] as [ControllerUnderTest, number, Column]] : []),
    ...(kro ? [[peerKroTuned, settings.workers, 'kroTuned'] as [ControllerUnderTest, number, Column]] : []),
  ];
  const targets = [...new Set([...contenders, ...tuned].map(([target]) => target))];
  for (const target of targets) target.check();
  const client = loadClient({ userAgent: 'reconstruct-bench', maxSockets: 64 });
  const base = `reconstruct-peer-${Math.random().toString(16).slice(2, 8)}`;
  // The home namespace: the warm-up's, and the owner of the nodes and Service IPs added for the largest count.
  const home = new Cluster(client, base);
  let current: { cluster: Cluster; observer: Observer } | undefined;
  const cleanUp = guard(settings.deadlineMs, async () => {
    if (current) {
      await current.observer.stop().catch(() => undefined);
      await current.cluster.cleanUp();
    }
    log(`cleaning up namespace ${base}`);
    await home.cleanUp();
    for (const target of targets) await target.finish?.(client).catch((err) => log(String(err)));
  });

  const loadAtStart = load();
  const runs: PeerRun[] = [];
  let serial = 0;
  /** One run of one controller in a namespace of its own, deleted after it. */
  const measure = async (count: number, target: ControllerUnderTest, workers: number, column: Column) => {
    const s = runSettings(settings, count, workers, `${base}-${++serial}`);
    const cluster = new Cluster(client, s.namespace, target.resource);
    const observer = new Observer(client, s.namespace, MILESTONES, target.resource);
    current = { cluster, observer };
    log(`run ${serial}: ${target.name}, ${workers} worker(s), N = ${count}, namespace ${s.namespace}`);
    const results: Results = { count, workers };
    try {
      await cluster.createNamespace();
      await observer.start();
      await controllerPhase({ cluster, observer, names: resourceNames(count) }, target, s, results);
    } finally {
      await observer.stop().catch(() => undefined);
      await cluster.cleanUp();
      current = undefined;
    }
    runs.push({ count, column, controller: target.name, workers, results });
  };

  try {
    await home.createNamespace();
    for (const target of targets) await target.prepare?.(client);
    // Room for the largest count, once (the nodes and the ServiceCIDR are named after the home namespace).
    const largest = Math.max(...settings.counts);
    log(await home.addNodesFor(largest + settings.updates));
    log(await home.addServiceIpsFor(largest));
    for (const [i, count] of settings.counts.entries()) {
      if (i === 0 && settings.warmup) await warmUp(home, settings, count);
      const pairs = settings.pairs(count);
      for (let round = 0; round < pairs; round++) {
        const first = round % contenders.length;
        const order = [...contenders.slice(first), ...contenders.slice(0, first)];
        for (const [target, workers, column] of order) await measure(count, target, workers, column);
      }
      for (const [target, workers, column] of tuned) await measure(count, target, workers, column);
    }
  } finally {
    await cleanUp();
  }
  removeControllerLogs(); // kept when the run fails
  const loadAtEnd = load();
  const tables = settings.counts.map((count) => peerTable(count, runs, settings.idleSeconds));
  process.stdout.write(
    [
      '',
      `bench:peer: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
      `reconstruct: ${reconstruct.about}; ${targets
        .slice(1)
        .map((t) => t.about)
        .join('; ')}`,
      `load average (1, 5, 15 min): ${loadAtStart} at start, ${loadAtEnd} at end`,
      '',
      tables.join('\n\n'),
      '',
      "All judged alike: children applied = the Deployment seen by the bench's watch, Ready = the Deployment's",
      'readyReplicas == spec.size. Ratio = reconstruct / the peer to its left. Each controller runs with its own',
      'resync period.',
      '',
    ].join('\n'),
  );
  if (settings.json) {
    const json = {
      settings: { ...settings, pairs: settings.counts.map(settings.pairs) },
      loadAtStart,
      loadAtEnd,
      runs,
    };
    writeFileSync(settings.json, `${JSON.stringify(json, null, 2)}\n`);
  }
  return 0;
}

/** The first burst on a fresh control plane is slower, whoever sends it: one unmeasured baseline pass first. */
async function warmUp(home: Cluster, settings: PeerSettings, count: number): Promise<void> {
  log('warm-up (not measured):');
  const observer = new Observer(home.client, home.namespace, builtinReconstruct.milestones);
  const s = { ...runSettings(settings, count, settings.workers, home.namespace), overheadOnly: true };
  try {
    await observer.start();
    await directPhase({ cluster: home, observer, names: resourceNames(count) }, s, {});
  } finally {
    await observer.stop();
  }
  await home.wipe(120_000 + 300 * count);
}

run(main);
