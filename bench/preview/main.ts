/**
 * `reconstruct preview` at scale: `npm run bench:preview [-- --count 1000 --rounds 3 --concurrency 8]`.
 *
 * `--count` App resources (kind.ts) made and applied by the real controller with the first build, which
 * then stops. Then, alternating, `--rounds` times each:
 *
 *  - **the baseline, the reads alone**: a LIST of the Apps and a GET of each one's two children, at the
 *    preview's concurrency: the least any preview of the fleet must ask of the API server;
 *  - **preview, same build**: the fleet under the build that made it (nothing changes);
 *  - **preview, changed build**: under the second build (every Deployment changes).
 *
 * Per side: the wall time, the CPU of kube-apiserver, etcd and this process, and the requests sent (as
 * `previewFleet` runs in `reconstruct preview`, in this process).
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { CONFIG_MAP, DEPLOYMENT, NAMESPACE } from '../../constructs/kit';
import type { CustomResource, Kind } from '../../constructs/kit';
import { loadClient, type KubeClient } from '../../controller/kube/client';
import type { KubeRequest } from '../../controller/kube/http';
import { resourcePath } from '../../controller/kube/paths';
import { applyRequest } from '../../controller/kube/writer';
import { previewFleet } from '../../cli/preview/fleet';
import { summarize } from '../../cli/preview/report';
import { ControllerProcess } from '../controller/controller-process';
import { guard, run } from '../controller/guard';
import { cpuSnapshot, cpuSpent } from '../controller/proc';
import { installKind, startWithKinds } from '../controller/kind-setup';
import { int } from '../controller/settings';
import { log, median, now, pool, until } from '../controller/support';
import { appV1, appV2 } from './kind';

const HELP = `Usage: node dist/bench/preview/main.js [options]   (npm run bench:preview -- [options])

  --count N         App resources, each a Deployment and a ConfigMap (default 1000)
  --rounds N        rounds of each side (default 3)
  --concurrency N   resources previewed at once, as reconstruct preview --concurrency (default 8)
  -h, --help
`;

const KINDS = join(__dirname, 'kind.js');
const MANAGER = 'bench-preview';
const SIDES = ['reads alone (baseline)', 'preview, same build', 'preview, changed build'] as const;
type Side = (typeof SIDES)[number];

interface Figures {
  seconds: number;
  apiServer: number;
  etcd: number;
  own: number;
  requests: number;
}

/** The client, each request counted. */
function counting(client: KubeClient, count: { n: number }): KubeClient {
  return {
    request: <T>(req: KubeRequest) => {
      count.n++;
      return client.request<T>(req);
    },
    watch: (...args) => client.watch(...args),
  };
}

/** The least a preview reads: the resources, and each one's children by name. */
async function readsAlone(client: KubeClient, namespace: string, concurrency: number): Promise<void> {
  const list = await client.request<{ items: CustomResource[] }>({
    method: 'GET',
    path: resourcePath(appV1, namespace),
  });
  await pool(list.items, concurrency, async (app) => {
    const name = app.metadata.name;
    await client.request({ method: 'GET', path: resourcePath(DEPLOYMENT, namespace, name) });
    await client.request({ method: 'GET', path: resourcePath(CONFIG_MAP, namespace, `${name}-settings`) });
  });
}

async function side(
  which: Side,
  client: KubeClient,
  namespace: string,
  concurrency: number,
  count: number,
): Promise<Figures> {
  const sent = { n: 0 };
  const counted = counting(client, sent);
  const cpuBefore = cpuSnapshot();
  const started = now();
  if (which === 'reads alone (baseline)') await readsAlone(counted, namespace, concurrency);
  else {
    const build: Kind = which === 'preview, same build' ? appV1 : appV2;
    const fleet = await previewFleet(counted, [build], { namespace }, { concurrency });
    const { resources } = summarize(fleet.resources);
    const expected = which === 'preview, same build' ? 'unchanged' : 'changed';
    if (resources[expected] !== count) {
      throw new Error(`${which}: ${JSON.stringify(resources)}, not ${count} ${expected}`);
    }
  }
  const seconds = (now() - started) / 1000;
  const cpu = cpuSpent(cpuBefore, cpuSnapshot());
  return {
    seconds,
    apiServer: cpu['kube-apiserver'] ?? 0,
    etcd: cpu.etcd ?? 0,
    own: cpu.benchmark ?? 0,
    requests: sent.n,
  };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      rounds: { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const count = int('count', values.count, 1000, 1);
  const rounds = int('rounds', values.rounds, 3, 1);
  const concurrency = int('concurrency', values.concurrency, 8, 1);
  const client = loadClient();
  const namespace = `bench-preview-${Date.now().toString(36)}`;
  const apply = (path: string, body: unknown) => client.request(applyRequest(path, body, MANAGER));
  const running: { controller?: ControllerProcess } = {};
  const cleanUp = guard(30 * 60_000, async () => {
    await running.controller?.stop();
    await client
      .request({ method: 'DELETE', path: resourcePath(NAMESPACE, undefined, namespace) })
      .catch(() => {});
  });

  await installKind(client, appV1, namespace, MANAGER);

  const controller = (running.controller = await startWithKinds(KINDS, 'App', namespace));
  const indexes = Array.from({ length: count }, (_, i) => i);
  log(`creating ${count} Apps in ${namespace}; the controller applies their children with the first build`);
  const started = now();
  await pool(indexes, 16, async (i) => {
    const name = `a${String(i).padStart(4, '0')}`;
    await apply(resourcePath(appV1, namespace, name), {
      apiVersion: appV1.apiVersion,
      kind: appV1.kind,
      metadata: { name, namespace },
      spec: { image: 'registry.example.com/app:1' },
    });
  });
  // Every child made: what the controller does after (status, the Deployments' rollouts) is not previewed.
  const made = async (type: typeof DEPLOYMENT, suffix: string) => {
    const list = await client.request<{ items: { metadata: { name: string } }[] }>({
      method: 'GET',
      path: resourcePath(type, namespace),
    });
    return list.items.filter((o) => o.metadata.name.endsWith(suffix)).length === count;
  };
  const applied = await until(
    async () => (await made(DEPLOYMENT, '')) && (await made(CONFIG_MAP, '-settings')),
    600_000,
    2_000,
  );
  if (!applied) throw new Error(`the controller had not made the children of ${count} Apps in 10 minutes`);
  log(
    `${count} Apps applied ${((now() - started) / 1000).toFixed(0)} s after the first create; the controller stops`,
  );
  await controller.stop();
  running.controller = undefined;

  const results = new Map<Side, Figures[]>(SIDES.map((s) => [s, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const which of SIDES) {
      const figures = await side(which, client, namespace, concurrency, count);
      results.get(which)!.push(figures);
      log(
        `round ${round}, ${which}: ${figures.seconds.toFixed(1)} s, kube-apiserver ${figures.apiServer.toFixed(1)} s CPU, ` +
          `${figures.requests} requests`,
      );
    }
  }
  await cleanUp();

  const range = (xs: number[], digits: number) =>
    `${Math.min(...xs).toFixed(digits)} / ${median(xs).toFixed(digits)} / ${Math.max(...xs).toFixed(digits)}`;
  const lines = [
    `preview of ${count} App resources (a Deployment and a ConfigMap each), --concurrency ${concurrency}, ${rounds} round(s); min / median / max`,
    '',
    '| side | wall (s) | kube-apiserver CPU (s) | etcd CPU (s) | preview process CPU (s) | requests |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const which of SIDES) {
    const f = results.get(which)!;
    lines.push(
      `| ${which} | ${range(
        f.map((x) => x.seconds),
        1,
      )} | ${range(
        f.map((x) => x.apiServer),
        1,
      )} | ${range(
        f.map((x) => x.etcd),
        2,
      )} | ${range(
        f.map((x) => x.own),
        1,
      )} | ${median(f.map((x) => x.requests))} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

run(main);
