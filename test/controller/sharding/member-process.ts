/** A member of a ring as the sharding cluster tests start it: a controller process with --sharding. */
import { type RunningController, startController } from '../../support/controller';

/** Starts a member of `ring`, its Lease in `leaseNamespace`, reading its share by `sharded-watch`. */
export const startMember = (
  ring: string,
  leaseNamespace: string,
  shardedWatch: 'on' | 'off',
  leaseSeconds = 10,
  /** Another kubeconfig than the install's sharding rules (one through a fault proxy). */
  kubeconfig?: string,
  /** More arguments (--namespaces: only the test's resources, not those other tests leave behind). */
  extra: string[] = [],
): Promise<RunningController> =>
  startController([
    ...(kubeconfig ? ['--kubeconfig', kubeconfig] : []),
    ...extra,
    '--sharding',
    '--sharded-watch',
    shardedWatch,
    '--shard-ring',
    ring,
    '--lease-namespace',
    leaseNamespace,
    '--lease-duration',
    String(leaseSeconds),
    // A member cut off from the API server stops sooner (it cannot send its last events anyway).
    '--shutdown-timeout',
    '5',
  ]);

/** The member a controller is (the name of its Lease), from its log. */
export const memberOf = (c: RunningController): string =>
  (JSON.parse(c.logs.find((l) => l.includes('"a member of the ring"'))!) as { member: string }).member;
