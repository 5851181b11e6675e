/**
 * Runs an operator image the way the kubelet would run the install's Deployment, with a container engine
 * (podman or docker) against the local control plane, which has no kubelet of its own (kwok fakes the
 * nodes). Everything is taken from the rendered install manifest, not written twice: the container's
 * arguments, environment, ports, probes, memory limit, security context and grace period, the pod's
 * user and ServiceAccount. What a pod gets from the kubelet, this gives it too:
 *
 * - the ServiceAccount's token (TokenRequest), the cluster's CA and the namespace, mounted read-only at
 *   /var/run/secrets/kubernetes.io/serviceaccount, and KUBERNETES_SERVICE_HOST/_PORT;
 * - uid and gid from the pod's securityContext, a read-only root file system, no capabilities, no
 *   privilege escalation, the engine's default seccomp profile (RuntimeDefault);
 * - the liveness probe, polled as the kubelet polls it after its initialDelaySeconds (every 500 ms here,
 *   not every periodSeconds: stricter);
 * - SIGTERM on stop, then SIGKILL after terminationGracePeriodSeconds.
 *
 * The container shares the host's network (the control plane listens on 127.0.0.1 only, and this
 * machine's engine has no bridge network), so the install's ports must be free on the host.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kubectl } from '../support/kubectl';

/** What the test reads from the install's Deployment. */
export interface PodSpecOfInstall {
  namespace: string;
  serviceAccount: string;
  image: string;
  args: string[];
  env: { name: string; value: string }[];
  ports: Record<string, number>;
  liveness: Probe;
  readiness: Probe;
  runAsUser: number;
  runAsGroup: number;
  readOnlyRootFilesystem: boolean;
  dropsAllCapabilities: boolean;
  memoryLimit?: string;
  graceSeconds: number;
}

export interface Probe {
  path: string;
  port: number;
  initialDelaySeconds: number;
}

interface Container {
  image: string;
  args?: string[];
  env?: { name: string; value?: string }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string | number }; initialDelaySeconds?: number };
  readinessProbe: { httpGet: { path: string; port: string | number }; initialDelaySeconds?: number };
  resources?: { limits?: { memory?: string } };
  securityContext?: {
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
}

interface Deployment extends YamlDocument {
  kind: 'Deployment';
  metadata: { name: string; namespace: string };
  spec: {
    template: {
      spec: {
        serviceAccountName: string;
        securityContext?: { runAsUser?: number; runAsGroup?: number };
        terminationGracePeriodSeconds?: number;
        containers: Container[];
      };
    };
  };
}

interface YamlDocument {
  kind: string;
  metadata: { name: string };
}

/** The documents of a multi-document YAML stream, empty ones left out, as the caller knows them to be. */
export function documents<T extends YamlDocument = YamlDocument>(yaml: string): T[] {
  return yaml
    .split(/^---$/m)
    .map((doc) => parse(doc) as T | null)
    .filter((doc): doc is T => !!doc);
}

/** The pod the install's (only) Deployment would make. */
export function podOfInstall(installYaml: string): PodSpecOfInstall {
  const deployments = documents<YamlDocument | Deployment>(installYaml).filter(
    (d): d is Deployment => d.kind === 'Deployment',
  );
  if (deployments.length !== 1)
    throw new Error(`expected one Deployment in the install, found ${deployments.length}`);
  const [deployment] = deployments;
  const pod = deployment.spec.template.spec;
  if (pod.containers.length !== 1) throw new Error(`expected one container, found ${pod.containers.length}`);
  const [c] = pod.containers;
  const ports = Object.fromEntries((c.ports ?? []).map((p) => [p.name, p.containerPort]));
  const probe = (p: Container['livenessProbe']): Probe => ({
    path: p.httpGet.path,
    port: typeof p.httpGet.port === 'number' ? p.httpGet.port : ports[p.httpGet.port],
    initialDelaySeconds: p.initialDelaySeconds ?? 0,
  });
  for (const e of c.env ?? []) {
    if (e.value === undefined) throw new Error(`env ${e.name}: only plain values are supported here`);
  }
  return {
    namespace: deployment.metadata.namespace,
    serviceAccount: pod.serviceAccountName,
    image: c.image,
    args: c.args ?? [],
    env: (c.env ?? []).map((e) => ({ name: e.name, value: e.value ?? '' })),
    ports,
    liveness: probe(c.livenessProbe),
    readiness: probe(c.readinessProbe),
    runAsUser: pod.securityContext?.runAsUser ?? 0,
    runAsGroup: pod.securityContext?.runAsGroup ?? 0,
    readOnlyRootFilesystem: c.securityContext?.readOnlyRootFilesystem === true,
    dropsAllCapabilities: c.securityContext?.capabilities?.drop?.includes('ALL') === true,
    memoryLimit: c.resources?.limits?.memory,
    graceSeconds: pod.terminationGracePeriodSeconds ?? 30,
  };
}

/** The container engine: RECONSTRUCT_IMAGE_ENGINE, else podman, else docker. */
export function engine(): string {
  const chosen = process.env.RECONSTRUCT_IMAGE_ENGINE;
  if (chosen) return chosen;
  for (const candidate of ['podman', 'docker']) {
    if (spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  throw new Error('no container engine: install podman (apt-get install podman runc) or docker');
}

/** Runs the engine; throws with its output on failure. */
export function run(args: string[], opts: { allowFail?: boolean; timeoutMs?: number } = {}) {
  const res = spawnSync(engine(), args, { encoding: 'utf8', timeout: opts.timeoutMs ?? 120_000 });
  const result = { stdout: res.stdout ?? '', stderr: res.stderr ?? '', code: res.status ?? 1 };
  if (res.error) throw new Error(`${engine()} ${args.join(' ')}: ${res.error.message}`);
  if (result.code !== 0 && !opts.allowFail) {
    throw new Error(`${engine()} ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  return result;
}

/** Whether the engine holds the image; the message says how to build it when it does not. */
export function requireImage(image: string): void {
  if (run(['image', 'inspect', image], { allowFail: true }).code !== 0) {
    throw new Error(
      `the image ${image} is not built: run \`npm run image\` (or npm run test:image, which builds it)`,
    );
  }
}

/** Fails when a port the pod would listen on is taken on the host (the container shares its network). */
export async function requireFreePort(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err) =>
      reject(
        new Error(
          `port ${port} is taken on this host; the image test runs the container on the host's network`,
          { cause: err },
        ),
      ),
    );
    server.listen(port, '0.0.0.0', () => server.close(() => resolve()));
  });
}

/** The API server's address and CA, from the kubeconfig the tests use. */
function apiServer(): { host: string; port: string; ca: string } {
  const file = process.env.KUBECONFIG;
  if (!file) throw new Error('KUBECONFIG is not set: run through scripts/cluster/with-cluster.sh');
  const config = parse(readFileSync(file, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  };
  const { server, 'certificate-authority-data': caData } = config.clusters[0].cluster;
  const url = new URL(server);
  return { host: url.hostname, port: url.port || '443', ca: Buffer.from(caData, 'base64').toString('utf8') };
}

/** What the engine's inspect says of a container's state (podman and docker agree on these). */
interface ContainerState {
  Running: boolean;
  ExitCode: number;
  Pid: number;
  OOMKilled: boolean;
}

/** A pod-like container of the image, started; stop() sends SIGTERM as the kubelet does. */
export class PodLikeContainer {
  readonly name: string;
  private readonly secrets: string;
  private readonly probeLog: string;
  private prober?: ChildProcess;
  readonly startedAt = Date.now();

  constructor(
    readonly pod: PodSpecOfInstall,
    name: string,
  ) {
    this.name = name;
    this.secrets = mkdtempSync(join(tmpdir(), 'reconstruct-sa-'));
    this.probeLog = join(this.secrets, 'liveness.log');
  }

  /** Mounts the ServiceAccount's token, CA and namespace and starts the container. */
  start(): void {
    const { pod } = this;
    const api = apiServer();
    const token = kubectl([
      'create',
      'token',
      pod.serviceAccount,
      '-n',
      pod.namespace,
      '--duration=1h',
    ]).stdout.trim();
    writeFileSync(join(this.secrets, 'token'), token);
    writeFileSync(join(this.secrets, 'ca.crt'), api.ca);
    writeFileSync(join(this.secrets, 'namespace'), pod.namespace);
    // Readable by the pod's user, as the kubelet's projected volume is (mode 0644).
    chmodSync(this.secrets, 0o755);
    for (const f of ['token', 'ca.crt', 'namespace']) chmodSync(join(this.secrets, f), 0o644);
    run([
      'run',
      '--detach',
      '--name',
      this.name,
      '--network=host',
      `--user=${pod.runAsUser}:${pod.runAsGroup}`,
      ...(pod.readOnlyRootFilesystem ? ['--read-only'] : []),
      ...(pod.dropsAllCapabilities ? ['--cap-drop=ALL'] : []),
      '--security-opt=no-new-privileges',
      ...(pod.memoryLimit ? [`--memory=${pod.memoryLimit.replace(/i$/, '').toLowerCase()}`] : []),
      `--volume=${this.secrets}:/var/run/secrets/kubernetes.io/serviceaccount:ro`,
      `--env=KUBERNETES_SERVICE_HOST=${api.host}`,
      `--env=KUBERNETES_SERVICE_PORT=${api.port}`,
      ...pod.env.map((e) => `--env=${e.name}=${e.value}`),
      pod.image,
      ...pod.args,
    ]);
    const { port, path, initialDelaySeconds } = pod.liveness;
    this.prober = spawn(
      process.execPath,
      ['-e', PROBER, String(port), path, String(initialDelaySeconds * 1000), this.probeLog],
      {
        stdio: 'ignore',
      },
    );
  }

  /**
   * The liveness probes so far: how many ran and which failed (the kubelet restarts a container after
   * three failures in a row; any failure fails the test). They run in a process of their own, so that the
   * test's synchronous calls (kubectl, the engine) do not hold them up.
   */
  liveness(): { probes: number; failures: string[] } {
    let lines: string[] = [];
    try {
      lines = readFileSync(this.probeLog, 'utf8').split('\n').filter(Boolean);
    } catch {
      // no probe yet
    }
    return { probes: lines.length, failures: lines.filter((l) => !l.endsWith(' 200')) };
  }

  /** The container's state as the engine reports it. */
  state(): ContainerState {
    return JSON.parse(run(['inspect', '--format', '{{json .State}}', this.name]).stdout) as ContainerState;
  }

  logs(): string {
    const res = run(['logs', this.name], { allowFail: true });
    return res.stdout + res.stderr;
  }

  /** VmRSS and VmHWM of the container's main process, in MiB (read from the host's /proc). */
  memory(): { rssMiB: number; peakMiB: number } {
    const status = readFileSync(`/proc/${this.state().Pid}/status`, 'utf8');
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
  }

  /** SIGTERM, then SIGKILL after the grace period, as the kubelet stops a container; how long it took. */
  stop(): { seconds: number; exitCode: number } {
    this.prober?.kill();
    const started = Date.now();
    run(['stop', '--time', String(this.pod.graceSeconds), this.name], {
      timeoutMs: (this.pod.graceSeconds + 30) * 1000,
    });
    return { seconds: (Date.now() - started) / 1000, exitCode: this.state().ExitCode };
  }

  remove(): void {
    this.prober?.kill();
    run(['rm', '--force', this.name], { allowFail: true });
    rmSync(this.secrets, { recursive: true, force: true });
  }
}

/** Polls GET http://127.0.0.1:PORT/PATH every 500 ms after the initial delay; a line per probe to LOG. */
const PROBER = `
const [port, path, delay, log] = process.argv.slice(1);
const http = require('http'), fs = require('fs');
setTimeout(function probe() {
  const at = new Date().toISOString();
  const done = (status) => { fs.appendFileSync(log, at + ' ' + path + ' ' + status + '\\n'); setTimeout(probe, 500); };
  const req = http.get({ host: '127.0.0.1', port: Number(port), path, timeout: 2000 }, (res) => { res.resume(); done(res.statusCode); });
  req.on('timeout', () => req.destroy());
  req.on('error', (err) => done(err.code || 'error'));
}, Number(delay));
`;

/** The HTTP status of GET http://127.0.0.1:PORT/PATH, or 0 when nothing answers within 2 s. */
export function httpStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}
