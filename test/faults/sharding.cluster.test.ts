/**
 * Handoff between the members of a sharded controller under faults, on both read paths: a member cut off
 * from the API server (a partition through the fault proxy: it steps back, and joins again once healed),
 * and a scale from 3 to 5 to 2 members (joins,
 * SIGTERMs, a SIGKILL) during a burst of changes. Over the whole run, read from every member's log of its
 * writes: no resource is written by a member before the member that wrote it last has handed it over (let go
 * of it, acknowledged a ring without it, or stopped), and the members' writes
 * for one change of every resource stay within 1.2x what a single controller writes for it. Every change
 * ends up applied.
 */
import { HashRing } from '../../controller/sharding/ring';
import { counter, type RunningController, startController } from '../support/controller';
import { controllerKubeconfig } from '../support/controller-role';
import {
  applyList,
  createNamespace,
  deleteNamespace,
  getJson,
  uniqueName,
  waitFor,
} from '../support/kubectl';
import { memberOf, startMember } from '../controller/sharding/member-process';
import { apiServer, kubeconfigThrough, startProxy, type RunningProxy } from './proxy';
import { record } from './support';
import { handoversOf, twoWriters, withinASecond, writesOf, type Write } from './writers';
import { sleep } from '../../controller/abortable';

jest.setTimeout(420_000);

const SPACES = 10;
const PER_SPACE = 10;
/**
 * 10 s, as the other sharding suites: a member gives up its Lease when it cannot renew within two thirds of
 * it, and beside two CPU burners the API server took up to 4.7 s for a lease write (6 s: members gave up
 * Leases that were still theirs).
 */
const LEASE_SECONDS = 10;

interface Where {
  namespace: string;
  name: string;
}
interface Memcached {
  metadata: Where & { uid: string };
}

/** One controller's writes for one change of every resource, and what they wrote. */
let baseline: { writes: number; children: number; kinds: string } | undefined;

describe.each(['on', 'off'] as const)('sharded watch %s', (shardedWatch) => {
  let home: string;
  let ring: string;
  const spaces: string[] = [];
  /** Every controller started, live or not, with its member name: their logs are the record. */
  const started: { c: RunningController; name: string; stoppedAt?: number }[] = [];
  const live: { c: RunningController; name: string }[] = [];
  let proxy: RunningProxy;
  let port: number;

  const every = (): Where[] =>
    spaces.flatMap((namespace) =>
      Array.from({ length: PER_SPACE }, (_, j) => ({ namespace, name: `m${j}` })),
    );
  const sizes = new Map<string, number>();

  function resize(which: Where[], size: (w: Where) => number): void {
    for (const w of which) sizes.set(`${w.namespace}/${w.name}`, size(w));
    applyList(
      which.map((w) => ({
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { ...w, labels: { 'reconstruct.test/ring': ring } },
        spec: { size: sizes.get(`${w.namespace}/${w.name}`) },
      })),
    );
  }

  /** Resources (of `only`, by default all) whose Deployment does not have the size last asked for. */
  const behind = (only?: readonly Where[]): string[] => {
    const keys = only ? new Set(only.map((w) => `${w.namespace}/${w.name}`)) : undefined;
    const replicas = new Map(
      getJson<{ items: { metadata: Where; spec: { replicas: number } }[] }>([
        'deployments',
        '-A',
        '-l',
        'app.kubernetes.io/managed-by=reconstruct',
      ]).items.map((d) => [`${d.metadata.namespace}/${d.metadata.name}`, d.spec.replicas]),
    );
    return [...sizes]
      .filter(([k, size]) => (!keys || keys.has(k)) && replicas.get(k) !== size)
      .map(([k]) => k);
  };
  const caughtUp = (what: string, timeoutMs: number, only?: readonly Where[]) =>
    waitFor(() => behind(only).length === 0, { what, timeoutMs });
  /** The burst changes the first half of the namespaces; the rest tell when every member acts. */
  const bursting = () => every().filter((w) => spaces.indexOf(w.namespace) < SPACES / 2);
  const quiet = () => every().filter((w) => spaces.indexOf(w.namespace) >= SPACES / 2);

  const memcacheds = () =>
    getJson<{ items: Memcached[] }>(['memcached', '-A', '-l', `reconstruct.test/ring=${ring}`]).items;

  async function join(kubeconfig?: string) {
    // Only this run's namespaces: not the resources the other read path's run leaves behind (being deleted).
    const c = await startMember(ring, home, shardedWatch, LEASE_SECONDS, kubeconfig, [
      '--namespaces',
      spaces.join(','),
    ]);
    const member = { c, name: memberOf(c) };
    started.push(member);
    live.push(member);
    return member;
  }
  /** Takes a member out of the live ones: it wrote nothing after `stoppedAt`. */
  const leave = (member: { c: RunningController; name: string; stoppedAt?: number }, stoppedAt: number) => {
    member.stoppedAt = stoppedAt;
    live.splice(live.indexOf(member), 1);
  };
  /**
   * When a member stopped on SIGTERM handed its share over: it released its Lease (its reconciles had
   * finished), or lost it while it stopped (taken over by the ring's leader: it stopped working then).
   */
  const released = (member: { c: RunningController; name: string }): number => {
    // The last: a member that stepped back and joined again before its stop said "lost the lease" then.
    const line = [...member.c.logs]
      .reverse()
      .find(
        (l) =>
          (l.includes('"released the lease"') || l.includes('"lost the lease"')) &&
          l.includes(`"identity":"${member.name}"`),
      );
    if (!line) throw new Error(`${member.name} stopped on SIGTERM without releasing its Lease`);
    return Date.parse((JSON.parse(line) as { time: string }).time);
  };

  /**
   * Waits until the live members' shares are all held: a change to each of `which` (by default every
   * resource) is acted on.
   */
  async function settle(what: string, timeoutMs = 60_000, which = every()): Promise<number> {
    const t = Date.now();
    const size = 1 + (sizes.size > 0 ? Math.max(...sizes.values()) : 0);
    resize(which, () => size);
    await caughtUp(what, timeoutMs, which);
    return (Date.now() - t) / 1000;
  }

  const allWrites = () => started.flatMap(({ c, name }) => writesOf(c, name));
  /** Writes since `since` (ms), counted by what they wrote. */
  const breakdown = (writes: readonly Write[], since: number) => {
    const counts: Record<string, number> = {};
    for (const w of writes) if (w.at >= since) counts[w.what] = (counts[w.what] ?? 0) + 1;
    return JSON.stringify(counts);
  };

  /** How many of `writes` were to children (Deployments, Services). */
  const children = (writes: readonly Write[]) =>
    writes.filter((w) => w.what === 'deployments' || w.what === 'services').length;

  /** Waits until `count` (of writes) has not moved for 3 s: the Deployments' progress no longer wakes anything. */
  async function quietDown(count: () => number): Promise<number> {
    let last = count();
    let since = Date.now();
    const deadline = Date.now() + 60_000;
    while (Date.now() - since < 3000 && Date.now() < deadline) {
      await sleep(500);
      const now = count();
      if (now !== last) [last, since] = [now, Date.now()];
    }
    return last;
  }

  beforeAll(async () => {
    home = createNamespace('shard-faults');
    ring = uniqueName('faults');
    for (let i = 0; i < SPACES; i++) spaces.push(createNamespace(`sf-${i}`));
    proxy = await startProxy(apiServer());
    port = proxy.port;
  });
  afterAll(async () => {
    for (const { c } of started) await c.stop('SIGKILL');
    await proxy?.close();
    for (const ns of spaces) deleteNamespace(ns);
    if (home) deleteNamespace(home);
  });

  it('writes for one change of every resource within 1.2x of a single controller', async () => {
    // A single controller first (once, in the first read path's run): its writes for one change of every
    // resource are the baseline.
    if (!baseline) {
      const single = await startController(['--lease-namespace', home]);
      resize(every(), () => 1);
      await caughtUp('a single controller to apply every resource', 90_000);
      const singleCount = () => writesOf(single, 'single').length;
      const from = await quietDown(singleCount);
      const since = Date.now();
      resize(every(), () => 2);
      await caughtUp('a single controller to apply the change', 60_000);
      baseline = {
        writes: (await quietDown(singleCount)) - from,
        children: children(writesOf(single, 'single').filter((w) => w.at >= since)),
        kinds: breakdown(writesOf(single, 'single'), since),
      };
      expect(await single.stop('SIGTERM')).toBe(0);
    }
    const singleWrites = baseline.writes;

    await join(kubeconfigThrough(port, controllerKubeconfig({ sharding: true })));
    await join();
    await join();
    await settle('three members to act on every resource', 90_000);
    const count = () => allWrites().length;
    const before = await quietDown(count);
    const since = Date.now();
    resize(every(), () => 5);
    await caughtUp('three members to apply the change', 60_000);
    const shardedWrites = (await quietDown(count)) - before;
    // Double work is a resource written by two members: each resource's writes for the change all come from
    // one. How many status writes a resource gets follows how its pods' events fall into reconciles (a busy
    // single controller folds more of them into one on a loaded machine: 315 against 397-414 on a quiet
    // one), so the 1.2x bound is on the writes the change itself asks for, its children's.
    const changed = allWrites().filter((w) => w.at >= since);
    const writers = new Map<string, Set<string>>();
    for (const w of changed) writers.set(w.resource, (writers.get(w.resource) ?? new Set()).add(w.by));
    const twice = [...writers].filter(([, by]) => by.size > 1).map(([resource]) => resource);
    record({
      fault: `sharded (${shardedWatch === 'on' ? 'ranges' : 'labels'} read path): one change of each of ${sizes.size} resources`,
      bound: "children's writes <= 1.2x a single controller's; each resource written by one member",
      recovery: `${shardedWrites} writes by 3 members (${breakdown(allWrites(), since)}), ${singleWrites} by one controller (${baseline.kinds})`,
      lostOrDuplicated: `${twice.length} resources written by two members`,
    });
    expect(singleWrites).toBeGreaterThanOrEqual(sizes.size);
    expect(twice).toEqual([]);
    expect(children(changed)).toBeLessThanOrEqual(1.2 * baseline.children);
  });

  it("acts on a partitioned member's share after its Lease runs out; the member steps back, and joins again once healed", async () => {
    const cut = live[0];
    const names = live.map((m) => m.name);
    const share = memcacheds()
      .filter((m) => new HashRing(names).memberFor(m.metadata.uid) === cut.name)
      .map((m) => ({ namespace: m.metadata.namespace, name: m.metadata.name }));
    expect(share.length).toBeGreaterThan(0);
    // It holds its share, until the partition.
    expect(
      counter(await cut.c.metrics(), 'reconstruct_shard_resources', (l) => l.includes('Memcached')),
    ).toBe(share.length);
    const t = Date.now();
    await proxy.partition();
    resize(share, () => 7);
    await waitFor(() => behind().length === 0, {
      what: "the partitioned member's share acted on by the others",
      timeoutMs: 60_000,
    });
    const seconds = (Date.now() - t) / 1000;
    // It steps back once it cannot renew within its renew deadline, and does not exit: it stands again.
    const said = (what: string) => cut.c.logs.some((l) => l.includes(`"${what}"`));
    await waitFor(() => said('stepped back from the ring: it lost its member Lease; it stands again'), {
      what: 'the cut-off member to step back',
      timeoutMs: 30_000,
    });
    expect(cut.c.process.exitCode).toBeNull();
    await proxy.heal();
    const healed = Date.now();
    await waitFor(() => said('joined the ring again'), {
      what: 'the member to join the ring again once healed',
      timeoutMs: 60_000,
    });
    const rejoined = (Date.now() - healed) / 1000;
    // Its share again: a change to every resource acted on, by whichever member holds it now.
    await settle('the ring with the member back', 60_000);
    record({
      fault: `sharded (${shardedWatch === 'on' ? 'ranges' : 'labels'}): a member partitioned from the API server`,
      bound: `its share acted on within lease (${LEASE_SECONDS} s) + 30 s; it steps back, and joins again once healed`,
      recovery: `${seconds.toFixed(1)} s for ${share.length} resources; back in the ring ${rejoined.toFixed(1)} s after the heal`,
      lostOrDuplicated: 'none',
    });
    // The lease, then the take-over, the moves and the reconciles, and the test's own apply of the change:
    // 13-15 s on a quiet machine, 27 s beside two CPU burners (a 6 s lease). Not waiting for the member's
    // Lease to be removed (a minute), nor never.
    expect(seconds).toBeLessThan(LEASE_SECONDS + 30);
  });

  it('scales from 3 to 5 to 2 members during a burst of changes: every change applied, never two writers', async () => {
    await settle('three members again'); // the partitioned one back among them
    const three = live.map((m) => m.name);
    let burst = true;
    const changes = (async () => {
      let n = 0;
      while (burst) {
        // Five resources at a time, each about once every two seconds.
        const some = bursting().filter((_, i) => (i + n) % 10 === 0);
        resize(some, () => 1 + ((n + 3) % 4));
        n++;
        await sleep(200);
      }
    })();
    const t0 = Date.now();
    let up: number, five: string[], down: number;
    try {
      await join();
      await join();
      up = await settle('five members to hold the ring', 60_000, quiet());
      five = live.map((m) => m.name);
      // Down to two: two SIGTERMs and a SIGKILL.
      const going = live.slice(0, 3);
      for (const m of going.slice(0, 2)) {
        expect(await m.c.stop('SIGTERM')).toBe(0);
        leave(m, released(m));
      }
      await going[2].c.stop('SIGKILL');
      leave(going[2], Date.now());
      down = await settle('two members to hold the ring', 60_000, quiet());
    } finally {
      // Also when a step fails: a burst left running would write into this run's namespaces while the next
      // read path's run goes on, and they are being deleted.
      burst = false;
      await changes.catch(() => undefined);
    }
    await caughtUp('every change of the burst', 60_000);
    const two = live.map((m) => m.name);
    // Resources moved, by the rings (ideal: the 2/5 the joining members take, then the 3/5 the leaving ones had).
    const all = memcacheds();
    const moved = (a: string[], b: string[]) =>
      all.filter(
        (m) => new HashRing(a).memberFor(m.metadata.uid) !== new HashRing(b).memberFor(m.metadata.uid),
      ).length;
    const conflicts = twoWriters(
      allWrites(),
      started.flatMap((m) => handoversOf(m.c, m.name, m.stoppedAt)),
    );
    record({
      fault: `sharded (${shardedWatch === 'on' ? 'ranges' : 'labels'}): 3 -> 5 -> 2 members during a burst`,
      bound: 'every change applied; no resource written by a member before the last one handed it over',
      recovery: `5 members held the ring ${up.toFixed(1)} s after the joins began (${((Date.now() - t0) / 1000).toFixed(0)} s in all), 2 members ${down.toFixed(1)} s after the stops; moved ${moved(three, five)} then ${moved(five, two)} of ${all.length} (ideal ${Math.round((all.length * 2) / 5)} then ${Math.round((all.length * 3) / 5)})`,
      lostOrDuplicated: `${conflicts.length} resources written by a member before the one that had it handed it over (${withinASecond(allWrites())} handed over within a second)`,
    });
    if (conflicts.length > 0) {
      // What the members involved said of their Leases and shares, to tell a fault from a test's blind spot.
      const involved = new Set(conflicts.flatMap((c) => /: (\S+) then (\S+),/.exec(c)!.slice(1, 3)));
      for (const m of started.filter((x) => involved.has(x.name)))
        console.log(
          `${m.name} (stopped ${m.stoppedAt ? new Date(m.stoppedAt).toISOString() : 'no'}):\n` +
            m.c.logs
              .filter((l) => /lease|shutting down|let go|became leader|joined the ring/.test(l))
              .filter((l) => !l.includes('"api write"'))
              .join('\n'),
        );
    }
    expect(conflicts).toEqual([]);
  });
});
