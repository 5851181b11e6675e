/**
 * The cluster the benchmark runs in: its namespace (created, emptied between phases, deleted at the end),
 * the Memcached resources and children it writes itself, and on a kwok cluster the fake nodes and the
 * ServiceCIDR that make room for N resources, removed at the end.
 */
import {
  DEPLOYMENT,
  SERVICE,
  memcachedKind as MEMCACHED,
  type CustomResource,
  type Manifest,
  type MemcachedSpec,
} from '../../constructs';
import { EVENT, NAMESPACE, NODE, POD } from '../../constructs/kit';
import { sleep } from '../../controller/abortable';
import { withAppliedHash } from '../../controller/reconcile/converge';
import type { ApiKind, KubeObject } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { isMethodNotSupported, isNotFound, isTransient } from '../../controller/kube/errors';
import { resourcePath } from '../../controller/kube/paths';
import { applyRequest } from '../../controller/kube/writer';
import { log, pool, until } from './support';

export { MEMCACHED };

const kind = (apiVersion: string, kindName: string, plural: string, namespaced = true): ApiKind => ({
  apiVersion,
  kind: kindName,
  plural,
  namespaced,
});
const REPLICA_SET = kind('apps/v1', 'ReplicaSet', 'replicasets');
const ENDPOINT_SLICE = kind('discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices');
const ENDPOINTS = kind('v1', 'Endpoints', 'endpoints');
const SERVICE_CIDR = kind('networking.k8s.io/v1', 'ServiceCIDR', 'servicecidrs', false);

/** Whether an object's Ready condition is True. */
export function isReady(obj: KubeObject): boolean {
  const status = obj.status as { conditions?: { type: string; status: string }[] } | undefined;
  return status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function memcached(
  namespace: string,
  name: string,
  size: number,
  type: ApiKind = MEMCACHED,
): CustomResource<MemcachedSpec> {
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    metadata: { name, namespace },
    spec: { size },
  };
}

/** A request retried a few times on errors a loaded API server gives (5xx, no response, 429 beyond the client's retries). */
async function retrying<T>(what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err) || attempt >= 5) throw new Error(`${what}: ${String(err)}`, { cause: err });
      await sleep(200 * attempt);
    }
  }
}

/** An IPv4 CIDR as [first address, number of addresses]; undefined for IPv6. */
function parseCidr(cidr: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) return undefined;
  const address = m.slice(1, 5).reduce((a, x) => ((a << 8) | Number(x)) >>> 0, 0);
  const size = 2 ** (32 - Number(m[5]));
  return [address - (address % size), size];
}

/** True when every node is a kwok fake: a throwaway cluster the bench may add nodes and service IPs to. */
const allFake = (nodes: KubeObject[]) =>
  nodes.length > 0 && nodes.every((n) => n.metadata.annotations?.['kwok.x-k8s.io/node'] === 'fake');

export class Cluster {
  /** What the run added outside its namespace, removed by cleanUp. */
  private readonly addedNodes: string[] = [];
  private readonly serviceCidrs: string[] = [];

  /** `resource`: the kind of the N resources, with `spec.size` (cache.example.com Memcached, or kro's). */
  constructor(
    readonly client: KubeClient,
    readonly namespace: string,
    readonly resource: ApiKind = MEMCACHED,
  ) {}

  async createNamespace(): Promise<void> {
    await this.client.request({
      method: 'POST',
      path: resourcePath(NAMESPACE),
      body: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: this.namespace, labels: { 'reconstruct.dev/bench': 'controller' } },
      },
    });
  }

  private async nodes(): Promise<KubeObject[]> {
    const list = await this.client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path: resourcePath(NODE),
    });
    return list.items;
  }

  /**
   * Makes room for `services` more ClusterIPs: a kwok cluster's range is a /24. On a kwok cluster, adds a
   * ServiceCIDR (networking.k8s.io/v1) that does not overlap the existing ones; removed at the end.
   */
  async addServiceIpsFor(services: number): Promise<string> {
    const cidrs = await this.client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path: resourcePath(SERVICE_CIDR),
    });
    const rangesOf = (items: KubeObject[]) =>
      items.flatMap((c) => (c.spec as { cidrs?: string[] } | undefined)?.cidrs ?? []);
    const v4Of = (ranges: string[]) =>
      ranges.map(parseCidr).filter((x): x is [number, number] => x !== undefined);
    // Every range counts for overlaps, only those not being deleted for capacity.
    const v4 = v4Of(rangesOf(cidrs.items));
    const ranges = rangesOf(cidrs.items.filter((c) => !c.metadata.deletionTimestamp));
    const capacity = v4Of(ranges).reduce((sum, [, size]) => sum + size - 2, 0);
    const used = await this.client.request<{ items: unknown[] }>({
      method: 'GET',
      path: resourcePath(SERVICE),
    });
    const missing = services + used.items.length + 10 - capacity;
    if (missing <= 0) return `service IP ranges ${ranges.join(', ')} have room: no ServiceCIDR added`;
    if (!allFake(await this.nodes())) {
      return `WARNING: service IP ranges ${ranges.join(', ')} may be too small for ${services} more Services`;
    }
    const prefix = 32 - Math.ceil(Math.log2(missing + 2));
    const size = 2 ** (32 - prefix);
    for (let second = 200; second < 256; second++) {
      const start = ((10 << 24) | (second << 16)) >>> 0;
      if (v4.some(([s, n]) => start < s + n && s < start + size)) continue;
      const cidr = `10.${second}.0.0/${prefix}`;
      const name = `${this.namespace}-ips`;
      await this.client.request({
        method: 'POST',
        path: resourcePath(SERVICE_CIDR),
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'ServiceCIDR',
          metadata: { name },
          spec: { cidrs: [cidr] },
        },
      });
      this.serviceCidrs.push(name);
      const ready = await until(
        async () => {
          const got = await this.client.request<KubeObject>({
            method: 'GET',
            path: resourcePath(SERVICE_CIDR, undefined, name),
          });
          return isReady(got);
        },
        30_000,
        250,
      );
      return `added ServiceCIDR ${cidr} (${ranges.join(', ')} hold ${capacity} IPs)${ready ? '' : ', not Ready after 30 s'}`;
    }
    return 'WARNING: no free 10.x range for a ServiceCIDR';
  }

  /** On a kwok cluster, adds fake nodes so that `pods` more pods fit. */
  async addNodesFor(pods: number): Promise<string> {
    const nodes = await this.nodes();
    if (!allFake(nodes)) return 'not a kwok cluster: no nodes added';
    const capacity = nodes.reduce((sum, n) => {
      const alloc = (n.status as { allocatable?: { pods?: string } } | undefined)?.allocatable?.pods;
      return sum + Number(alloc ?? 0);
    }, 0);
    const running = await this.client.request<{ items: unknown[] }>({
      method: 'GET',
      path: resourcePath(POD),
      query: { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' },
    });
    const missing = pods + running.items.length + 20 - capacity;
    if (missing <= 0) return `${nodes.length} kwok nodes hold ${capacity} pods: no nodes added`;
    const perNode = 500;
    const count = Math.ceil(missing / perNode);
    for (let i = 0; i < count; i++) {
      const name = `${this.namespace}-node-${i}`;
      await this.client.request({
        method: 'POST',
        path: resourcePath(NODE),
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name,
            annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
            labels: {
              'kubernetes.io/hostname': name,
              'kubernetes.io/os': 'linux',
              'kubernetes.io/arch': 'amd64',
              type: 'kwok',
              'reconstruct.dev/bench': 'controller',
            },
          },
          status: {
            allocatable: { cpu: '1000', memory: '1Ti', pods: String(perNode) },
            capacity: { cpu: '1000', memory: '1Ti', pods: String(perNode) },
            nodeInfo: {
              architecture: 'amd64',
              operatingSystem: 'linux',
              kubeletVersion: 'fake',
              kubeProxyVersion: 'fake',
            },
          },
        },
      });
      this.addedNodes.push(name);
    }
    const ready = await until(
      async () => {
        const got = await this.client.request<{ items: KubeObject[] }>({
          method: 'GET',
          path: resourcePath(NODE),
          query: { labelSelector: 'reconstruct.dev/bench=controller' },
        });
        return got.items.filter(isReady).length >= count;
      },
      60_000,
      500,
    );
    return `added ${count} kwok nodes of ${perNode} pods (the ${nodes.length} there hold ${capacity})${
      ready ? '' : ', not Ready after 60 s'
    }`;
  }

  /** Number of objects of a type in the namespace (up to 1: whether there are any). */
  private async any(type: ApiKind): Promise<boolean> {
    const list = await this.client.request<{ items: unknown[] }>({
      method: 'GET',
      path: resourcePath(type, this.namespace),
      query: { limit: 1 },
    });
    return list.items.length > 0;
  }

  private async deleteCollection(type: ApiKind, query: Record<string, string | number> = {}): Promise<void> {
    try {
      await this.client.request({
        method: 'DELETE',
        path: resourcePath(type, this.namespace),
        query,
        timeoutMs: 120_000,
      });
    } catch (err) {
      if (!(isNotFound(err) || isMethodNotSupported(err) || isTransient(err))) throw err; // cut by a timeout: looked at again
    }
  }

  /** Removes the resources' finalizers (the Go peer's, kro's): they go once deleted, no controller running. */
  private async dropFinalizers(): Promise<void> {
    const list = await this.client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path: resourcePath(this.resource, this.namespace),
    });
    const held = list.items
      .filter((o) => (o.metadata.finalizers ?? []).length > 0)
      .map((o) => o.metadata.name);
    await pool(held, 32, async (name) => {
      await this.client
        .request({
          method: 'PATCH',
          path: resourcePath(this.resource, this.namespace, name),
          body: { metadata: { finalizers: null } },
        })
        .catch((err) => {
          if (!isNotFound(err)) throw err;
        });
    });
  }

  /** Deletes every resource and child in the namespace (finalizers dropped) and waits until they are gone. */
  async wipe(timeoutMs: number): Promise<boolean> {
    const types = [this.resource, DEPLOYMENT, REPLICA_SET, SERVICE];
    const gone = await until(
      async () => {
        await this.dropFinalizers();
        for (const type of types) await this.deleteCollection(type, { propagationPolicy: 'Background' });
        await this.deleteCollection(POD, { gracePeriodSeconds: 0 });
        for (const type of [...types, POD]) if (await this.any(type)) return false;
        return true;
      },
      timeoutMs,
      1000,
    );
    for (const type of [ENDPOINT_SLICE, ENDPOINTS, EVENT])
      await this.deleteCollection(type).catch(() => undefined);
    return gone;
  }

  /** Polls the object at `path` until it is not found; false when `timeoutMs` ran out first. */
  private gone(path: string, timeoutMs: number, everyMs: number): Promise<boolean> {
    return until(
      () =>
        this.client
          .request({ method: 'GET', path })
          .then(() => false)
          .catch(isNotFound),
      timeoutMs,
      everyMs,
    );
  }

  /** Polls until at least `pods` pods in the namespace are Running; false when `timeoutMs` ran out first. */
  async waitPodsRunning(pods: number, timeoutMs: number): Promise<boolean> {
    return until(
      async () => {
        const list = await this.client.request<{ items: KubeObject[] }>({
          method: 'GET',
          path: resourcePath(POD, this.namespace),
          query: { fieldSelector: 'status.phase=Running' },
        });
        return list.items.length >= pods;
      },
      timeoutMs,
      1000,
    );
  }

  /** Deletes the namespace and what the run added outside it, logging (not throwing) what fails. */
  async cleanUp(): Promise<void> {
    await this.wipe(120_000).catch((err) => log(`wiping ${this.namespace}: ${String(err)}`));
    try {
      await this.client.request({
        method: 'DELETE',
        path: resourcePath(NAMESPACE, undefined, this.namespace),
      });
      const gone = await this.gone(resourcePath(NAMESPACE, undefined, this.namespace), 120_000, 1000);
      if (!gone) log(`namespace ${this.namespace} still terminating after 120 s; left to the API server`);
    } catch (err) {
      log(`deleting namespace ${this.namespace}: ${String(err)}`);
    }
    for (const name of this.serviceCidrs.splice(0)) {
      // Its finalizer holds it until the IPs in it are released, i.e. the Services are gone.
      await this.client
        .request({ method: 'DELETE', path: resourcePath(SERVICE_CIDR, undefined, name) })
        .catch((err) => log(`deleting ServiceCIDR ${name}: ${String(err)}`));
      const gone = await this.gone(resourcePath(SERVICE_CIDR, undefined, name), 60_000, 500);
      if (!gone) log(`ServiceCIDR ${name} still there after 60 s; left to the API server`);
    }
    for (const name of this.addedNodes.splice(0)) {
      await this.client
        .request({ method: 'DELETE', path: resourcePath(NODE, undefined, name) })
        .catch((err) => log(`deleting node ${name}: ${String(err)}`));
    }
  }

  async createMemcached(name: string, size: number): Promise<KubeObject> {
    return retrying(`create Memcached ${name}`, () =>
      this.client.request<KubeObject>({
        method: 'POST',
        path: resourcePath(this.resource, this.namespace),
        body: memcached(this.namespace, name, size, this.resource),
      }),
    );
  }

  async patchSize(name: string, size: number): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'PATCH',
      path: resourcePath(this.resource, this.namespace, name),
      body: { spec: { size } },
    });
  }

  async getMemcached(name: string): Promise<KubeObject> {
    return this.client.request<KubeObject>({
      method: 'GET',
      path: resourcePath(this.resource, this.namespace, name),
    });
  }

  /** Server-side apply, the request the controller's Writer makes (field manager reconstruct). */
  async apply(child: Manifest): Promise<void> {
    const type = child.kind === 'Deployment' ? DEPLOYMENT : SERVICE;
    await retrying(`apply ${child.kind} ${child.metadata.name}`, () =>
      this.client.request(
        applyRequest(
          resourcePath(type, child.metadata.namespace, child.metadata.name),
          withAppliedHash(child),
          'reconstruct',
        ),
      ),
    );
  }
}
