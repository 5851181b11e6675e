/**
 * Who wrote what, and when each controller handed its resources over, from the controllers' debug logs
 * (`api write` lines, and what a member says when it lets go, acknowledges a ring or stops): what the
 * sharding fault tests check "never two writers at once" with.
 */
import type { RunningController } from '../support/controller';

/** A write a controller made, from its debug log: to which resource (by namespace/name), by whom, when. */
export interface Write {
  readonly by: string;
  readonly resource: string;
  /** deployments, services or status. */
  readonly what: string;
  /**
   * When it was sent: a write in flight when its member handed over (a member that lost its Lease under
   * load, its request answered a moment later) was made while the resource was its own.
   */
  readonly at: number;
}

/**
 * The writes of a controller to Memcached resources' children and status, from its 'api write' lines.
 * Label patches of the resources themselves (the ring leader's assignments, a member letting go) are not
 * a reconcile's writes and are left out.
 */
export function writesOf(c: RunningController, by: string): Write[] {
  const out: Write[] = [];
  for (const line of c.logs) {
    if (!line.includes('"api write"')) continue;
    const { path, time, code, ms } = JSON.parse(line) as {
      path: string;
      time: string;
      code: number;
      ms?: number;
    };
    // Only writes the API server took: a request that failed (code 0: no answer, as through a partition) wrote nothing.
    if (code < 200 || code >= 300) continue;
    const m =
      /\/namespaces\/([^/]+)\/(deployments|services)\/([^/?]+)$/.exec(path) ??
      /\/namespaces\/([^/]+)\/memcacheds\/([^/?]+)\/(status)$/.exec(path);
    if (!m) continue;
    const [namespace, what, name] =
      m[2] === 'deployments' || m[2] === 'services' ? [m[1], m[2], m[3]] : [m[1], m[3], m[2]];
    // The line is written when the answer came, `ms` after the request went.
    out.push({ by, resource: `${namespace}/${name}`, what, at: Date.parse(time) - (ms ?? 0) });
  }
  return out;
}

/**
 * When a member said it was done with what it held: each resource it let go of (labels read path), each
 * generation of the ring it acknowledged (ranges read path: it has narrowed and its reconciles in flight
 * have finished), and when it stopped.
 */
export interface HandedOver {
  readonly by: string;
  /** namespace/name, for a resource let go of; none: all it let go of (an acknowledgement, a stop). */
  readonly resource?: string;
  readonly at: number;
}

export function handoversOf(c: RunningController, by: string, stoppedAt?: number): HandedOver[] {
  const out: HandedOver[] = stoppedAt !== undefined ? [{ by, at: stoppedAt }] : [];
  for (const line of c.logs) {
    if (line.includes('"lost the lease"') && line.includes(`"identity":"${by}"`)) {
      // It stopped working: it lost its Lease (a renewal late under load) and abandoned its reconciles.
      out.push({ by, at: Date.parse((JSON.parse(line) as { time: string }).time) });
    } else if (line.includes('"let go of a resource for another member"')) {
      const { namespace, name, time } = JSON.parse(line) as { namespace: string; name: string; time: string };
      out.push({ by, resource: `${namespace}/${name}`, at: Date.parse(time) });
    } else if (line.includes('"api write"') && line.includes('"fieldManager":"reconstruct-shard-member"')) {
      out.push({ by, at: Date.parse((JSON.parse(line) as { time: string }).time) });
    }
  }
  return out;
}

/**
 * Resources written by one member and then by another without the first having handed them over in
 * between (let go of it, acknowledged a new ring, or stopped): two writers at once. One line each, with
 * how far apart the writes were.
 */
export function twoWriters(writes: readonly Write[], handovers: readonly HandedOver[]): string[] {
  const byResource = new Map<string, Write[]>();
  for (const w of writes) byResource.set(w.resource, [...(byResource.get(w.resource) ?? []), w]);
  const out: string[] = [];
  for (const [resource, list] of byResource) {
    list.sort((a, b) => a.at - b.at);
    for (let i = 1; i < list.length; i++) {
      const [before, after] = [list[i - 1], list[i]];
      if (before.by === after.by) continue;
      const handed = handovers.some(
        (h) =>
          h.by === before.by &&
          (h.resource === undefined || h.resource === resource) &&
          h.at >= before.at &&
          h.at <= after.at,
      );
      if (!handed) out.push(`${resource}: ${before.by} then ${after.by}, ${after.at - before.at} ms apart`);
    }
  }
  return out;
}

/** Resources written by two members less than a second apart: how fast handoffs are (not a fault). */
export function withinASecond(writes: readonly Write[]): number {
  const byResource = new Map<string, Write[]>();
  for (const w of writes) byResource.set(w.resource, [...(byResource.get(w.resource) ?? []), w]);
  let n = 0;
  for (const list of byResource.values()) {
    list.sort((a, b) => a.at - b.at);
    if (list.some((w, i) => i > 0 && w.by !== list[i - 1].by && w.at - list[i - 1].at < 1000)) n++;
  }
  return n;
}
