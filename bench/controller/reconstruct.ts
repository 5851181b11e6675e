/**
 * The reconstruct controller as the controller under test: `node dist/cli/main.js controller`, started the
 * way a user runs it, with the NODE_OPTIONS of the install manifest and JSON logs (or another build's CLI:
 * BENCH_CONTROLLER_CLI).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROLLER_NODE_OPTIONS } from '../../controller/install/install';
import { freePort } from '../../controller/runtime/server';
import type { ControllerUnderTest } from './controller-under-test';

/**
 * This build's CLI; BENCH_CONTROLLER_CLI names another build's `dist/cli/main.js` (an earlier release, for
 * the CPU budget's table per release in docs/BENCHMARKS.md), measured by this build's harness.
 */
const CLI = process.env.BENCH_CONTROLLER_CLI ?? join(__dirname, '../../cli/main.js');
/** The kinds module of `bench:peer --same-work` (peer-work-kind.ts), as compiled beside this file. */
const PEER_WORK_KINDS = join(__dirname, 'peer-work-kind.js');

/**
 * The controller with its built-in kinds, or, with `peerWork`, with a Memcached that makes the Deployment
 * alone (the Go peer's work; peer-work-kind.ts); with `http1`, speaking HTTP/1.1 (DISABLE_HTTP2).
 */
export function reconstructUnderTest(peerWork = false, http1 = false): ControllerUnderTest {
  const kindArgs = peerWork ? ['--no-builtin-kinds', '--kinds', PEER_WORK_KINDS] : [];
  return {
    name: `reconstruct${peerWork ? " (the peer's work)" : ''}${http1 ? ' over HTTP/1.1' : ''}`,
    about: `controller NODE_OPTIONS=${CONTROLLER_NODE_OPTIONS} (as installed)${peerWork ? ', Memcached with the Deployment alone (--same-work)' : ''}${http1 ? ', DISABLE_HTTP2=1' : ''}`,

    check() {
      for (const file of peerWork ? [CLI, PEER_WORK_KINDS] : [CLI]) {
        if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
      }
    },

    async launch({ namespace, workers, resyncSeconds, cpuProfDir }) {
      const port = await freePort();
      const nodeArgs = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
      return {
        command: process.execPath,
        args: [
          ...nodeArgs,
          CLI,
          'controller',
          ...kindArgs,
          '--health-addr',
          `127.0.0.1:${port}`,
          '--metrics-addr',
          '0', // no server of its own: the health port serves /metrics too
          '--log-format',
          'json',
          '--namespaces',
          namespace,
          '--workers',
          String(workers),
          ...(resyncSeconds === undefined ? [] : ['--resync', String(resyncSeconds)]),
        ],
        // The Node options the install manifest and the image give it.
        env: {
          ...process.env,
          NODE_OPTIONS: CONTROLLER_NODE_OPTIONS,
          ...(http1 ? { DISABLE_HTTP2: '1' } : {}),
        },
        readyUrl: `http://127.0.0.1:${port}/readyz`,
        metricsUrl: `http://127.0.0.1:${port}/metrics`,
      };
    },

    milestones: { children: peerWork ? ['Deployment'] : ['Deployment', 'Service'], ready: 'condition' },

    metrics: {
      requests: 'reconstruct_api_requests_total',
      requestSeconds: 'reconstruct_api_request_duration_seconds',
      verb: (labels) => labels.verb,
      reconciles: 'reconstruct_reconcile_total',
      reconcileErrors: 'reconstruct_reconcile_errors_total',
      reconcileSeconds: 'reconstruct_reconcile_duration_seconds',
      queueDepth: 'reconstruct_workqueue_depth',
      heapUsedBytes: 'nodejs_heap_size_used_bytes',
      heapTotalBytes: 'nodejs_heap_size_total_bytes',
      eventLoopLagP99Seconds: 'nodejs_eventloop_lag_p99_seconds',
    },

    isErrorLine: (line) => line.includes('"level":"error"'),
  };
}

export const reconstruct = reconstructUnderTest();
