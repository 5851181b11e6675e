/**
 * The metrics of sharding, on the controller's registry (../runtime/metrics): each member's share, and
 * the ring leader's moves under the names of timebertt's sharder.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** What the ring's leader counts (sharderMetrics). */
export interface SharderMetrics {
  assigned(type: { apiVersion: string; plural: string }, moved: boolean): void;
  drained(type: { apiVersion: string; plural: string }): void;
  calculated(): void;
  members(counts: Record<string, number>): void;
}

/**
 * A member of a sharded controller (controller/sharding): the resources it holds, by kind, and on the
 * ranges read path the ring's generation it works in and how many hash ranges it holds.
 */
export function watchShare(
  registry: Registry,
  ring: string,
  member: string,
  held: () => { kind: string; resources: number }[],
  share?: () => { generation: number; ranges: number },
): void {
  const registers = [registry];
  const base = { controllerring: ring, shard: member };
  new Gauge({
    name: 'reconstruct_shard_resources',
    help: 'Resources of each kind this member of a sharded controller holds (in its caches, reconciled by it).',
    labelNames: ['controllerring', 'shard', 'kind'],
    registers,
    collect() {
      for (const { kind, resources } of held()) this.set({ ...base, kind }, resources);
    },
  });
  if (!share) return;
  new Gauge({
    name: 'reconstruct_shard_ranges',
    help: "Hash ranges of the API server's sharded list and watch this member holds.",
    labelNames: ['controllerring', 'shard'],
    registers,
    collect() {
      this.set(base, share().ranges);
    },
  });
  new Gauge({
    name: 'reconstruct_shard_ring_generation',
    help: "The generation of the ring's record this member works in.",
    labelNames: ['controllerring', 'shard'],
    registers,
    collect() {
      this.set(base, share().generation);
    },
  });
}

/**
 * The ring's leader (controller/sharding/sharder): timebertt's sharder families, per ring and
 * GroupResource: assignments (a resource labelled for a member), movements (assigned away from a member
 * gone), drains (a member asked to let go), ring calculations (the ready members changed); and the
 * members by state.
 */
export function sharderMetrics(registry: Registry, ring: string): SharderMetrics {
  const registers = [registry];
  const per = ['controllerring', 'group', 'resource'] as const;
  const assignments = new Counter({
    name: 'controller_sharding_assignments_total',
    help: 'Total number of shard assignments by the sharder per ControllerRing and GroupResource.',
    labelNames: per,
    registers,
  });
  const movements = new Counter({
    name: 'controller_sharding_movements_total',
    help: 'Total number of shard movements (away from an unavailable member) per ControllerRing and GroupResource.',
    labelNames: per,
    registers,
  });
  const drains = new Counter({
    name: 'controller_sharding_drains_total',
    help: 'Total number of shard drains (a member asked to let go) per ControllerRing and GroupResource.',
    labelNames: per,
    registers,
  });
  const calculations = new Counter({
    name: 'controller_sharding_ring_calculations_total',
    help: 'Total number of hash ring calculations (the ready members changed) per ControllerRing.',
    labelNames: ['controllerring'],
    registers,
  });
  const members = new Gauge({
    name: 'reconstruct_shard_members',
    help: "Members of a sharded controller's ring, by the state of their Lease (ready, expired, dead, orphaned).",
    labelNames: ['controllerring', 'state'],
    registers,
  });
  const labels = (type: { apiVersion: string; plural: string }) => ({
    controllerring: ring,
    group: type.apiVersion.includes('/') ? type.apiVersion.split('/')[0] : '',
    resource: type.plural,
  });
  return {
    assigned: (type, moved) => {
      assignments.inc(labels(type));
      if (moved) movements.inc(labels(type));
    },
    drained: (type) => drains.inc(labels(type)),
    calculated: () => calculations.inc({ controllerring: ring }),
    members: (counts) => {
      for (const state of ['ready', 'expired', 'dead', 'orphaned'])
        members.set({ controllerring: ring, state }, counts[state] ?? 0);
    },
  };
}
