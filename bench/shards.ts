/**
 * `npm run bench:shards [-- --count N]`: one controller against a ring of three members, on both read paths
 * (the API server's sharded watch, and the leader's labels), over N Memcached (default 3,000, size 0: the
 * controllers' work, not pods) in one namespace of the local control plane, one configuration after the
 * other in the same run. For each: the time from the first create to the last Deployment, and per
 * process its peak and steady RSS, CPU and API requests. For the rings, then: a member SIGKILLed, and the
 * time until the others hold its share; two members joining (3 -> 5) and three leaving (5 -> 2: two
 * SIGTERMs and a SIGKILL), the resources moved against the ideal and the time until every live member holds
 * what the ring gives it. That no resource is written by two members at once is test/faults/sharding.
 */
import { parseArgs } from 'node:util';
import { sleep } from '../controller/abortable';
import { loadClient } from '../controller/kube/client';
import { HashRing } from '../controller/sharding/ring';
import { Cluster } from './controller/cluster';
import { ControllerProcess, removeControllerLogs } from './controller/controller-process';
import type { ControllerUnderTest } from './controller/controller-under-test';
import { Observer } from './controller/observer';
import { cpuSnapshot, cpuSpent } from './controller/proc';
import { type Workload, createAll, resourceNames } from './controller/phases/workload';
import { reconstruct } from './controller/reconstruct';
import { log, now, until } from './controller/support';

type Config = 'one controller' | 'ranges' | 'labels';

interface Member {
  readonly p: ControllerProcess;
  readonly name: string;
}

interface Row {
  config: Config;
  childrenSeconds: number;
  /** CPU seconds of kube-apiserver and etcd from the first create to the last Deployment. */
  apiServerCpu: number;
  etcdCpu: number;
  processes: {
    peakMiB: number;
    steadyMiB: number;
    /** RSS when it answered ready, before any resource. */
    readyMiB: number;
    /** V8 heap in use at the steady point. */
    heapMiB: number;
    cpuSeconds: number;
    requests: number;
    holds?: number;
  }[];
  kill?: { share: number; seconds: number };
  up?: { moved: number; ideal: number; seconds: number };
  down?: { moved: number; ideal: number; seconds: number };
}

const LEASE_SECONDS = 10;
const WORKERS = 4;

/** The controller under test with more arguments (a ring's). */
const withArgs = (extra: string[]): ControllerUnderTest => ({
  ...reconstruct,
  async launch(options) {
    const launch = await reconstruct.launch(options);
    return { ...launch, args: [...launch.args, ...extra] };
  },
});

const memberName = (p: ControllerProcess): string => {
  const line = p.logs().find((l) => l.includes('"a member of the ring"'));
  return line ? (JSON.parse(line) as { member: string }).member : '';
};

/** The Memcached a member's caches hold, from its metrics. */
const holds = async (p: ControllerProcess): Promise<number> =>
  (await p.metrics()).sum('reconstruct_shard_resources', (l) => l.kind === 'Memcached');

/** Waits until every live member holds exactly what the ring of the live members gives it; seconds. */
async function settled(members: Member[], uids: string[]): Promise<number> {
  // Three minutes, more past 3,000 resources (the labels path relabels each one it moves).
  const timeoutMs = Math.max(180_000, uids.length * 60);
  const t = now();
  const ring = new HashRing(members.map((m) => m.name));
  const want = new Map<string, number>();
  for (const uid of uids) want.set(ring.memberFor(uid)!, (want.get(ring.memberFor(uid)!) ?? 0) + 1);
  const ok = await until(
    async () => {
      for (const m of members) if ((await holds(m.p)) !== (want.get(m.name) ?? 0)) return false;
      return true;
    },
    timeoutMs,
    250,
  );
  if (!ok) throw new Error(`the members did not settle within ${timeoutMs / 1000} s`);
  return (now() - t) / 1000;
}

const moved = (uids: string[], a: string[], b: string[]) =>
  uids.filter((u) => new HashRing(a).memberFor(u) !== new HashRing(b).memberFor(u)).length;

async function run(config: Config, count: number): Promise<Row> {
  const client = loadClient({});
  const namespace = `bench-shards-${config.replace(/ /g, '-')}-${Date.now().toString(36)}`;
  const cluster = new Cluster(client, namespace);
  await cluster.createNamespace();
  const observer = new Observer(client, namespace, reconstruct.milestones);
  await observer.start();
  const ring = `bench-${Date.now().toString(36)}`;
  const target =
    config === 'one controller'
      ? reconstruct
      : withArgs([
          '--sharding',
          '--sharded-watch',
          config === 'ranges' ? 'on' : 'off',
          '--shard-ring',
          ring,
          '--lease-namespace',
          namespace,
          '--lease-duration',
          String(LEASE_SECONDS),
        ]);
  const options = { namespace, workers: WORKERS };
  const start = async (): Promise<Member> => {
    const p = await ControllerProcess.start(target, options);
    return { p, name: memberName(p) };
  };
  const members: Member[] = [];
  for (let i = 0; i < (config === 'one controller' ? 1 : 3); i++) members.push(await start());
  const everyone = [...members];
  try {
    log(`${config}: creating ${count} Memcached`);
    const names = resourceNames(count);
    const w: Workload = { cluster, observer, names };
    const t0 = now();
    const cpu0 = cpuSnapshot();
    await createAll(w, { concurrency: 20, size: 0 });
    const limitMs = Math.max(600_000, count * 120);
    const applied = await until(() => observer.deploymentSeen.size >= count, limitMs, 250);
    if (!applied) throw new Error(`${config}: not every Deployment within ${limitMs / 1000} s`);
    const childrenSeconds = (now() - t0) / 1000;
    const controlPlane = cpuSpent(cpu0, cpuSnapshot());
    await Promise.all(members.map((m) => m.p.settle(5000, 120_000)));
    await sleep(10_000);
    const processes = await Promise.all(
      members.map(async (m) => {
        const snapshot = await m.p.metrics();
        return {
          peakMiB: m.p.peakRssKiB / 1024,
          steadyMiB: m.p.rssKiB / 1024,
          readyMiB: m.p.readyRssKiB / 1024,
          heapMiB: (snapshot.heapMB().used * 1e6) / 2 ** 20,
          cpuSeconds: snapshot.cpuSeconds(),
          requests: snapshot.requests(),
          ...(config === 'one controller' ? {} : { holds: await holds(m.p) }),
        };
      }),
    );
    const row: Row = {
      config,
      childrenSeconds,
      apiServerCpu: controlPlane['kube-apiserver'] ?? 0,
      etcdCpu: controlPlane.etcd ?? 0,
      processes,
    };
    if (config === 'one controller') return row;

    const uids = names.map((n) => observer.uids.get(n)!);
    // A member SIGKILLed (not the ring's leader): until the others hold its share.
    const victim = members.find((m) => !m.p.logs().some((l) => l.includes('"became leader"')))!;
    const share = uids.filter(
      (u) => new HashRing(members.map((m) => m.name)).memberFor(u) === victim.name,
    ).length;
    victim.p.proc.kill('SIGKILL');
    await victim.p.stop();
    members.splice(members.indexOf(victim), 1);
    row.kill = { share, seconds: await settled(members, uids) };
    log(
      `${config}: a SIGKILLed member's ${share} resources held by the others after ${row.kill.seconds.toFixed(1)} s`,
    );

    // 2 -> 5: three join (back to three, then the two the issue names).
    const two = members.map((m) => m.name);
    const joining = now();
    for (let i = 0; i < 3; i++) members.push(await start());
    everyone.push(...members.slice(-3));
    const five = members.map((m) => m.name);
    await settled(members, uids);
    // From the first start: a member starts (its caches fill) before it takes a share.
    row.up = {
      moved: moved(uids, two, five),
      ideal: Math.round((count * 3) / 5),
      seconds: (now() - joining) / 1000,
    };
    // 5 -> 2: two SIGTERMs and a SIGKILL, the leader kept.
    const going = members.filter((m) => !m.p.logs().some((l) => l.includes('"became leader"'))).slice(0, 3);
    await going[0].p.stop();
    await going[1].p.stop();
    going[2].p.proc.kill('SIGKILL');
    await going[2].p.stop();
    for (const m of going) members.splice(members.indexOf(m), 1);
    row.down = {
      moved: moved(
        uids,
        five,
        members.map((m) => m.name),
      ),
      ideal: Math.round((count * 3) / 5),
      seconds: await settled(members, uids),
    };
    return row;
  } finally {
    await Promise.all(everyone.map((m) => m.p.stop()));
    await observer.stop();
    // Gone before the next configuration starts: at 10,000 resources the garbage collector's deletion of a
    // namespace's children kept kube-controller-manager at a full core for over 15 minutes, into the next
    // configuration's figures. The bench deletes the collections itself and waits.
    const t = now();
    await cluster.cleanUp();
    log(`${config}: namespace removed in ${((now() - t) / 1000).toFixed(0)} s`);
  }
}

function report(rows: Row[]): string {
  const single = rows.find((r) => r.config === 'one controller');
  const lines = [
    '| configuration | first create -> last Deployment | kube-apiserver / etcd CPU (s) | per process: peak / steady RSS (MiB), RSS at ready, V8 heap used (MiB), CPU (s), API requests, resources held |',
    '|---|---|---|---|',
  ];
  for (const r of rows) {
    const per = r.processes
      .map(
        (p) =>
          `${p.peakMiB.toFixed(0)} / ${p.steadyMiB.toFixed(0)}, ${p.readyMiB.toFixed(0)}, ${p.heapMiB.toFixed(0)}, ${p.cpuSeconds.toFixed(1)}, ${p.requests}${p.holds !== undefined ? `, ${p.holds}` : ''}`,
      )
      .join('; ');
    lines.push(
      `| ${r.config} | ${r.childrenSeconds.toFixed(1)} s | ${r.apiServerCpu.toFixed(1)} / ${r.etcdCpu.toFixed(1)} | ${per} |`,
    );
  }
  if (single) {
    const one = single.processes[0];
    const above = (p: Row['processes'][number]) => p.steadyMiB - p.readyMiB;
    for (const r of rows.filter((x) => x !== single)) {
      const worst = r.processes.reduce((a, b) => (b.steadyMiB > a.steadyMiB ? b : a));
      const most = Math.max(...r.processes.map(above));
      lines.push(
        ``,
        `${r.config}: the largest member's steady RSS is ${(worst.steadyMiB / one.steadyMiB).toFixed(2)}x one controller's;` +
          ` what the resources add to RSS (steady - at ready) ${most.toFixed(0)} MiB at most against ${above(one).toFixed(0)} MiB (${(most / above(one)).toFixed(2)}x);` +
          ` V8 heap ${Math.max(...r.processes.map((p) => p.heapMiB)).toFixed(0)} against ${one.heapMiB.toFixed(0)} MiB`,
      );
    }
  }
  for (const r of rows.filter((x) => x.kill)) {
    lines.push(
      ``,
      `${r.config}: a SIGKILLed member's ${r.kill!.share} resources held by the others after ${r.kill!.seconds.toFixed(1)} s (lease ${LEASE_SECONDS} s);` +
        ` 2 -> 5 members: ${r.up!.moved} moved (ideal ${r.up!.ideal}), settled in ${r.up!.seconds.toFixed(1)} s;` +
        ` 5 -> 2: ${r.down!.moved} moved (ideal ${r.down!.ideal}), settled in ${r.down!.seconds.toFixed(1)} s`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string' } } });
  const count = Number(values.count ?? process.env.RECONSTRUCT_BENCH_COUNT ?? 3000);
  reconstruct.check();
  const rows: Row[] = [];
  for (const config of ['one controller', 'ranges', 'labels'] as const) rows.push(await run(config, count));
  process.stdout.write(report(rows));
  removeControllerLogs();
}

main().catch((err: Error) => {
  process.stderr.write(`bench:shards: ${err.message}\n`);
  process.exit(1);
});
