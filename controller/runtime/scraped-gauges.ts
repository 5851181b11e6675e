/**
 * The gauges read at each scrape rather than kept up to date: the work queue's depth and work in
 * progress (client-go's workqueue_* names), where each kind's rollout stands, and the connections to the
 * API server with the requests and watches they carry. Registered by ./metrics.
 */
import { Gauge, type Registry } from 'prom-client';
import type { ConnectionStats } from '../kube/http2';
import type { WorkQueue } from './queue';

/** A kind's resources by where they stand in its rollout (docs/OPERATING.md). */
export interface RolloutCounts {
  kind: string;
  pending: number;
  moving: number;
  failed: number;
  done: number;
}

/** workqueue_depth, workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds. */
export function queueGauges(registry: Registry, name: string, queue: WorkQueue): void {
  const registers = [registry];
  const labels = { name };
  new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name'],
    registers,
    collect() {
      this.set(labels, queue.length);
    },
  });
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    labelNames: ['name'],
    registers,
    collect() {
      this.set(labels, queue.inProgress().unfinishedSeconds);
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name'],
    registers,
    collect() {
      this.set(labels, queue.inProgress().longestSeconds);
    },
  });
}

/** `reconstruct_rollout_resources{kind, state}`, state one of pending, moving, failed, done. */
export function rolloutGauges(registry: Registry, counts: () => RolloutCounts[]): void {
  new Gauge({
    name: 'reconstruct_rollout_resources',
    help: "Resources of a kind that declares a revision, by where they stand in its rollout: pending (an older revision), moving (moved, not Ready again yet), failed (moved, not Ready past the deadline), done (the kind's revision).",
    labelNames: ['kind', 'state'],
    registers: [registry],
    collect() {
      for (const { kind, ...states } of counts()) {
        for (const [state, n] of Object.entries(states)) this.set({ kind, state }, n);
      }
    },
  });
}

/** A kind's external handlers: running, and waiting for a slot of its concurrency. */
export interface ExternalCounts {
  readonly kind: string;
  readonly running: number;
  readonly waiting: number;
}

/** `reconstruct_external_handlers{kind, state}`, state running or waiting. */
export function externalGauges(registry: Registry, counts: () => ExternalCounts[]): void {
  new Gauge({
    name: 'reconstruct_external_handlers',
    help: "External handlers (observe, apply, delete) of a kind with work outside Kubernetes: running, or waiting for a slot of the kind's concurrency.",
    labelNames: ['kind', 'state'],
    registers: [registry],
    collect() {
      for (const { kind, running, waiting } of counts()) {
        this.set({ kind, state: 'running' }, running);
        this.set({ kind, state: 'waiting' }, waiting);
      }
    },
  });
}

/**
 * `reconstruct_api_connections{protocol}` and `reconstruct_api_streams{protocol}`: the connections open to
 * the API server and the requests and watches open on them. Over HTTP/2 one connection carries up to the
 * server's SETTINGS_MAX_CONCURRENT_STREAMS (100 on kube-apiserver), a second opens past that.
 */
export function connectionGauges(registry: Registry, connections: () => ConnectionStats[]): void {
  const byProtocol = (pick: (c: ConnectionStats) => number) => {
    const sums = { h2: 0, 'http/1.1': 0 };
    for (const c of connections()) sums[c.protocol] += pick(c);
    return Object.entries(sums);
  };
  new Gauge({
    name: 'reconstruct_api_connections',
    help: 'Connections open to the API server, by protocol (h2, http/1.1).',
    labelNames: ['protocol'],
    registers: [registry],
    collect() {
      for (const [protocol, n] of byProtocol(() => 1)) this.set({ protocol }, n);
    },
  });
  new Gauge({
    name: 'reconstruct_api_streams',
    help: 'Requests and watches open on the connections to the API server, by protocol (over HTTP/2 each connection carries at most the server SETTINGS_MAX_CONCURRENT_STREAMS).',
    labelNames: ['protocol'],
    registers: [registry],
    collect() {
      for (const [protocol, n] of byProtocol((c) => c.streams)) this.set({ protocol }, n);
    },
  });
}
