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

/** What a ring's members did as members, for a test that times out: the ring's lines, and every warning. */
const RING_WORDS =
  /ring|leader|lease|let go|label a resource|sharding pass|shutting down|stepped back|took over|renewed/i;

/** The last lines of each member's log that tell how its ring went: one block per member. */
export function ringStory(members: readonly RunningController[], last = 15): string {
  return members
    .map((m) => {
      const lines = m.logs.filter((l) => {
        const entry = parse(l);
        return entry && (entry.level === 'warn' || entry.level === 'error' || RING_WORDS.test(entry.msg));
      });
      return `${memberName(m)} (${lines.length} lines, the last ${last}):\n  ${lines.slice(-last).join('\n  ')}`;
    })
    .join('\n');
}

const parse = (line: string): { level?: string; msg: string } | undefined => {
  try {
    const entry = JSON.parse(line) as { level?: string; msg?: string };
    return { level: entry.level, msg: entry.msg ?? '' };
  } catch {
    return undefined;
  }
};

const memberName = (m: RunningController): string => {
  try {
    return memberOf(m);
  } catch {
    return `pid ${m.process.pid}`;
  }
};
