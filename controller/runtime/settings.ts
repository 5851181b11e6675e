/**
 * The controller's settings (`runController`'s options; `reconstruct controller` parses its flags into
 * them), their defaults, and the default Lease name of a shard.
 */
import { createHash } from 'node:crypto';
import type { RolloutOptions } from '../../constructs/kit';
import type { Logger } from '../log';
import type { KindSources } from '../serving/messages';
import type { TracingSettings } from '../tracing/setup';

/** The controller's settings; each has a command-line flag (see `reconstruct controller --help`). */
export interface ControllerSettings {
  kubeconfig?: string;
  namespaces: string[];
  workers: number;
  leaderElect: boolean;
  leaseName: string;
  leaseNamespace: string;
  leaseDurationMs: number;
  fieldManager: string;
  metricsAddr: string;
  /**
   * /metrics over TLS, each scrape's bearer token checked by a TokenReview and a SubjectAccessReview.
   * @default - true unless metricsAddr is a loopback address (a local run)
   */
  metricsSecure?: boolean;
  /**
   * A folder holding the metrics server's `tls.crt` and `tls.key` (a cert-manager Secret, mounted).
   * @default - a self-signed certificate made at start, as controller-runtime's
   */
  metricsCertDir?: string;
  healthAddr: string;
  /**
   * Where the conversion webhook of the kinds with several versions listens; "0" serves none (the API
   * server then cannot read or write their other versions).
   */
  webhookAddr: string;
  /**
   * Where the API server calls it: a Service `namespace/name` in front of the replicas (the install's), or
   * else a URL.
   * @default - https://127.0.0.1:<the port bound>/convert: a local run, the API server on the same host
   */
  webhookService?: string;
  webhookUrl?: string;
  /** How long its serving certificates last, in days (rotated when a third is left). @default 90 */
  webhookCertDays?: number;
  /** tls.crt and tls.key issued and rotated by someone else (cert-manager): see ConversionWebhookOptions. */
  webhookCertDir?: string;
  /** How often it looks at its certificate and the shared CA. @default 60 s */
  webhookCheckMs?: number;
  resyncMs: number;
  shutdownMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  logFormat: 'json' | 'text';
  /** Rollout settings that override every kind's (`--rollout-*`; see RolloutOptions). */
  rollout?: RolloutOptions;
  /**
   * Only the resources this label selector selects, and their children (which carry their resource's
   * labels of the keys it names): one shard of several controllers, each with a selector and a Lease of
   * its own. @default - every resource
   */
  watchLabelSelector?: string;
  /**
   * Share the resources among the replicas (controller/sharding): each a member of the ring through a
   * Lease of its own, the ring's leader (the holder of `leaseName`) assigning resources to members by
   * consistent hashing, each member reconciling and caching only its own.
   */
  sharding?: boolean;
  /**
   * How members read their share (resources are placed by their uid either way). `on`: the API server's
   * sharded list and watch (KEP-5866) of the member's hash ranges, and its children by the bucket label
   * each carries; nothing is written to move a resource. `off`: a label the ring's leader writes on each
   * resource, copied onto its children. `auto`: `on` when the API server serves it. @default 'auto'
   */
  shardedWatch?: 'auto' | 'on' | 'off';
  /** The ring's name, in the labels of its Leases and resources. @default - leaseName */
  shardRing?: string;
  /**
   * Traces of the reconciles over OTLP (controller/tracing/setup.ts): on with an endpoint here or in the
   * OTEL_* variables. @default - the OTEL_* variables say; off when they say nothing
   */
  tracing?: TracingSettings;
  /** @default - a logger of logLevel and logFormat on standard error */
  log?: Logger;
  /**
   * The modules the kinds come from (as `--kinds` takes them, absolute paths, and whether the built-in
   * kinds are among them): the serving thread loads them again and converts there, off the main thread.
   * `reconstruct controller` sets it from its flags.
   * @default - conversions on the main thread (kinds given as objects)
   */
  kindsFrom?: KindSources;
}

export const DEFAULT_SETTINGS: ControllerSettings = {
  namespaces: [],
  workers: 4,
  leaderElect: false,
  leaseName: 'reconstruct-controller',
  leaseNamespace: 'default',
  leaseDurationMs: 15_000,
  fieldManager: 'reconstruct',
  metricsAddr: '127.0.0.1:8080',
  healthAddr: '127.0.0.1:8081',
  webhookAddr: '127.0.0.1:9443',
  resyncMs: 36_000_000, // ten hours, as controller-runtime: watches bring every change; see DESIGN.md
  shutdownMs: 20_000,
  logLevel: 'info',
  logFormat: 'json',
};

/**
 * The Lease of a controller with `selector`: one of its own (static shards each elect their leader), named
 * by a hash of the selector so that every replica of the shard finds the same; else the default.
 */
export function defaultLeaseName(selector?: string): string {
  if (!selector) return DEFAULT_SETTINGS.leaseName;
  return `${DEFAULT_SETTINGS.leaseName}-${createHash('sha256').update(selector.trim()).digest('hex').slice(0, 10)}`;
}
