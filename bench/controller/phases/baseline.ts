/**
 * The baseline, no controller: the same N resources created the same way, and a minimal loop that applies
 * each one's children as soon as its create returns; also the floor of a single update. What the controller's
 * figures are compared with.
 */
import { synthesize, type CustomResource, type MemcachedSpec } from '../../../constructs';
import { sleep } from '../../../controller/abortable';
import type { KubeObject } from '../../../constructs/kit';
import { MEMCACHED, memcached } from '../cluster';
import { cpuSnapshot, cpuSpent } from '../proc';
import type { Results } from '../report';
import type { Settings } from '../settings';
import { log, now, quantile, until } from '../support';
import { type Workload, createAll, patchNextSize, updateTargets } from './workload';

export async function directPhase(w: Workload, s: Settings, r: Results): Promise<void> {
  const { cluster, observer, names } = w;
  log(`baseline: the same ${s.count} resources, children applied by a minimal loop of ${s.workers} workers`);
  const queue: { name: string; obj: KubeObject }[] = [];
  const sleeping: (() => void)[] = [];
  const wakeOne = () => sleeping.shift()?.();
  let done = false;
  let failure: Error | undefined;
  const worker = async () => {
    for (;;) {
      const item = queue.shift();
      if (!item) {
        if (done) return;
        await new Promise<void>((wake) => sleeping.push(wake));
        continue;
      }
      const resource = {
        ...memcached(cluster.namespace, item.name, s.size),
        metadata: item.obj.metadata,
      } as CustomResource;
      const started = now();
      const children = synthesize(MEMCACHED, resource, {
        owner: { uid: item.obj.metadata.uid ?? '' },
        admitted: true,
      });
      await Promise.all(
        children.map(async (c) => {
          const sent = now();
          await cluster.apply(c);
          applyMs.push(now() - sent);
        }),
      ).catch((err: unknown) => {
        failure ??= err as Error; // retrying() throws Errors
      });
      itemMs.push(now() - started);
    }
  };
  const applyMs: number[] = [];
  const itemMs: number[] = [];
  const workers = Array.from({ length: s.workers }, worker);
  const t0 = now();
  const cpu0 = cpuSnapshot();
  await createAll(w, s, (name, obj) => {
    queue.push({ name, obj });
    wakeOne();
  });
  r.directCreateSeconds = (now() - t0) / 1000;
  done = true;
  sleeping.splice(0).forEach((w) => w());
  const drained = await Promise.race([
    Promise.all(workers).then(() => true),
    sleep(60_000 + 200 * s.count).then(() => false),
  ]);
  if (failure) throw failure;
  if (!drained) throw new Error('the baseline loop did not finish in time');
  const applied = await until(() => names.every((n) => observer.childrenApplied(n) !== undefined), 60_000);
  if (!applied) throw new Error('baseline: children not all seen by the watch');
  r.directCpuUntilApplied = cpuSpent(cpu0, cpuSnapshot());
  r.directAppliedSeconds = (observer.lastChildApplied(names) - t0) / 1000;
  const lat = observer.latencies(names);
  r.directLatencyMedianMs = quantile(lat, 0.5);
  r.directLatencyP99Ms = quantile(lat, 0.99);
  r.directApplyMeanMs = applyMs.reduce((a, x) => a + x, 0) / applyMs.length;
  r.directItemMeanMs = itemMs.reduce((a, x) => a + x, 0) / itemMs.length;

  // The floor of an update: patch spec.size, then apply the Deployment it gives, until the watch sees it.
  if (s.updates > 0 && !s.overheadOnly) {
    // Idle first: the Deployments' pods started, as they were in the controller's update phase.
    await cluster.waitPodsRunning(s.count * s.size, 120_000 + 400 * s.count);
    const latencies: number[] = [];
    const cpu1 = cpuSnapshot();
    for (const name of updateTargets(names, s.updates)) {
      const { started, patched, seen } = await patchNextSize(w, name, s);
      const [deployment] = synthesize(MEMCACHED, patched as unknown as CustomResource<MemcachedSpec>, {
        owner: { uid: patched.metadata.uid ?? '' },
        admitted: true,
      }).filter((c) => c.kind === 'Deployment');
      await cluster.apply(deployment);
      if (await seen) latencies.push(now() - started);
      await sleep(500);
    }
    r.floorCpu = cpuSpent(cpu1, cpuSnapshot());
    r.floorUpdateLatencyMedianMs = quantile(latencies, 0.5);
  }
}
