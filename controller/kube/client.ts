/**
 * The controller's only door to the API server: KubeClient, and loadClient() to make one from the
 * kubeconfig. The requests are ./http's, the watch streams ./watch's, the errors ./errors'; the
 * kubeconfig is read by ./kubeconfig, and `@kubernetes/client-node` is loaded only for users whose
 * credentials come from an `exec` plugin or an `auth-provider`. See docs/CLIENT.md for why the HTTP and
 * the kubeconfig reader are ours.
 *
 * client-node 1.x is ESM-only. The controller runs as CommonJS, which loads it through Node's
 * require(esm) (Node >= 20.19), but Jest cannot. So it is loaded lazily, in loadClient(), and this
 * module stays importable by unit tests (createClient against a fake server).
 */
import type * as https from 'node:https';
import type * as k8s from '@kubernetes/client-node';
import { HttpClient, type KubeRequest, type Verb } from './http';
import {
  impersonationHeaders,
  type Kubeconfig,
  kubeconfigTransport,
  readKubeconfig,
  refreshing,
} from './kubeconfig';
import type { Transport } from './transport';
import type { ConnectionStats, Protocol } from './http2';
import { watch, type WatchEvent } from './watch';

export interface KubeClient {
  /** JSON request; resolves the parsed body, throws ApiError for non-2xx (and for network errors: status 0). */
  request<T = unknown>(req: KubeRequest): Promise<T>;
  /** Streams a watch: yields each parsed watch event ({type, object}) as it arrives; ends when the server closes; throws on abort/errors. */
  watch(req: KubeRequest): AsyncIterable<WatchEvent>;
  /**
   * Called after every request with its verb (derived from method + whether it is a list/watch), HTTP status
   * code, seconds, the request, and the error it failed with (an ApiError), if it did.
   */
  onRequest?: (verb: Verb, code: number, seconds: number, req: KubeRequest, error?: unknown) => void;
  /** The API server's host:port, when known (for metrics labels). */
  readonly host?: string;
  /**
   * Called when a connection was found dead without a word (a watch past its deadline): the others are
   * likely dead too. Closes the idle keep-alive connections, so that the next requests open fresh ones,
   * and fails the requests (not watches) that have waited for an answer longer than `stalledMs` (default
   * 5 s) with a network error, which their callers retry, instead of letting them wait for their timeout.
   * Over HTTP/2, also ends the connections whose last `ping` went unanswered: what an HTTP/2 health
   * ping failure does to client-go's requests.
   */
  resetStalled?(stalledMs?: number): void;
  /**
   * Sends a PING frame on each HTTP/2 connection: true when every one answered within `timeoutMs`, false
   * when one did not (resetStalled then ends it). Undefined where there is nothing to ping (HTTP/1.1, or
   * no connection open yet): ask the server something instead.
   */
  ping?(timeoutMs: number): Promise<boolean> | undefined;
  /** The protocol the server chose (`h2` or `http/1.1`), once a connection was made. */
  readonly protocol?: Protocol;
  /** The connections open now, each with the requests and watches it carries (metrics, tests). */
  connections?(): ConnectionStats[];
  /** Ends every connection now. Idle ones hold no process open; for tests and short-lived commands. */
  close?(): void;
}

export interface ClientOptions {
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  /** A context of the kubeconfig; default: its current-context. */
  context?: string;
  /** Default: `reconstruct`. */
  userAgent?: string;
  /** Concurrent HTTP/1.1 connections for ordinary requests (watches have their own pool). Default: 32. */
  maxSockets?: number;
  /** Offer HTTP/2 (default: true, unless DISABLE_HTTP2 is set, as in client-go); see Transport.http2. */
  http2?: boolean;
}

/**
 * A client for the API server of the kubeconfig: options.kubeconfig, else KUBECONFIG, else
 * ~/.kube/config, else the in-cluster service account (options.context overrides the
 * current-context). Throws when there is none.
 */
export function loadClient(options: ClientOptions = {}): KubeClient {
  const config = readKubeconfig({ kubeconfig: options.kubeconfig, context: options.context });
  const transport = config.needsClientNode ? clientNodeTransport(config) : kubeconfigTransport(config);
  return createClient({
    ...transport,
    userAgent: options.userAgent,
    maxSockets: options.maxSockets,
    http2: options.http2,
  });
}

/** For exec and auth-provider users: client-node runs the plugin or provider, and caches its tokens. */
function clientNodeTransport(config: Kubeconfig): Transport {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- required here, not imported at the top, so Jest can load this file (see the module comment)
  const lib = require('@kubernetes/client-node') as typeof k8s;
  const kc = new lib.KubeConfig();
  kc.loadFromClusterAndUser(config.cluster, config.user);
  // client-node knows `as` but not as-groups or as-uid.
  const impersonation = impersonationHeaders(config.user);
  return {
    server: config.cluster.server,
    credentials: refreshing(async () => {
      const opts: https.RequestOptions = { headers: {} };
      // Reads the CA and client certificate, runs the exec plugin or the auth provider.
      await kc.applyToHTTPSOptions(opts);
      const headers: Record<string, string | string[]> = {};
      for (const [key, value] of Object.entries(opts.headers ?? {})) {
        if (typeof value === 'string' || typeof value === 'number') headers[key] = String(value);
        else if (Array.isArray(value)) headers[key] = value.join(', ');
      }
      if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
      const tls: https.AgentOptions = {};
      for (const key of [
        'ca',
        'cert',
        'key',
        'pfx',
        'passphrase',
        'rejectUnauthorized',
        'servername',
      ] as const) {
        if (opts[key] !== undefined) (tls as Record<string, unknown>)[key] = opts[key];
      }
      return { headers: { ...headers, ...impersonation }, tls };
    }),
  };
}

/** A client for an explicit transport (no kubeconfig): loadClient's core, usable in unit tests. */
export function createClient(transport: Transport): KubeClient {
  return new Client(transport);
}

/** Requests and watch streams over one pair of connection pools. */
class Client extends HttpClient implements KubeClient {
  watch(req: KubeRequest): AsyncGenerator<WatchEvent> {
    return watch(this, req);
  }
}
