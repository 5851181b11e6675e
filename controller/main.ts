/**
 * `reconstruct controller`: the operator process. Flags have environment equivalents
 * (RECONSTRUCT_<FLAG>, e.g. RECONSTRUCT_WORKERS=4); flags win.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { LeaderElector } from './leader';
import { loadClient } from './kube/client';
import { createLogger, type Logger } from './log';
import { Manager } from './manager';
import { Metrics } from './metrics';
import { HealthServer } from './server';

export const CONTROLLER_HELP = `Usage: reconstruct controller [options]

Runs the operator against the cluster of the kubeconfig in effect (in-cluster service account,
KUBECONFIG, or ~/.kube/config): watches Memcached, NodePool, DatabaseManager and Balancer resources,
applies their children, prunes what they no longer want, and reports status.

Options (environment variable in brackets):
  --kubeconfig PATH         kubeconfig file [KUBECONFIG]
  --namespaces A,B          namespaces to watch; default all [RECONSTRUCT_NAMESPACES]
  --workers N               concurrent reconciles (default 4) [RECONSTRUCT_WORKERS]
  --leader-elect            elect a leader through a Lease; off by default [RECONSTRUCT_LEADER_ELECT=true]
  --lease-name NAME         default reconstruct-controller [RECONSTRUCT_LEASE_NAME]
  --lease-namespace NS      default: the pod's namespace, else default [RECONSTRUCT_LEASE_NAMESPACE]
  --lease-duration SECONDS  how long a leader's lease lasts unrenewed (default 15) [RECONSTRUCT_LEASE_DURATION]
  --field-manager NAME      server-side apply field manager (default reconstruct) [RECONSTRUCT_FIELD_MANAGER]
  --metrics-addr HOST:PORT  /metrics (default 127.0.0.1:8080; "0" disables) [RECONSTRUCT_METRICS_ADDR]
  --health-addr HOST:PORT   /healthz and /readyz (default 127.0.0.1:8081) [RECONSTRUCT_HEALTH_ADDR]
  --resync SECONDS          periodic resync of every resource (default 600) [RECONSTRUCT_RESYNC]
  --shutdown-timeout SECONDS  bound on finishing in-flight work at SIGTERM (default 20)
  --log-level LEVEL         debug, info, warn or error (default info) [RECONSTRUCT_LOG_LEVEL]
  --log-format FORMAT       json or text (default: text on a terminal, else json) [RECONSTRUCT_LOG_FORMAT]
  -h, --help                show this help
`;

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

interface Settings {
  kubeconfig?: string;
  namespaces: string[];
  workers: number;
  leaderElect: boolean;
  leaseName: string;
  leaseNamespace: string;
  leaseDurationMs: number;
  fieldManager: string;
  metricsAddr: string;
  healthAddr: string;
  resyncMs: number;
  shutdownMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  logFormat: 'json' | 'text';
}

const FLAGS = {
  kubeconfig: { type: 'string' },
  namespaces: { type: 'string' },
  workers: { type: 'string' },
  'leader-elect': { type: 'boolean' },
  'lease-name': { type: 'string' },
  'lease-namespace': { type: 'string' },
  'lease-duration': { type: 'string' },
  'field-manager': { type: 'string' },
  'metrics-addr': { type: 'string' },
  'health-addr': { type: 'string' },
  resync: { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function podNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Flags, then RECONSTRUCT_* variables, then defaults. Throws a message naming the bad setting. */
export function parseSettings(argv: string[], env: NodeJS.ProcessEnv): Settings | 'help' {
  const { values } = parseArgs({ args: argv, options: FLAGS, allowPositionals: false });
  if (values.help) return 'help';
  const pick = (flag: keyof typeof FLAGS): string | undefined => {
    const value = values[flag];
    if (value !== undefined) return String(value);
    return env[`RECONSTRUCT_${flag.toUpperCase().replace(/-/g, '_')}`];
  };
  const positive = (flag: keyof typeof FLAGS, fallback: number): number => {
    const text = pick(flag);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${flag}: "${text}" is not a positive number`);
    return n;
  };
  const oneOf = <T extends string>(flag: keyof typeof FLAGS, allowed: readonly T[], fallback: T): T => {
    const text = pick(flag) ?? fallback;
    if (!allowed.includes(text as T))
      throw new Error(`--${flag}: "${text}" is not one of ${allowed.join(', ')}`);
    return text as T;
  };
  return {
    kubeconfig: pick('kubeconfig'),
    namespaces: (pick('namespaces') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    workers: Math.floor(positive('workers', 4)),
    leaderElect: ['true', '1', 'yes'].includes(String(pick('leader-elect') ?? 'false').toLowerCase()),
    leaseName: pick('lease-name') ?? 'reconstruct-controller',
    leaseNamespace: pick('lease-namespace') ?? podNamespace() ?? 'default',
    leaseDurationMs: positive('lease-duration', 15) * 1000,
    fieldManager: pick('field-manager') ?? 'reconstruct',
    metricsAddr: pick('metrics-addr') ?? '127.0.0.1:8080',
    healthAddr: pick('health-addr') ?? '127.0.0.1:8081',
    resyncMs: positive('resync', 600) * 1000,
    shutdownMs: positive('shutdown-timeout', 20) * 1000,
    logLevel: oneOf('log-level', ['debug', 'info', 'warn', 'error'] as const, 'info'),
    logFormat: oneOf('log-format', ['json', 'text'] as const, process.stderr.isTTY ? 'text' : 'json'),
  };
}

function withTimeout(promise: Promise<unknown>, ms: number): Promise<'done' | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  return Promise.race([promise.then(() => 'done' as const), timeout]).finally(() => clearTimeout(timer));
}

async function run(settings: Settings, log: Logger): Promise<number> {
  const metrics = new Metrics();
  const client = loadClient({ kubeconfig: settings.kubeconfig, userAgent: 'reconstruct-controller' });
  client.onRequest = (verb, code, seconds) => metrics.apiRequest(verb, code, seconds);
  const manager = new Manager(client, settings, log, metrics);

  const servers: HealthServer[] = [];
  const health = new HealthServer({ ready: () => manager.hasSynced(), metrics: () => metrics.render() });
  await health.listen(settings.healthAddr);
  servers.push(health);
  if (settings.metricsAddr !== '0' && settings.metricsAddr !== settings.healthAddr) {
    const metricsServer = new HealthServer({
      ready: () => manager.hasSynced(),
      metrics: () => metrics.render(),
    });
    await metricsServer.listen(settings.metricsAddr);
    servers.push(metricsServer);
  }

  manager.start();
  const identity = `${hostname()}_${randomBytes(4).toString('hex')}`;
  const elector = settings.leaderElect
    ? new LeaderElector(
        client,
        {
          namespace: settings.leaseNamespace,
          name: settings.leaseName,
          identity,
          // client-go's proportions: renew within 2/3 of the lease, retry every 2/15 of it.
          leaseDurationMs: settings.leaseDurationMs,
          renewDeadlineMs: (settings.leaseDurationMs * 2) / 3,
          retryPeriodMs: (settings.leaseDurationMs * 2) / 15,
        },
        log,
      )
    : undefined;

  let working: Promise<void> | undefined;
  const startWorking = () => {
    working ??= manager.waitForSync().then(() => {
      log.info('caches synced; reconciling', { workers: settings.workers });
      return manager.run();
    });
  };

  let lostLease = false;
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
    if (elector) {
      void elector.run({
        onStartedLeading: () => {
          log.info('became leader', { lease: `${settings.leaseNamespace}/${settings.leaseName}`, identity });
          startWorking();
        },
        onStoppedLeading: () => {
          lostLease = true;
          resolve('lost the lease');
        },
      });
    } else {
      startWorking();
    }
  });

  const reason = await stopped;
  log.info('shutting down', { reason });
  manager.stopWorkers();
  const deadline = Date.now() + settings.shutdownMs;
  if (working && (await withTimeout(working, settings.shutdownMs)) === 'timeout') {
    log.warn('in-flight reconciles did not finish in time', { timeoutSeconds: settings.shutdownMs / 1000 });
  }
  // What the last reconciles had to say; within the same bound.
  if ((await withTimeout(manager.drainEvents(), Math.max(0, deadline - Date.now()))) === 'timeout') {
    log.warn('events still waiting at shutdown were not sent');
  }
  if (elector) await elector.release();
  await manager.stop();
  await Promise.all(servers.map((s) => s.close()));
  // Losing the lease without being asked to stop is a failure: the Deployment restarts us as a standby.
  return lostLease ? 1 : 0;
}

/** `reconstruct controller`: returns the exit status. */
export async function controllerCommand(argv: string[]): Promise<number> {
  let settings: Settings | 'help';
  try {
    settings = parseSettings(argv, process.env);
  } catch (err) {
    process.stderr.write(`reconstruct controller: ${(err as Error).message}\n\n${CONTROLLER_HELP}`);
    return 2;
  }
  if (settings === 'help') {
    process.stdout.write(CONTROLLER_HELP);
    return 0;
  }
  const log = createLogger({ level: settings.logLevel, format: settings.logFormat });
  try {
    return await run(settings, log);
  } catch (err) {
    log.error('controller failed', {
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    return 1;
  }
}
