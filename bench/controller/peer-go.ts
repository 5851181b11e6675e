/**
 * The Go peer as the controller under test: operator-sdk's memcached sample on controller-runtime
 * (bench/peer-go), built by bench/peer-go/build.sh into the cache beside the control-plane binaries, started
 * as its users run it (development logging, cached reads) but watching only the run's namespace: without
 * --namespaces it would put its finalizer on every Memcached of the cluster.
 *
 * Per resource it makes a Deployment, puts a finalizer on the resource and sets an `Available` condition;
 * it makes no Service and sets no Ready condition, so its milestones are the Deployment seen and the
 * Deployment's replicas ready.
 */
import { execFileSync } from 'node:child_process';
import { freePort } from '../../controller/runtime/server';
import type { ControllerUnderTest } from './controller-under-test';
import { repositoryPath } from './support';

/** client-go counts requests by HTTP method; the bench counts them by Kubernetes verb. */
export const VERB_OF_METHOD: Record<string, string> = {
  GET: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

let binary: string | undefined;

export const peerGo: ControllerUnderTest = {
  name: 'Go peer',
  about: 'Go peer: memcached-operator (controller-runtime v0.21.0), development logging',

  check() {
    if (binary) return;
    const script = repositoryPath('bench/peer-go/build.sh');
    try {
      const out = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      binary = out.trim().split('\n').pop();
    } catch (err) {
      throw new Error(
        `the Go peer cannot be built (bash ${script}; it needs Go and the Go module proxy): ${(err as Error).message}`,
      );
    }
  },

  async launch({ namespace, workers }) {
    if (!binary) throw new Error('the Go peer is not built: call check() first');
    const probePort = await freePort();
    const metricsPort = await freePort();
    const kubeconfig = process.env.KUBECONFIG;
    return {
      command: binary,
      args: [
        ...(kubeconfig ? ['--kubeconfig', kubeconfig] : []),
        '--metrics-bind-address',
        `127.0.0.1:${metricsPort}`,
        '--health-probe-bind-address',
        `127.0.0.1:${probePort}`,
        '--max-concurrent-reconciles',
        String(workers),
        '--namespaces',
        namespace,
      ],
      env: process.env,
      readyUrl: `http://127.0.0.1:${probePort}/readyz`,
      metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    };
  },

  milestones: { children: ['Deployment'], ready: 'deployment' },

  metrics: {
    requests: 'rest_client_requests_total',
    requestSeconds: 'rest_client_request_duration_seconds',
    // rest_client_requests_total labels the method; the duration histogram, where there is one, the verb.
    verb: (labels) => VERB_OF_METHOD[labels.method ?? labels.verb ?? ''],
    reconciles: 'controller_runtime_reconcile_total',
    reconcileErrors: 'controller_runtime_reconcile_errors_total',
    reconcileSeconds: 'controller_runtime_reconcile_time_seconds',
    queueDepth: 'workqueue_depth',
    heapUsedBytes: 'go_memstats_heap_alloc_bytes',
    heapTotalBytes: 'go_memstats_heap_sys_bytes',
  },

  // zap's development encoder: tab-separated, the level in capitals.
  isErrorLine: (line) => line.includes('\tERROR\t'),
};
