/**
 * What Linux's /proc says about processes: a process's memory, and where the machine's CPU went during a
 * run, by process. Without /proc (not Linux) the figures are zeros or absent.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** The processes worth naming; every other process counts as "other". */
const CONTROL_PLANE = ['etcd', 'kube-apiserver', 'kube-controller', 'kube-scheduler', 'kwok-controller'];
const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux architecture Node runs on

/** CPU seconds so far by process name, and "machine" for the whole machine. */
export type CpuSnapshot = Map<string, number>;
/** CPU seconds spent over an interval by process name, and "other" for the rest of the machine. */
export type CpuSpent = Record<string, number>;

/** VmRSS and VmHWM (the peak) of a process in KiB; undefined when it is gone or /proc is not there. */
export function memoryKiB(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in seconds; undefined when it is gone or /proc is not there. */
function processCpuSeconds(pid: number | string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** CPU seconds so far: each control-plane process, the controller, this benchmark, and the whole machine. */
export function cpuSnapshot(controllerPid?: number): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  let dirs: string[] = [];
  try {
    dirs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of dirs) {
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    const name = CONTROL_PLANE.find((c) => comm.startsWith(c));
    if (!name) continue;
    out.set(name, (out.get(name) ?? 0) + (processCpuSeconds(pid) ?? 0));
  }
  if (controllerPid !== undefined) out.set('controller', processCpuSeconds(controllerPid) ?? 0);
  out.set('benchmark', processCpuSeconds(process.pid) ?? 0);
  try {
    // The first line of /proc/stat: user nice system idle iowait irq softirq steal ...
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const t = ticks.map(Number);
    out.set('machine', (t[0] + t[1] + t[2] + t[5] + t[6] + t[7]) / CLOCK_TICKS);
  } catch {
    // no /proc/stat: no machine total
  }
  return out;
}

/** CPU seconds spent between two snapshots, per process, plus "other" (the machine minus the named ones). */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSpent {
  const spent: CpuSpent = {};
  let named = 0;
  for (const [name, seconds] of after) {
    if (name === 'machine') continue;
    spent[name] = seconds - (before.get(name) ?? 0);
    named += spent[name];
  }
  const machine = after.get('machine');
  if (machine !== undefined) spent.other = machine - (before.get('machine') ?? 0) - named;
  return spent;
}

/**
 * A process's main thread (a Node process's event loop) from the scheduler's view: seconds on a CPU and
 * seconds runnable but waiting for one (/proc/<pid>/schedstat); undefined when it is gone or there is no
 * /proc. Waiting that grows as fast as the CPU time says the machine, not the process, sets the pace.
 */
export function schedSeconds(pid: number): { cpu: number; waiting: number } | undefined {
  try {
    const [cpu, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return { cpu: cpu / 1e9, waiting: waiting / 1e9 };
  } catch {
    return undefined;
  }
}
