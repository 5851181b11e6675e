/**
 * kro as the controller under test: the peer that does our job with a kind defined as data. Its controller
 * (github.com/kubernetes-sigs/kro, Go, controller-runtime) is built from its Go module by
 * bench/peer-kro/build.sh into the cache beside the control-plane binaries; `prepare` installs kro's CRDs
 * and bench/peer-kro/memcached-rgd.yaml, a ResourceGraphDefinition that makes the same children as
 * reconstruct's Memcached (a Deployment and a Service, the same fields), and starts kro once so that it
 * makes that definition's CRD, memcacheds.kro.run. The bench then creates kro.run Memcached with the same
 * spec.size as it creates cache.example.com ones for the other two.
 *
 * How its work differs from ours: kro caches only the metadata of what it watches (the resources and every
 * kind of child, cluster-wide), reads each child live (a GET) on every reconcile, applies the children
 * with server-side apply one by one in the graph's order, and writes the resource's status (its
 * conditions, status.readyReplicas from the Deployment) and a finalizer on it; it sets no owner reference
 * (it deletes the children itself when the resource goes).
 *
 * Two configurations: its defaults (one worker, client QPS 100, burst 150), and `kroTuned`, with the
 * bench's workers and a client QPS (1,000, burst 2,000) high enough that its rate limiter never waits.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ApiKind, KubeObject } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { isNotFound } from '../../controller/kube/errors';
import { resourcePath } from '../../controller/kube/paths';
import { applyRequest } from '../../controller/kube/writer';
import { freePort } from '../../controller/runtime/server';
import { ControllerProcess } from './controller-process';
import type { ControllerUnderTest, Launch } from './controller-under-test';
import { VERB_OF_METHOD } from './peer-go';
import { log, repositoryPath, until } from './support';

const peerDir = () => repositoryPath('bench/peer-kro');

const CRD: ApiKind = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const RGD: ApiKind = {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  plural: 'resourcegraphdefinitions',
  namespaced: false,
};
const GRAPH_REVISION: ApiKind = {
  apiVersion: 'internal.kro.run/v1alpha1',
  kind: 'GraphRevision',
  plural: 'graphrevisions',
  namespaced: false,
};
/** The kind memcached-rgd.yaml defines (kro's default group, kro.run). */
export const KRO_MEMCACHED: ApiKind = {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'Memcached',
  plural: 'memcacheds',
  namespaced: true,
};
const FIELD_MANAGER = 'reconstruct-bench';

let binary: string | undefined;
/** Whether prepare has run (it is shared by both configurations), until finish. */
let prepared = false;

const readYaml = (file: string): KubeObject[] =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);

/** The gauge kro sets once its controller for a definition's kind has started: what "ready" means here. */
async function kindControllerStarted(metricsUrl: string): Promise<boolean> {
  const res = await fetch(metricsUrl);
  if (res.status !== 200) return false;
  const m = /^dynamic_controller_gvr_count (\S+)$/m.exec(await res.text());
  return m !== null && Number(m[1]) >= 1;
}

async function crdEstablished(client: KubeClient, name: string): Promise<boolean> {
  const crd = await client
    .request<KubeObject>({ method: 'GET', path: resourcePath(CRD, undefined, name) })
    .catch((err) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  const conditions = (crd?.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}

/** Removes an object's finalizers and deletes it, where it is there. */
async function remove(client: KubeClient, type: ApiKind, name: string): Promise<void> {
  const path = resourcePath(type, undefined, name);
  try {
    await client.request({ method: 'PATCH', path, body: { metadata: { finalizers: null } } });
    await client.request({ method: 'DELETE', path });
  } catch (err) {
    if (!isNotFound(err)) log(`deleting ${type.kind} ${name}: ${String(err)}`);
  }
}

function kro(tuned: boolean): ControllerUnderTest {
  const self: ControllerUnderTest = {
    name: tuned ? 'kro, tuned' : 'kro',
    about: tuned
      ? 'kro tuned: the bench workers, --client-qps 1000 --client-burst 2000'
      : 'kro: kro v0.9.4 (controller-runtime v0.24), its defaults (1 worker, client QPS 100, burst 150)',
    resource: KRO_MEMCACHED,

    check() {
      if (binary) return;
      const script = join(peerDir(), 'build.sh');
      try {
        const out = execFileSync('bash', [script], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        binary = out.trim().split('\n').pop();
      } catch (err) {
        throw new Error(
          `kro cannot be built (bash ${script}; it needs Go and the Go module proxy): ${(err as Error).message}`,
        );
      }
    },

    async prepare(client) {
      if (!binary) throw new Error('kro is not built: call check() first');
      if (prepared) return;
      prepared = true; // from here on, finish has something to remove
      const crds = join(dirname(binary), 'crds');
      const objects = [
        ...readdirSync(crds)
          .filter((f) => f.endsWith('.yaml'))
          .sort()
          .flatMap((f) => readYaml(join(crds, f))),
      ];
      for (const crd of objects) {
        await client.request(
          applyRequest(resourcePath(CRD, undefined, crd.metadata.name), crd, FIELD_MANAGER),
        );
      }
      for (const crd of objects) {
        if (!(await until(() => crdEstablished(client, crd.metadata.name), 30_000)))
          throw new Error(`kro's CRD ${crd.metadata.name} is not established after 30 s`);
      }
      for (const rgd of readYaml(join(peerDir(), 'memcached-rgd.yaml'))) {
        await client.request(
          applyRequest(resourcePath(RGD, undefined, rgd.metadata.name), rgd, FIELD_MANAGER),
        );
      }
      // kro makes the definition's CRD when it first sees the definition: once, before the runs, so that
      // the bench's watch of the resources can start before kro does, as it does for the others.
      log('starting kro once to make the CRD of bench/peer-kro/memcached-rgd.yaml');
      const once = await ControllerProcess.start(self, { namespace: 'default', workers: 1 });
      await once.stop();
      if (!(await crdEstablished(client, `${KRO_MEMCACHED.plural}.kro.run`)))
        throw new Error(`kro did not make the CRD ${KRO_MEMCACHED.plural}.kro.run`);
    },

    async finish(client) {
      if (!prepared) return;
      prepared = false;
      const rgds = readYaml(join(peerDir(), 'memcached-rgd.yaml'));
      for (const rgd of rgds) await remove(client, RGD, rgd.metadata.name);
      const revisions = await client
        .request<{ items: KubeObject[] }>({ method: 'GET', path: resourcePath(GRAPH_REVISION) })
        .catch(() => ({ items: [] as KubeObject[] }));
      for (const r of revisions.items) await remove(client, GRAPH_REVISION, r.metadata.name);
      await remove(client, CRD, `${KRO_MEMCACHED.plural}.kro.run`);
      if (binary) {
        const crds = join(dirname(binary), 'crds');
        for (const f of readdirSync(crds).filter((x) => x.endsWith('.yaml')))
          for (const crd of readYaml(join(crds, f))) await remove(client, CRD, crd.metadata.name);
      }
    },

    async launch({ workers }): Promise<Launch> {
      if (!binary) throw new Error('kro is not built: call check() first');
      const probePort = await freePort();
      const metricsPort = await freePort();
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      return {
        command: binary,
        args: [
          '--metrics-bind-address',
          `127.0.0.1:${metricsPort}`,
          '--health-probe-bind-address',
          `127.0.0.1:${probePort}`,
          '--dynamic-controller-concurrent-reconciles',
          String(tuned ? workers : 1),
          ...(tuned ? ['--client-qps', '1000', '--client-burst', '2000'] : []),
        ],
        // KUBECONFIG, read by controller-runtime as by every client.
        env: process.env,
        readyUrl: `http://127.0.0.1:${probePort}/readyz`,
        metricsUrl,
        ready: () => kindControllerStarted(metricsUrl),
      };
    },

    milestones: { children: ['Deployment'], ready: 'deployment' },

    metrics: {
      requests: 'rest_client_requests_total',
      requestSeconds: 'rest_client_request_duration_seconds',
      verb: (labels) => VERB_OF_METHOD[labels.method ?? labels.verb ?? ''],
      reconciles: 'dynamic_controller_reconcile_total',
      reconcileErrors: 'dynamic_controller_reconcile_errors_total',
      reconcileSeconds: 'dynamic_controller_reconcile_duration_seconds',
      queueDepth: 'dynamic_controller_queue_length',
      heapUsedBytes: 'go_memstats_heap_alloc_bytes',
      heapTotalBytes: 'go_memstats_heap_sys_bytes',
    },

    // zap, JSON (production) or console (development) encoder.
    isErrorLine: (line) => line.includes('"level":"error"') || line.includes('\tERROR\t'),
  };
  return self;
}

export const peerKro = kro(false);
export const peerKroTuned = kro(true);
