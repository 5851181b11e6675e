/**
 * The operator image, run as the install's pod would run it (./as-pod.ts), against the local control
 * plane: it becomes leader, answers its probes, reconciles the samples to Ready, serves /metrics only to
 * a token allowed to read them, writes nothing to its read-only root, finalizes what it made, and stops
 * within its grace period on SIGTERM. A probe failure, a write to the root file system or a crash fails it.
 *
 * `npm run test:image` builds our image and runs this against it. scripts/example.sh runs the same test
 * against the worked example's image (an author's project, built from its own Dockerfile):
 *
 *   RECONSTRUCT_IMAGE            the image (default: reconstruct:<our version>, what `npm run image` tags)
 *   RECONSTRUCT_IMAGE_PROJECT    the project: its `reconstruct install` renders the manifest, its
 *                                samples/*.yaml are applied (default: this repository)
 *   RECONSTRUCT_IMAGE_INSTALL_ARGS  more arguments for `reconstruct install` (an author's --kinds ...)
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as https from 'node:https';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { version } from '../../package.json';
import {
  createNamespace,
  deleteNamespace,
  kubectl,
  readyCondition,
  uniqueName,
  waitFor,
} from '../support/kubectl';
import {
  documents,
  httpStatus,
  podOfInstall,
  type PodSpecOfInstall,
  PodLikeContainer,
  requireFreePort,
  requireImage,
  run,
} from './as-pod';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..');
const IMAGE = process.env.RECONSTRUCT_IMAGE || `reconstruct:${version}`;
const PROJECT = process.env.RECONSTRUCT_IMAGE_PROJECT || ROOT;
const INSTALL_ARGS = (process.env.RECONSTRUCT_IMAGE_INSTALL_ARGS ?? '').split(/\s+/).filter(Boolean);

/** `reconstruct install` as the project runs it: ours from dist/, an author's from its node_modules. */
function renderInstall(): string {
  const [cmd, ...pre] =
    PROJECT === ROOT
      ? ['node', join(ROOT, 'dist/cli/main.js')]
      : [join(PROJECT, 'node_modules/.bin/reconstruct')];
  const res = spawnSync(cmd, [...pre, 'install', '--image', IMAGE, ...INSTALL_ARGS, '-o', '-'], {
    cwd: PROJECT,
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`reconstruct install failed: ${res.stderr}`);
  return res.stdout;
}

interface Sample {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** kubectl's name of a sample's resource: kind.group/name. */
const ref = (s: Sample) => `${s.kind.toLowerCase()}.${s.apiVersion.split('/')[0]}/${s.metadata.name}`;

let pod: PodSpecOfInstall;
let installYaml: string;
let container: PodLikeContainer | undefined;
let ns: string;
let reader: string;
let samplesYaml: string;
let samples: Sample[];

beforeAll(async () => {
  requireImage(IMAGE);
  installYaml = renderInstall();
  pod = podOfInstall(installYaml);
  for (const port of Object.values(pod.ports)) await requireFreePort(port);
  // Everything but the Deployment: the kubelet's part is ours.
  const others = documents(installYaml).filter((d) => d.kind !== 'Deployment');
  kubectl(['apply', '--server-side', '-f', '-'], { input: others.map((d) => JSON.stringify(d)).join('\n') });
  kubectl(['wait', '--for=condition=Established', 'crd', '--all']);
  ns = createNamespace('image');
  // Not the samples whose work is on a MySQL server (MysqlDatabase, MysqlUser): none is reachable from the
  // image's container here; test/controller/mysql-kinds.cluster.test.ts runs them against MariaDB.
  const onMysqlServer = (f: string) => /^mysql-(database|user)\.yaml$/.test(f);
  const files = readdirSync(join(PROJECT, 'samples')).filter((f) => f.endsWith('.yaml') && !onMysqlServer(f));
  samplesYaml = files.map((f) => readFileSync(join(PROJECT, 'samples', f), 'utf8')).join('\n---\n');
  samples = documents<Sample>(samplesYaml);
  // A Prometheus of the user's: a ServiceAccount bound to the install's metrics-reader role.
  const readerRole = documents(installYaml).find(
    (d) => d.kind === 'ClusterRole' && d.metadata.name.endsWith('-metrics-reader'),
  );
  if (!readerRole) throw new Error('the install has no metrics-reader ClusterRole');
  reader = uniqueName('prometheus');
  kubectl(['create', 'serviceaccount', 'prometheus', '-n', ns]);
  kubectl([
    'create',
    'clusterrolebinding',
    reader,
    `--clusterrole=${readerRole.metadata.name}`,
    `--serviceaccount=${ns}:prometheus`,
  ]);
  container = new PodLikeContainer(pod, uniqueName('reconstruct-image'));
  container.start();
});

afterAll(() => {
  if (container) {
    const logs = container.logs();
    if (logs)
      console.log(`--- last lines of the container's log ---\n${logs.split('\n').slice(-30).join('\n')}`);
    container.remove();
  }
  if (reader) kubectl(['delete', 'clusterrolebinding', reader, '--ignore-not-found'], { allowFail: true });
  if (ns) deleteNamespace(ns);
});

/** The leader's identity, from the install's Lease. */
function holder(): string | undefined {
  const res = kubectl(['get', 'lease', 'reconstruct-controller', '-n', pod.namespace, '-o', 'json'], {
    allowFail: true,
  });
  if (res.code !== 0) return undefined;
  return (JSON.parse(res.stdout) as { spec?: { holderIdentity?: string } }).spec?.holderIdentity || undefined;
}

it('runs as the install says: the pod user, a read-only root, no capabilities', () => {
  expect(pod.image).toBe(IMAGE);
  expect(pod.runAsUser).toBe(65532);
  expect(pod.readOnlyRootFilesystem).toBe(true);
  expect(pod.dropsAllCapabilities).toBe(true);
  expect(container!.state().Running).toBe(true);
});

it('becomes leader and answers its readiness probe', async () => {
  const leader = await waitFor(holder, { what: 'the Lease to have a holder', timeoutMs: 60_000 });
  expect(leader).toBeTruthy();
  await waitFor(async () => (await httpStatus(pod.readiness.port, pod.readiness.path)) === 200, {
    what: `${pod.readiness.path} to answer 200`,
    timeoutMs: 60_000,
  });
});

it('reconciles the samples to Ready', async () => {
  kubectl(['apply', '-n', ns, '-f', '-'], { input: samplesYaml });
  for (const s of samples) {
    const [resource, name] = ref(s).split('/');
    await waitFor(() => readyCondition(resource, name, ns)?.status === 'True', {
      what: `${ref(s)} to be Ready`,
      timeoutMs: 120_000,
      intervalMs: 500,
    });
  }
  const { rssMiB, peakMiB } = container!.memory();
  console.log(
    `${IMAGE}: ${samples.length} samples Ready; RSS ${rssMiB.toFixed(1)} MiB, peak ${peakMiB.toFixed(1)} MiB`,
  );
});

/** A scrape of the metrics port over TLS (the certificate is self-signed: not verified). */
function scrape(bearer?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port: pod.ports.metrics,
          path: '/metrics',
          rejectUnauthorized: false,
          headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      )
      .on('error', reject);
  });
}

it('serves /metrics over TLS to the metrics reader only', async () => {
  expect((await scrape()).status).toBe(401);
  const token = kubectl(['create', 'token', 'prometheus', '-n', ns]).stdout.trim();
  const scraped = await scrape(token);
  expect(scraped.status).toBe(200);
  expect(scraped.body).toMatch(/^controller_runtime_reconcile_total\{/m);
});

it('cannot write to its root file system, and never tried', () => {
  const write = run(
    ['exec', container!.name, 'node', '-e', "require('fs').writeFileSync('/app/written', 'x')"],
    {
      allowFail: true,
    },
  );
  expect(write.code).not.toBe(0);
  expect(write.stderr).toMatch(/EROFS|read-only file system/);
  expect(container!.logs()).not.toMatch(/EROFS|read-only file system/i);
});

it('has a bill of materials read from the image: Node.js, the OS packages, every dependency as installed', () => {
  const res = spawnSync(process.execPath, [join(ROOT, 'scripts/image/sbom.mjs'), IMAGE], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(res.stderr).toBe('');
  const bom = JSON.parse(res.stdout) as { components: { name: string; version: string; purl: string }[] };
  const purls = bom.components.map((c) => c.purl);
  expect(purls.filter((p) => p.startsWith('pkg:generic/node@'))).toHaveLength(1);
  expect(purls.filter((p) => /^pkg:(deb|apk)\//.test(p)).length).toBeGreaterThan(0);
  const project = JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(project.dependencies)) {
    const installed = run([
      'run',
      '--rm',
      '--entrypoint',
      'node',
      IMAGE,
      '-p',
      `require('/app/node_modules/${name}/package.json').version`,
    ]);
    const version = installed.stdout.trim();
    expect(bom.components.filter((c) => c.name === name).map((c) => c.version)).toContain(version);
  }
});

it('finalizes the samples on deletion, then stops within its grace period on SIGTERM', async () => {
  kubectl(['delete', '-n', ns, '-f', '-', '--wait=false'], { input: samplesYaml });
  for (const s of samples) {
    await waitFor(() => kubectl(['get', ref(s), '-n', ns], { allowFail: true }).code !== 0, {
      what: `${ref(s)} to be gone`,
      timeoutMs: 60_000,
    });
  }
  const leader = holder();
  // Three liveness probes at least (the kubelet's count before a restart), none failed.
  await waitFor(() => container!.liveness().probes >= 3, {
    what: 'three liveness probes',
    timeoutMs: 30_000,
  });
  expect(container!.liveness().failures).toEqual([]);
  expect(container!.state().Running).toBe(true);
  const { seconds, exitCode } = container!.stop();
  console.log(
    `${IMAGE}: stopped in ${seconds.toFixed(1)} s on SIGTERM (grace ${pod.graceSeconds} s), exit ${exitCode}`,
  );
  expect(exitCode).toBe(0);
  expect(seconds).toBeLessThan(pod.graceSeconds);
  // It let go of the Lease on the way out: a successor need not wait for it to expire.
  expect(holder()).not.toBe(leader);
});
