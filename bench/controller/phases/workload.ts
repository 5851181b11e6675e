/**
 * The workload every phase works on, the N Memcached resources, and the steps phases share: creating them
 * all, and one timed update of a resource's spec.size.
 */
import type { KubeObject } from '../../../constructs/kit';
import { type Cluster, isReady } from '../cluster';
import type { Observer } from '../observer';
import type { Settings } from '../settings';
import { now, pool, until } from '../support';

export interface Workload {
  cluster: Cluster;
  /** The bench's own watch of the namespace. */
  observer: Observer;
  /** The resources' names, created in this order. */
  names: string[];
}

/** The resources' names: mc-0000, mc-0001, ... */
export const resourceNames = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `mc-${String(i).padStart(4, '0')}`);

/** Creates the resources, `concurrency` at a time; records each create's response time and uid. */
export async function createAll(
  { cluster, observer, names }: Workload,
  s: Pick<Settings, 'concurrency' | 'size'>,
  onCreated?: (name: string, obj: KubeObject) => void,
): Promise<void> {
  await pool(names, s.concurrency, async (name) => {
    const obj = await cluster.createMemcached(name, s.size);
    observer.created.set(name, now());
    observer.uids.set(name, obj.metadata.uid ?? '');
    onCreated?.(name, obj);
  });
}

/** The resources the single updates go to, spread over all of them. */
export function updateTargets(names: string[], count: number): string[] {
  const step = Math.max(1, Math.floor(names.length / count));
  return Array.from({ length: count }, (_, i) => names[(i * step) % names.length]);
}

/** Patches spec.size + `delta`; `seen` resolves once the watch shows the Deployment with those replicas. */
export async function patchNextSize(
  { cluster, observer }: Workload,
  name: string,
  s: Settings,
  delta = 1,
): Promise<{ started: number; patched: KubeObject; seen: Promise<boolean> }> {
  const size = Math.max(0, (observer.replicas.get(name) ?? s.size) + delta);
  const seen = observer.replicasBecome(name, size, 10_000);
  const started = now();
  const patched = await cluster.patchSize(name, size);
  return { started, patched, seen };
}

/**
 * Waits (up to 30 s) until the resource patched to `patched` is Ready again at that spec: its Ready condition
 * for its new generation, or its Deployment's replicas all ready, as the observer's milestones say.
 */
export async function readyAgain({ cluster, observer }: Workload, patched: KubeObject): Promise<boolean> {
  const name = patched.metadata.name;
  if (observer.milestones.ready === 'deployment') {
    const size = (patched.spec as { size?: number } | undefined)?.size;
    return until(
      () => observer.replicas.get(name) === size && observer.deploymentReady.get(name) === true,
      30_000,
    );
  }
  const generation = patched.metadata.generation ?? 0;
  return until(
    async () => {
      const obj = await cluster.getMemcached(name);
      const observed = (obj.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0;
      return observed >= generation && isReady(obj);
    },
    30_000,
    100,
  );
}
