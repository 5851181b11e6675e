/**
 * `reconstruct controller`: the operator process. Flags have environment equivalents
 * (RECONSTRUCT_<FLAG>, e.g. RECONSTRUCT_WORKERS=4); flags win.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { builtinKinds } from '../constructs/builtin';
import { createLogger } from '../controller/log';
import {
  DEFAULT_SETTINGS,
  defaultLeaseName,
  runController,
  SettingsError,
  type ControllerSettings,
} from '../controller/runtime/run';
import { parseLabelSelector, type LabelSelector } from '../controller/runtime/label-selector';
import { KINDS_FLAGS, KINDS_HELP, KindsError, loadKinds } from './kinds';
import { KubeconfigError } from '../controller/kube/kubeconfig';

const CONTROLLER_HELP = `Usage: reconstruct controller [options]

Runs the operator against the cluster of the kubeconfig in effect (in-cluster service account,
KUBECONFIG, or ~/.kube/config): watches the custom resources of its kinds (built in:
${builtinKinds.map((k) => k.kind).join(', ')}), applies their children, prunes what they no longer
want, and reports status.

Options (environment variable in brackets):
  --kubeconfig PATH         kubeconfig file [KUBECONFIG]
  --namespaces A,B          namespaces to watch; default all [RECONSTRUCT_NAMESPACES]
  --watch-label-selector SELECTOR  only the resources it selects, and their children: a shard, as Flux's
                            controllers shard (e.g. sharding.fluxcd.io/key=shard1, and
                            '!sharding.fluxcd.io/key' for the instance that takes the rest); children carry
                            their resource's labels of the keys it names [RECONSTRUCT_WATCH_LABEL_SELECTOR]
  --workers N               concurrent reconciles (default 4) [RECONSTRUCT_WORKERS]
  --leader-elect            elect a leader through a Lease; off by default [RECONSTRUCT_LEADER_ELECT=true]
  --sharding                share the resources among the replicas: each holds a Lease of its own in
                            the lease namespace, and the leader assigns the resources to them by
                            consistent hashing; each reconciles and caches its own (implies leader
                            election) [RECONSTRUCT_SHARDING=true]
  --sharded-watch auto|on|off  with --sharding, how a member reads its share: on, the API server's sharded
                            list and watch of its hash ranges (Kubernetes 1.36+, feature gate
                            ShardedListAndWatch), children by a bucket label; off, a label the leader
                            writes on each resource; auto (default): on when served
                            [RECONSTRUCT_SHARDED_WATCH]
  --shard-ring NAME         the ring's name, in the labels of its Leases and resources (default: the
                            lease name) [RECONSTRUCT_SHARD_RING]
  --lease-name NAME         default reconstruct-controller, or with --watch-label-selector one of that
                            selector's own (reconstruct-controller-<hash>) [RECONSTRUCT_LEASE_NAME]
  --lease-namespace NS      default: the pod's namespace, else default [RECONSTRUCT_LEASE_NAMESPACE]
  --lease-duration SECONDS  how long a leader's lease lasts unrenewed (default 15) [RECONSTRUCT_LEASE_DURATION]
  --field-manager NAME      server-side apply field manager (default reconstruct) [RECONSTRUCT_FIELD_MANAGER]
  --metrics-addr HOST:PORT  /metrics (default 127.0.0.1:8080; "0" disables) [RECONSTRUCT_METRICS_ADDR]
  --metrics-secure BOOL     /metrics over TLS, each scrape's bearer token checked (TokenReview, then
                            SubjectAccessReview: get /metrics); default true unless --metrics-addr is
                            loopback [RECONSTRUCT_METRICS_SECURE]
  --metrics-cert-dir DIR    tls.crt and tls.key for it (default: self-signed at start) [RECONSTRUCT_METRICS_CERT_DIR]
  --health-addr HOST:PORT   /healthz and /readyz (default 127.0.0.1:8081) [RECONSTRUCT_HEALTH_ADDR]
  --webhook-addr HOST:PORT  the conversion webhook of kinds with several versions (default 127.0.0.1:9443;
                            "0" serves none) [RECONSTRUCT_WEBHOOK_ADDR]
  --webhook-service NS/NAME[:PORT]  the Service the API server calls it through (the install's); default:
                            https://127.0.0.1:<port>/convert, a local run [RECONSTRUCT_WEBHOOK_SERVICE]
  --webhook-url URL         or the URL it calls ({port}: the port bound; a URL with it is pointed back at
                            the Service at exit, one without is left) [RECONSTRUCT_WEBHOOK_URL]
  --webhook-cert-days DAYS  how long its serving certificates last (default 90; rotated with a third
                            left; the CA they share is in the Secret reconstruct-controller-webhook-ca) [RECONSTRUCT_WEBHOOK_CERT_DAYS]
  --webhook-cert-dir DIR    tls.crt and tls.key of the webhook, issued and rotated by someone else
                            (cert-manager); then it makes no CA and leaves the CRDs' caBundle alone [RECONSTRUCT_WEBHOOK_CERT_DIR]
  --webhook-check-interval SECONDS  how often it looks at them (default 60) [RECONSTRUCT_WEBHOOK_CHECK_INTERVAL]
  --resync SECONDS          periodic resync of every resource (default 36000, ten hours) [RECONSTRUCT_RESYNC]
  --shutdown-timeout SECONDS  bound on finishing in-flight work at SIGTERM (default 20)
  --rollout-max-in-flight N  for every kind with a revision: at most N resources moved to a new one
                            and not Ready again (default: the kind's, else 10) [RECONSTRUCT_ROLLOUT_MAX_IN_FLIGHT]
  --rollout-failure-threshold K  stop a rollout while K moved resources are not Ready past the deadline
                            (default: the kind's, else 3) [RECONSTRUCT_ROLLOUT_FAILURE_THRESHOLD]
  --rollout-progress-deadline SECONDS  how long a moved resource may take to be Ready again (default: the
                            kind's, else 600) [RECONSTRUCT_ROLLOUT_PROGRESS_DEADLINE]
  --otlp-endpoint URL       send traces of every reconcile over OTLP/HTTP to URL/v1/traces (an
                            OpenTelemetry Collector: http://collector:4318); off by default. The
                            standard OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_TRACES_SAMPLER,
                            OTEL_SERVICE_NAME, ... work too [RECONSTRUCT_OTLP_ENDPOINT]
  --trace-sampling RATIO    the share of reconciles traced, 0 to 1 (default: OTEL_TRACES_SAMPLER, else 1)
                            [RECONSTRUCT_TRACE_SAMPLING]
  --log-level LEVEL         debug, info, warn or error (default info) [RECONSTRUCT_LOG_LEVEL]
  --log-format FORMAT       json or text (default: text on a terminal, else json) [RECONSTRUCT_LOG_FORMAT]
  The API server is spoken to over HTTP/2 where it offers it, else HTTP/1.1; DISABLE_HTTP2 (non-empty, as
  in client-go) keeps HTTP/1.1.
${KINDS_HELP}
  -h, --help                show this help
`;

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

const FLAGS = {
  kubeconfig: { type: 'string' },
  namespaces: { type: 'string' },
  workers: { type: 'string' },
  'leader-elect': { type: 'boolean' },
  'lease-name': { type: 'string' },
  'watch-label-selector': { type: 'string' },
  sharding: { type: 'boolean' },
  'shard-ring': { type: 'string' },
  'sharded-watch': { type: 'string' },
  'lease-namespace': { type: 'string' },
  'lease-duration': { type: 'string' },
  'field-manager': { type: 'string' },
  'metrics-addr': { type: 'string' },
  'health-addr': { type: 'string' },
  'metrics-secure': { type: 'string' },
  'metrics-cert-dir': { type: 'string' },
  'webhook-addr': { type: 'string' },
  'webhook-service': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-cert-days': { type: 'string' },
  'webhook-cert-dir': { type: 'string' },
  'webhook-check-interval': { type: 'string' },
  resync: { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'rollout-max-in-flight': { type: 'string' },
  'rollout-failure-threshold': { type: 'string' },
  'rollout-progress-deadline': { type: 'string' },
  'otlp-endpoint': { type: 'string' },
  'trace-sampling': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...KINDS_FLAGS,
} as const;

function podNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

interface Settings extends ControllerSettings {
  /** --kinds modules. */
  kindModules: string[];
  builtinKinds: boolean;
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
  const count = (flag: keyof typeof FLAGS): number | undefined => {
    const text = pick(flag);
    if (text === undefined) return undefined;
    if (!/^[1-9][0-9]*$/.test(text))
      throw new Error(`--${flag}: "${text}" is not a whole number of at least 1`);
    return Number(text);
  };
  const rollout = {
    maxInFlight: count('rollout-max-in-flight'),
    failureThreshold: count('rollout-failure-threshold'),
    progressDeadlineSeconds: count('rollout-progress-deadline'),
  };
  const ring = pick('shard-ring');
  if (ring !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/.test(ring))
    throw new Error(
      `--shard-ring: "${ring}" must be at most 63 lowercase letters, digits, '-' and '.' (it ends a label key)`,
    );
  let selector: LabelSelector | undefined;
  const selectorText = pick('watch-label-selector');
  if (selectorText !== undefined) {
    try {
      selector = parseLabelSelector(selectorText);
    } catch (err) {
      throw new Error(`--watch-label-selector: ${(err as Error).message}`);
    }
  }
  const tracing = {
    ...(pick('otlp-endpoint') ? { endpoint: urlOf('otlp-endpoint', pick('otlp-endpoint')!) } : {}),
    ...(pick('trace-sampling') !== undefined
      ? { sampleRatio: ratioOf('trace-sampling', pick('trace-sampling')!) }
      : {}),
  };
  const oneOf = <T extends string>(flag: keyof typeof FLAGS, allowed: readonly T[], fallback: T): T => {
    const text = pick(flag) ?? fallback;
    if (!allowed.includes(text as T))
      throw new Error(`--${flag}: "${text}" is not one of ${allowed.join(', ')}`);
    return text as T;
  };
  return {
    kindModules: values.kinds ?? [],
    builtinKinds: !values['no-builtin-kinds'],
    kubeconfig: pick('kubeconfig'),
    namespaces: (pick('namespaces') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    workers: Math.floor(positive('workers', DEFAULT_SETTINGS.workers)),
    leaderElect: ['true', '1', 'yes'].includes(String(pick('leader-elect') ?? 'false').toLowerCase()),
    ...(selector ? { watchLabelSelector: selector.text } : {}),
    ...(['true', '1', 'yes'].includes(String(pick('sharding') ?? 'false').toLowerCase())
      ? { sharding: true }
      : {}),
    ...(ring !== undefined ? { shardRing: ring } : {}),
    ...(pick('sharded-watch') !== undefined
      ? { shardedWatch: oneOf('sharded-watch', ['auto', 'on', 'off'] as const, 'auto') }
      : {}),
    leaseName: pick('lease-name') ?? defaultLeaseName(selector?.text),
    leaseNamespace: pick('lease-namespace') ?? podNamespace() ?? DEFAULT_SETTINGS.leaseNamespace,
    leaseDurationMs: positive('lease-duration', DEFAULT_SETTINGS.leaseDurationMs / 1000) * 1000,
    fieldManager: pick('field-manager') ?? DEFAULT_SETTINGS.fieldManager,
    metricsAddr: pick('metrics-addr') ?? DEFAULT_SETTINGS.metricsAddr,
    ...(pick('metrics-secure') !== undefined
      ? { metricsSecure: oneOf('metrics-secure', ['true', 'false'] as const, 'true') === 'true' }
      : {}),
    ...(pick('metrics-cert-dir') !== undefined ? { metricsCertDir: pick('metrics-cert-dir') } : {}),
    healthAddr: pick('health-addr') ?? DEFAULT_SETTINGS.healthAddr,
    webhookAddr: pick('webhook-addr') ?? DEFAULT_SETTINGS.webhookAddr,
    ...(pick('webhook-service') !== undefined ? { webhookService: pick('webhook-service') } : {}),
    ...(pick('webhook-url') !== undefined ? { webhookUrl: pick('webhook-url') } : {}),
    ...(pick('webhook-cert-dir') !== undefined ? { webhookCertDir: pick('webhook-cert-dir') } : {}),
    ...(pick('webhook-cert-days') !== undefined
      ? { webhookCertDays: positive('webhook-cert-days', 90) }
      : {}),
    ...(pick('webhook-check-interval') !== undefined
      ? { webhookCheckMs: positive('webhook-check-interval', 60) * 1000 }
      : {}),
    resyncMs: positive('resync', DEFAULT_SETTINGS.resyncMs / 1000) * 1000,
    shutdownMs: positive('shutdown-timeout', DEFAULT_SETTINGS.shutdownMs / 1000) * 1000,
    ...(Object.values(rollout).some((v) => v !== undefined) ? { rollout } : {}),
    ...(Object.keys(tracing).length > 0 ? { tracing } : {}),
    logLevel: oneOf('log-level', ['debug', 'info', 'warn', 'error'] as const, DEFAULT_SETTINGS.logLevel),
    logFormat: oneOf('log-format', ['json', 'text'] as const, process.stderr.isTTY ? 'text' : 'json'),
  };
}

function urlOf(flag: string, text: string): string {
  if (!/^https?:\/\/[^/\s]+/.test(text))
    throw new Error(`--${flag}: "${text}" is not an http(s) URL (e.g. http://otel-collector:4318)`);
  return text;
}

function ratioOf(flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new Error(`--${flag}: "${text}" is not a number from 0 to 1`);
  return n;
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
  let kinds;
  try {
    kinds = await loadKinds({ modules: settings.kindModules, builtin: settings.builtinKinds });
  } catch (err) {
    if (!(err instanceof KindsError)) throw err;
    process.stderr.write(`reconstruct controller: ${err.message}\n`);
    return 2;
  }
  try {
    // The serving thread loads the same kinds again, to convert off the main thread.
    const kindsFrom = {
      modules: settings.kindModules.map((m) => resolve(m)),
      builtin: settings.builtinKinds,
    };
    return await runController(kinds, { ...settings, kindsFrom, log });
  } catch (err) {
    if (err instanceof KubeconfigError || err instanceof SettingsError) {
      process.stderr.write(`reconstruct controller: ${err.message}\n`);
      return 2;
    }
    log.error('controller failed', {
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    return 1;
  }
}
