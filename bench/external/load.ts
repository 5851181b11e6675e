/**
 * What the benchmark and the cluster test of external work measure while a controller's handlers are in
 * flight: how long its /healthz takes to answer, how long a read of a ZoneRecord as v1alpha1 takes (the API
 * server calls the controller's conversion webhook for it), and how long a change of a resource of another
 * kind (a Memcached's size) takes to reach its child (the Deployment's replicas, as a watch sees them).
 *
 * The probes are sent on a schedule, not one after the other's answer, so that a stalled controller shows
 * as the long answers it gives, not as fewer samples. The sampler's own event-loop delay is measured too:
 * when this process is late, its figures say more of it than of the controller.
 */
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { OBSERVE_INTERVAL_ANNOTATION, type ApiKind, type CustomResource } from '../../constructs/kit';
import { sleep } from '../../controller/abortable';
import type { KubeClient } from '../../controller/kube/client';
import { resourcePath } from '../../controller/kube/paths';
import type { Cluster } from '../controller/cluster';
import type { Observer } from '../controller/observer';
import { now, quantile } from '../controller/support';
import { PROVIDER_SECRET, zoneRecordKind, type ZoneRecordSpec } from './kinds';
import type { ProviderServer } from './provider-server';

/** The ZoneRecord as its deprecated version: reads of it go through the conversion webhook. */
export const ZONE_RECORD_V1ALPHA1: ApiKind = { ...zoneRecordKind, apiVersion: 'zones.example.com/v1alpha1' };
/** A probe not answered within this long counts as failed, and as this long. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * A ZoneRecord observed every 2 s: with a provider answering in 2 s, each has a handler in flight about
 * half the time, all through the window (at the kind's minute, 200 records created together would call in
 * waves, idle between them), and an outage is seen by all of them within seconds.
 */
export function zoneRecord(namespace: string, name: string): CustomResource<ZoneRecordSpec> {
  return {
    apiVersion: zoneRecordKind.apiVersion,
    kind: zoneRecordKind.kind,
    metadata: { name, namespace, annotations: { [OBSERVE_INTERVAL_ANNOTATION]: '2s' } },
    spec: { zone: 'bench.example.com', name, values: ['192.0.2.1'] },
  };
}

/** The Secret the handlers read: where the provider is, and its token. */
export function providerSecret(namespace: string, provider: ProviderServer, token: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: PROVIDER_SECRET, namespace },
    stringData: { endpoint: provider.endpoint, token },
  };
}

export interface LoadTargets {
  readonly client: KubeClient;
  readonly namespace: string;
  /** The controller's /healthz. */
  readonly healthUrl: string;
  /** A ZoneRecord that exists, to read next (the caller's round robin). */
  readonly readName: () => string | undefined;
  /** Writes the Memcached whose size is changed; `observer` watches its Deployment. */
  readonly cluster: Cluster;
  readonly observer: Observer;
  readonly memcached: string;
  /** Counted every 100 ms: handlers in flight at the provider. */
  readonly provider?: ProviderServer;
  /** An idle server (idleServer), probed as /healthz is: how long any answer takes on this machine now. */
  readonly idleUrl?: string;
}

/**
 * An HTTP server in a process of its own that does nothing but answer: the floor of a probe's time on a
 * busy machine (the scheduler's wait for a core, this process's own lateness), beside which /healthz is
 * judged. Resolves its URL and how to stop it.
 */
export function idleServer(): Promise<{ url: string; stop: () => void }> {
  const script = `require('node:http').createServer((q, s) => s.end('ok'))
    .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (chunk: Buffer) =>
      resolve({ url: `http://127.0.0.1:${chunk.toString().trim()}/`, stop: () => child.kill() }),
    );
  });
}

export interface LoadSchedule {
  readonly durationMs: number;
  /** @default 50 */
  readonly healthEveryMs?: number;
  /** @default 100 */
  readonly readEveryMs?: number;
  /** Between a change seen and the next one. @default 1000 */
  readonly changePauseMs?: number;
}

/** Milliseconds each probe took, and the probes that failed. */
export interface LoadSamples {
  readonly healthz: number[];
  /** The idle server's answers, probed on the same schedule (when there is one). */
  readonly idle: number[];
  readonly reads: number[];
  /** The same reads as v1, the stored version: the API server's part of a read, without the webhook. */
  readonly storedReads: number[];
  readonly changes: number[];
  readonly failures: string[];
  /** Handlers in flight at the provider, sampled every 100 ms. */
  readonly inFlight: number[];
  /** The sampler's own event-loop delay, p99, in ms. */
  samplerDelayP99Ms: number;
}

/** GET `url` on a connection of its own; resolves the status. */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)));
    req.on('error', reject);
  });
}

/** Runs `probe` every `everyMs` until `endAt`, each on its own; resolves once the last has answered. */
async function every(
  everyMs: number,
  endAt: number,
  probe: () => Promise<void>,
  out: number[],
  failures: string[],
  what: string,
): Promise<void> {
  const sent: Promise<void>[] = [];
  for (let next = now(); next < endAt; next += everyMs) {
    await sleep(Math.max(0, next - now()));
    const started = now();
    sent.push(
      probe().then(
        () => void out.push(now() - started),
        (err: unknown) => {
          out.push(Math.max(now() - started, PROBE_TIMEOUT_MS));
          failures.push(`${what}: ${String(err)}`);
        },
      ),
    );
  }
  await Promise.all(sent);
}

/** The Memcached's size toggled between 1 and 2, each change timed until its Deployment shows it. */
async function changes(t: LoadTargets, endAt: number, pauseMs: number, s: LoadSamples): Promise<void> {
  while (now() < endAt) {
    const want = t.observer.replicas.get(t.memcached) === 1 ? 2 : 1;
    const seen = t.observer.replicasBecome(t.memcached, want, PROBE_TIMEOUT_MS * 2);
    const started = now();
    await t.cluster.patchSize(t.memcached, want);
    if (await seen) s.changes.push(now() - started);
    else {
      s.changes.push(PROBE_TIMEOUT_MS * 2);
      s.failures.push(`Memcached ${t.memcached}: size ${want} not in its Deployment after 10 s`);
    }
    await sleep(pauseMs);
  }
}

/** Probes the controller for `durationMs` with the schedule given. */
export async function sampleLoad(t: LoadTargets, schedule: LoadSchedule): Promise<LoadSamples> {
  const { durationMs, healthEveryMs = 50, readEveryMs = 100, changePauseMs = 1000 } = schedule;
  const s: LoadSamples = {
    healthz: [],
    idle: [],
    reads: [],
    storedReads: [],
    changes: [],
    failures: [],
    inFlight: [],
    samplerDelayP99Ms: 0,
  };
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const counter = setInterval(() => t.provider && s.inFlight.push(t.provider.inFlightNow), 100);
  const endAt = now() + durationMs;
  const probe = (url: string) => async () => {
    const status = await getStatus(url);
    if (status !== 200) throw new Error(`status ${status}`);
  };
  const read = (version: ApiKind) => async () => {
    const name = t.readName();
    if (name === undefined) return;
    await t.client.request({
      method: 'GET',
      path: resourcePath(version, t.namespace, name),
      timeoutMs: PROBE_TIMEOUT_MS,
    });
  };
  try {
    await Promise.all([
      every(healthEveryMs, endAt, probe(t.healthUrl), s.healthz, s.failures, 'GET /healthz'),
      ...(t.idleUrl ? [every(healthEveryMs, endAt, probe(t.idleUrl), s.idle, s.failures, 'GET idle')] : []),
      every(readEveryMs, endAt, read(ZONE_RECORD_V1ALPHA1), s.reads, s.failures, 'GET zonerecord.v1alpha1'),
      every(readEveryMs, endAt, read(zoneRecordKind), s.storedReads, s.failures, 'GET zonerecord.v1'),
      changes(t, endAt, changePauseMs, s),
    ]);
  } finally {
    clearInterval(counter);
    delay.disable();
  }
  s.samplerDelayP99Ms = delay.percentile(99) / 1e6;
  return s;
}

/** `p50 / p99 / max` of a list of milliseconds, one decimal. */
export function spread(values: number[]): string {
  if (values.length === 0) return 'none';
  const ms = (q: number) => quantile(values, q).toFixed(1);
  return `${ms(0.5)} / ${ms(0.99)} / ${ms(1)}`;
}
