/**
 * `npm run bench:apply-fields [-- --rounds N]`: what the fields the API server would default anyway cost a
 * server-side apply. The Memcached sample's Deployment as the controller applies it (what cdk8s-plus-27
 * renders: minReadySeconds, progressDeadlineSeconds, the strategy, imagePullPolicy, dnsPolicy,
 * restartPolicy, terminationGracePeriodSeconds, ...) against the same Deployment without the fields the
 * API server sets to the same values, each applied as a change (a new annotation value) to a Deployment of
 * its own, alternated in the same run: the API server's time per apply (the client's round trip, one at a
 * time) and the size of the body sent.
 */
import { parseArgs } from 'node:util';
import { memcachedKind, synthesize, type Manifest } from '../constructs';
import { loadClient } from '../controller/kube/client';
import { applyRequest } from '../controller/kube/writer';

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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
    const variants = [
      { label: 'as rendered (cdk8s-plus-27)', body: rendered },
      { label: 'without the defaulted fields', body: without(rendered, DEFAULTED) },
    ].map((v, i) => ({ ...v, name: `fields-${i}`, ms: [] as number[] }));
    for (let round = -20; round < rounds; round++) {
      // The order alternates each round; the first 20 rounds warm up and are not counted.
      for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
        const body = structuredClone(v.body) as Manifest & { metadata: Record<string, unknown> };
        body.metadata = { ...body.metadata, name: v.name, namespace, annotations: { round: String(round) } };
        const path = `/apis/apps/v1/namespaces/${namespace}/deployments/${v.name}`;
        const started = process.hrtime.bigint();
        await client.request(applyRequest(path, body, 'bench-apply-fields'));
        if (round >= 0) v.ms.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
    process.stdout.write(
      `| Deployment applied | fields | body bytes | apply p50 | p90 |\n|---|---|---|---|---|\n`,
    );
    for (const v of variants) {
      const sorted = [...v.ms].sort((a, b) => a - b);
      process.stdout.write(
        `| ${v.label} | ${leaves(v.body.spec)} | ${JSON.stringify(v.body).length} | ${median(v.ms).toFixed(2)} ms | ${sorted[Math.floor(sorted.length * 0.9)].toFixed(2)} ms |\n`,
      );
    }
    process.stdout.write(`${rounds} applies each, alternated, protocol ${client.protocol}\n`);
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
