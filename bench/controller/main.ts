/**
 * Controller benchmark, its entry point: how fast the real controller turns N Memcached resources into children, what it
 * costs the API server and in memory, and how it compares with the API server's own limit.
 *
 *   npm run bench:controller                      # 500 resources, on a local control plane
 *   npm run bench:controller -- --count 1000      # or BENCH_COUNT=1000
 *   RECONSTRUCT_USE_EXISTING_CLUSTER=1 KUBECONFIG=... npm run bench:controller
 *
 * It runs against the cluster of KUBECONFIG, in a namespace of its own that it deletes at the end, and
 * starts `node dist/cli/main.js controller` as a child process, the way a user runs it (with the
 * NODE_OPTIONS of the install manifest): reconstruct.ts, one ControllerUnderTest (controller-under-test.ts),
 * which is all the phases know of the controller. Phases:
 *
 *  0. Warm-up (unless --no-warmup): one unmeasured baseline pass, then everything deleted.
 *  1. Controller A (no resync during the phase): N Memcached resources are created at once, `--concurrency`
 *     requests in flight. Measured: the time until the children of every one are applied, and until every
 *     one is Ready; per resource, the latency from its create (the create's response) to both of its
 *     children being applied; the controller's API requests (its /metrics) per resource; its peak RSS.
 *  2. Single updates, same controller, idle cluster: spec.size + 1 on one resource, time until the
 *     Deployment's spec.replicas shows it; the next one once the resource is Ready again.
 *  3. Controller B, restarted with `--resync R`: writes sent at start-up and over two resync periods once
 *     settled (both should be 0), its RSS with N resources managed.
 *  4. Baseline, no controller: everything deleted, then the same N resources created the same way, and a
 *     minimal loop (`--workers` loops, no cache, no reads, no status, no events) synthesizes each one's
 *     children with synthesize() and the owner's uid as soon as its create returns and server-side applies
 *     them. Compared with phase 1 like for like: from the first create sent to the last child applied.
 *     Also the floor of an update: patch spec.size, then apply the Deployment, time until it is seen.
 *
 * "Applied" is when this process's watch (one informer each for Memcached, Deployment and Service)
 * delivers the object: the same for the controller and the baseline. Times are from a monotonic clock.
 * Every wait is bounded, and a deadline (--deadline) stops the run, cleaning up, whatever happens.
 *
 * On a kwok cluster (every node annotated kwok.x-k8s.io/node=fake), fake nodes are added for the pods
 * the three default ones cannot hold, and a ServiceCIDR for the ClusterIPs its /24 service range cannot
 * hold, both removed at the end. Elsewhere nothing outside the namespace is touched: pods beyond capacity
 * stay Pending and Ready is not reached (use --size 0), Services beyond the range fail.
 *
 * `--overhead-only` runs phase 1 up to "children applied" and phase 4: a quick look at the ratio.
 */
import { writeFileSync } from 'node:fs';
import { sleep } from '../../controller/abortable';
import { loadClient } from '../../controller/kube/client';
import { Cluster } from './cluster';
import { removeControllerLogs } from './controller-process';
import { guard, run } from './guard';
import { Observer } from './observer';
import { directPhase } from './phases/baseline';
import { controllerPhase, steadyPhase } from './phases/controller';
import { type Workload, resourceNames } from './phases/workload';
import { reconstruct } from './reconstruct';
import { type Results, report } from './report';
import { HELP, type Settings, settings } from './settings';
import { log } from './support';

async function main(): Promise<number> {
  let s: Settings | undefined;
  try {
    s = settings();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (!s) return 0;
  const target = reconstruct;
  target.check();
  const client = loadClient({ userAgent: 'reconstruct-bench', maxSockets: 64 });
  const cluster = new Cluster(client, s.namespace);
  const observer = new Observer(client, s.namespace, target.milestones);
  const names = resourceNames(s.count);
  const w: Workload = { cluster, observer, names };
  const r: Results = { count: s.count, workers: s.workers, concurrency: s.concurrency, size: s.size };
  const settingsUsed = s;

  const cleanUp = guard(s.deadlineMs, async () => {
    await observer.stop().catch(() => undefined);
    log(`cleaning up namespace ${settingsUsed.namespace}`);
    await cluster.cleanUp();
  });

  try {
    await cluster.createNamespace();
    log(`namespace ${s.namespace}`);
    if (s.addNodes && s.size > 0) log(await cluster.addNodesFor(s.count * s.size + s.updates));
    if (s.addNodes) log(await cluster.addServiceIpsFor(s.count));
    await observer.start();

    const wipe = async () => {
      log('deleting everything');
      const wiped = await cluster.wipe(120_000 + 300 * s.count);
      if (!wiped) throw new Error('the namespace did not empty in time');
      observer.reset();
      await sleep(2000);
    };
    // The first burst on a fresh control plane is slower, whoever sends it (the API server's and etcd's
    // memory grows, caches fill): without a warm-up that cost lands on the controller's first run.
    if (s.warmup) {
      log('warm-up (not measured):');
      await directPhase(w, { ...s, overheadOnly: true }, {});
      await wipe();
    }

    await controllerPhase(w, target, s, r);
    if (!s.overheadOnly) await steadyPhase(cluster, target, s, r);
    if (s.baseline) {
      await wipe();
      await directPhase(w, s, r);
    }
    const pairs = [r];
    // More pairs, back to back: the machine's load moves, and a ratio of two runs made a minute apart is
    // only as good as the load was steady. Every other pair runs the baseline first, so that neither side
    // always runs on a cluster still settling from the other's deletions.
    for (let round = 2; s.baseline && round <= s.rounds; round++) {
      const quick: Settings = { ...s, overheadOnly: true, cpuProfDir: undefined, updates: 0 };
      const ri: Results = {};
      const baselineFirst = round % 2 === 0;
      log(`overhead round ${round} of ${s.rounds}${baselineFirst ? ', baseline first' : ''}`);
      await wipe();
      if (baselineFirst) {
        await directPhase(w, quick, ri);
        await wipe();
        await controllerPhase(w, target, quick, ri);
      } else {
        await controllerPhase(w, target, quick, ri);
        await wipe();
        await directPhase(w, quick, ri);
      }
      pairs.push(ri);
    }
    // Each pair: the two runs' seconds until the children were applied, and their CPU by process.
    r.overheadPairs = pairs.map((x) => [Number(x.controllerAppliedSeconds), Number(x.directAppliedSeconds)]);
    r.cpuPairs = pairs.map((x) => [x.controllerCpuUntilApplied, x.directCpuUntilApplied]);
    // Out before the clean-up, which can take minutes after a large run.
    process.stdout.write(`\n${report(s, r, target)}\n`);
    if (s.json) writeFileSync(s.json, `${JSON.stringify({ settings: s, results: r }, null, 2)}\n`);
  } finally {
    await cleanUp();
  }
  removeControllerLogs(); // kept when the run fails
  return 0;
}

run(main);
