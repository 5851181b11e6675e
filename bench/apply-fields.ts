/**
 * `npm run bench:apply-fields [-- --rounds N]`: what a write of a Deployment costs the API server, by how it
 * is written. The Memcached sample's Deployment as the controller applies it (what cdk8s-plus-27 renders:
 * minReadySeconds, progressDeadlineSeconds, the strategy, imagePullPolicy, dnsPolicy, restartPolicy,
 * terminationGracePeriodSeconds, ...) by server-side apply; the same without the fields the API server sets
 * to the same values; the object as last read, changed and sent back whole (an update, PUT: what a
 * controller-runtime operator's `r.Update` does); and a JSON merge patch of the changed field alone. Each
 * writes a change (a new annotation value) to a Deployment of its own, one at a time, the order alternated
 * every round: the client's round trip, the time until a watch of the namespace's Deployments shows the
 * change (what a user of the controller waits for), and the size of the body sent.
 */
import { parseArgs } from 'node:util';
import { memcachedKind, synthesize, type Manifest } from '../constructs';
import { loadClient } from '../controller/kube/client';
import { isConflict } from '../controller/kube/errors';
import type { KubeRequest } from '../controller/kube/http';
import { quantile } from './controller/support';
import { applyRequest } from '../controller/kube/writer';

/** One way of writing the change of a round to the Deployment at `path` (`last`: as the API server returned it last). */
type Write = (path: string, body: Manifest, last: Manifest | undefined) => KubeRequest;

/** Paths of the Deployment's fields the API server defaults to the value cdk8s-plus gives them. */
const DEFAULTED: string[][] = [
  ['spec', 'minReadySeconds'],
  ['spec', 'progressDeadlineSeconds'],
  ['spec', 'strategy'],
  ['spec', 'template', 'spec', 'dnsPolicy'],
  ['spec', 'template', 'spec', 'hostNetwork'],
  ['spec', 'template', 'spec', 'restartPolicy'],
  ['spec', 'template', 'spec', 'setHostnameAsFQDN'],
  ['spec', 'template', 'spec', 'terminationGracePeriodSeconds'],
  ['spec', 'template', 'spec', 'containers', '0', 'imagePullPolicy'],
  ['spec', 'template', 'spec', 'containers', '0', 'readinessProbe', 'failureThreshold'],
  ['spec', 'template', 'spec', 'containers', '0', 'securityContext', 'privileged'],
];

function without(manifest: Manifest, paths: string[][]): Manifest {
  const copy = structuredClone(manifest) as Record<string, unknown>;
  for (const path of paths) {
    let at: Record<string, unknown> | undefined = copy;
    for (const key of path.slice(0, -1)) at = at?.[key] as Record<string, unknown> | undefined;
    if (at) delete at[path[path.length - 1]];
  }
  return copy as Manifest;
}

/** Leaves (non-object values and empty objects) of a JSON value: what SSA tracks a field for. */
function leaves(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + leaves(v), 0);
  if (value && typeof value === 'object') {
    const entries = Object.values(value);
    return entries.length === 0 ? 1 : entries.reduce((n: number, v) => n + leaves(v), 0);
  }
  return 1;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 300);
  const client = loadClient({ userAgent: 'reconstruct-bench' });
  const namespace = `reconstruct-apply-fields-${Math.random().toString(16).slice(2, 8)}`;
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
  });
  try {
    const resource = {
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: 'fields', namespace },
      spec: { size: 0 },
    };
    const rendered = synthesize(memcachedKind, resource as never).find((m) => m.kind === 'Deployment');
    if (!rendered) throw new Error('the Memcached kind rendered no Deployment');
    const apply: Write = (path, body) => applyRequest(path, body, 'bench-apply-fields');
    const update: Write = (path, body, last) => {
      const annotations = { ...last?.metadata.annotations, ...body.metadata.annotations };
      return last
        ? { method: 'PUT', path, body: { ...last, metadata: { ...last.metadata, annotations } } }
        : apply(path, body, last); // the first write of each makes it
    };
    const mergePatch: Write = (path, body, last) => {
      const { annotations } = body.metadata;
      return last ? { method: 'PATCH', path, body: { metadata: { annotations } } } : apply(path, body, last);
    };
    const variants = [
      { label: 'apply, as rendered (cdk8s-plus-27)', body: rendered, write: apply },
      { label: 'apply, without the defaulted fields', body: without(rendered, DEFAULTED), write: apply },
      { label: 'update (PUT) of the object as read', body: rendered, write: update },
      { label: 'merge patch of the changed field', body: rendered, write: mergePatch },
    ].map((v, i) => ({
      ...v,
      name: `fields-${i}`,
      ms: [] as number[],
      seen: [] as number[],
      bytes: 0,
      conflicts: 0,
    }));
    const collection = `/apis/apps/v1/namespaces/${namespace}/deployments`;
    // The watch: "name/round" -> when it showed that round's change.
    const shown = new Map<string, (at: bigint) => void>();
    const abort = new AbortController();
    const watching = (async () => {
      const events = client.watch({ method: 'GET', path: collection, signal: abort.signal });
      for await (const { object } of events) {
        const meta = (object as Manifest).metadata as { name: string; annotations?: Record<string, string> };
        shown.get(`${meta.name}/${meta.annotations?.round}`)?.(process.hrtime.bigint());
      }
    })().catch(() => undefined);
    const last = new Map<string, Manifest>();
    for (let round = -20; round < rounds; round++) {
      // The order alternates each round; the first 20 rounds warm up and are not counted.
      for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
        const body = structuredClone(v.body) as Manifest & { metadata: Record<string, unknown> };
        body.metadata = { ...body.metadata, name: v.name, namespace, annotations: { round: String(round) } };
        const path = `${collection}/${v.name}`;
        const seen = new Promise<bigint>((resolve) => shown.set(`${v.name}/${round}`, resolve));
        let req: KubeRequest;
        let started: bigint;
        for (;;) {
          // An update sends back the object as it is now (read untimed: an operator reads it from its
          // cache); kube-controller-manager's writes in between make it stale (409): read and send again.
          const current =
            v.write === update && last.has(v.name)
              ? await client.request<Manifest>({ method: 'GET', path })
              : last.get(v.name);
          req = v.write(path, body, current);
          started = process.hrtime.bigint();
          try {
            last.set(v.name, await client.request<Manifest>(req));
            break;
          } catch (err) {
            if (!isConflict(err)) throw err;
            v.conflicts++;
          }
        }
        const answered = process.hrtime.bigint();
        let timer: NodeJS.Timeout | undefined;
        const at = await Promise.race([
          seen,
          new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 5000))),
        ]);
        clearTimeout(timer);
        shown.delete(`${v.name}/${round}`);
        if (round < 0) continue;
        v.ms.push(Number(answered - started) / 1e6);
        if (at !== undefined) v.seen.push(Number(at - started) / 1e6);
        v.bytes = JSON.stringify(req.body).length;
      }
    }
    abort.abort();
    await watching;
    process.stdout.write(
      `| Deployment written | fields sent | body bytes | answered p50 (p90) | seen by a watch p50 (p90) |\n|---|---|---|---|---|\n`,
    );
    for (const v of variants) {
      const fields = v.write === mergePatch ? 1 : leaves(v.body.spec);
      const seen = v.seen.length === v.ms.length ? '' : ` (${v.ms.length - v.seen.length} not seen in 5 s)`;
      const conflicts = v.conflicts > 0 ? `, ${v.conflicts} conflicts (409) sent again` : '';
      process.stdout.write(
        `| ${v.label} | ${fields} | ${v.bytes} | ${quantile(v.ms, 0.5).toFixed(2)} (${quantile(v.ms, 0.9).toFixed(2)}) ms | ${quantile(v.seen, 0.5).toFixed(2)} (${quantile(v.seen, 0.9).toFixed(2)}) ms${seen}${conflicts} |\n`,
      );
    }
    process.stdout.write(`${rounds} writes each, alternated, protocol ${client.protocol}\n`);
  } finally {
    await client
      .request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` })
      .catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:apply-fields: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
