/**
 * The controller's only door to the API server: JSON requests and watch streams over node:https
 * with keep-alive agents. The kubeconfig is read by ./kubeconfig; `@kubernetes/client-node` is
 * loaded only for users whose credentials come from an `exec` plugin or an `auth-provider`. See
 * docs/CLIENT.md for why the HTTP and the kubeconfig reader are ours.
 *
 * client-node 1.x is ESM-only. The controller runs as CommonJS, which loads it through Node's
 * require(esm) (Node >= 20.19), but Jest cannot. So it is loaded lazily, in loadClient(), and this
 * module stays importable by unit tests (ApiError, the types, createClient against a fake server).
 */
import { sleep } from '../abortable';
import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import type * as k8s from '@kubernetes/client-node';
import {
  impersonationHeaders,
  type Kubeconfig,
  kubeconfigTransport,
  readKubeconfig,
  refreshing,
} from './kubeconfig';
import type { Transport } from './transport';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The REST path, e.g. from resourcePath() in ./paths. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** A string or Buffer is sent as is, anything else as JSON. */
  body?: unknown;
  /**
   * Default: application/json, and application/merge-patch+json for PATCH. Server-side apply:
   * application/apply-patch+yaml (a JSON body is valid YAML).
   */
  contentType?: string;
  /** Default: application/json. A metadata-only list or watch asks for `as=PartialObjectMetadata(List)`. */
  accept?: string;
  signal?: AbortSignal;
  /**
   * request(): the whole exchange (default 60 s). watch(): the longest silence allowed between
   * two chunks of the stream (default: none; servers send bookmarks, the informer has a watchdog).
   */
  timeoutMs?: number;
}

/** A watch event as the API server streams it. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

/**
 * A failed request. `status` is the HTTP status code, 0 when no response came (network error,
 * timeout, abort). `reason` is the metav1.Status reason (NotFound, Conflict, AlreadyExists,
 * Expired, Gone, Invalid, Forbidden, ...), derived from the status code when the body has none.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly reason?: string;
  readonly body?: unknown;
  /** From a Retry-After header or the Status details (429, some 5xx). */
  readonly retryAfterSeconds?: number;

  constructor(
    status: number,
    message: string,
    options: { reason?: string; body?: unknown; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ApiError';
    this.status = status;
    this.reason = options.reason;
    this.body = options.body;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** Builds the error from a non-2xx response body (a metav1.Status when the server made it). */
  static fromResponse(status: number, text: string, what: string, retryAfterHeader?: string): ApiError {
    let body: unknown = text;
    let message: string | undefined;
    let reason: string | undefined;
    let retryAfter = retryAfterHeader !== undefined ? Number(retryAfterHeader) : undefined;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's error page, say): keep the text.
    }
    if (isObject(body) && body.kind === 'Status') {
      if (typeof body.message === 'string') message = body.message;
      if (typeof body.reason === 'string' && body.reason !== '') reason = body.reason;
      const details = body.details;
      if (isObject(details) && typeof details.retryAfterSeconds === 'number') {
        retryAfter = details.retryAfterSeconds;
      }
    }
    reason ??= REASONS[status];
    message ??= `HTTP ${status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`;
    return new ApiError(status, `${what}: ${message}`, {
      reason,
      body,
      retryAfterSeconds: retryAfter !== undefined && Number.isFinite(retryAfter) ? retryAfter : undefined,
    });
  }
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const statusOf = (err: unknown): number | undefined => (err instanceof ApiError ? err.status : undefined);
export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
export const isConflict = (err: unknown): boolean =>
  statusOf(err) === 409 && reasonOf(err) !== 'AlreadyExists';
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
/** 410: the resourceVersion is too old (a watch or list must start over). */
export const isGone = (err: unknown): boolean => statusOf(err) === 410;
const reasonOf = (err: unknown): string | undefined => (err instanceof ApiError ? err.reason : undefined);
/** 403 for a write into a namespace that is being deleted (the Status names the cause NamespaceTerminating). */
export const isNamespaceTerminating = (err: unknown): boolean => {
  if (!(err instanceof ApiError) || err.status !== 403 || !isObject(err.body)) return false;
  const details = err.body.details;
  const causes = isObject(details) ? details.causes : undefined;
  return Array.isArray(causes) && causes.some((c) => isObject(c) && c.reason === 'NamespaceTerminating');
};

/**
 * 403 from OwnerReferencesPermissionEnforcement for an owner whose kind the API server's discovery does not
 * know yet: a CRD installed less than about 30 s ago (its REST mapper is reset every 30 s). Not RBAC.
 */
export const isOwnerKindUndiscovered = (err: unknown): boolean =>
  err instanceof ApiError && err.status === 403 && err.message.includes('cannot find RESTMapping');

export interface KubeClient {
  /** JSON request; resolves the parsed body, throws ApiError for non-2xx (and for network errors: status 0). */
  request<T = unknown>(req: KubeRequest): Promise<T>;
  /** Streams a watch: yields each parsed watch event ({type, object}) as it arrives; ends when the server closes; throws on abort/errors. */
  watch(req: KubeRequest): AsyncIterable<WatchEvent>;
  /** Called after every request with its verb (derived from method + whether it is a list/watch), HTTP status code and seconds. */
  onRequest?: (verb: Verb, code: number, seconds: number) => void;
  /** The API server's host:port, when known (for metrics labels). */
  readonly host?: string;
  /**
   * Called when a connection was found dead without a word (a watch past its deadline): the others are
   * likely dead too. Closes the idle keep-alive connections, so that the next requests open fresh ones,
   * and fails the requests (not watches) that have waited for an answer longer than `stalledMs` (default
   * 5 s) with a network error, which their callers retry, instead of letting them wait for their timeout.
   * What an HTTP/2 health ping failure does to client-go's requests.
   */
  resetStalled?(stalledMs?: number): void;
}

export interface ClientOptions {
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  /** A context of the kubeconfig; default: its current-context. */
  context?: string;
  /** Default: `reconstruct`. */
  userAgent?: string;
  /** Concurrent connections for ordinary requests (watches have their own pool). Default: 32. */
  maxSockets?: number;
}

/**
 * A client for the API server of the kubeconfig: options.kubeconfig, else KUBECONFIG, else
 * ~/.kube/config, else the in-cluster service account (options.context overrides the
 * current-context). Throws when there is none.
 */
export function loadClient(options: ClientOptions = {}): KubeClient {
  const config = readKubeconfig({ kubeconfig: options.kubeconfig, context: options.context });
  const transport = config.needsClientNode ? clientNodeTransport(config) : kubeconfigTransport(config);
  return createClient({ ...transport, userAgent: options.userAgent, maxSockets: options.maxSockets });
}

/** For exec and auth-provider users: client-node runs the plugin or provider, and caches its tokens. */
function clientNodeTransport(config: Kubeconfig): Transport {
  // See the module comment: required here, not imported at the top, so Jest can load this file.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
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
  return new HttpClient(transport);
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** See HttpClient.answered: admission webhooks may take up to 30 s. */
const STALLED_MS = 30_000;
const MAX_429_RETRIES = 3;

/** A request whose response headers are in. */
interface Exchange {
  res: http.IncomingMessage;
  /** Must be called when done: removes the abort and timeout hooks, frees or closes the socket. */
  cancel: () => void;
  /** Why the exchange was cut short by us (abort, timeout), if it was. */
  failure: () => ApiError | undefined;
}

interface Agents {
  requests: http.Agent;
  watches: http.Agent;
  /** The TLS options they were made with, and a fingerprint of their material. */
  tls: https.AgentOptions | undefined;
  tlsKey: string;
}

class HttpClient implements KubeClient {
  onRequest?: (verb: Verb, code: number, seconds: number) => void;
  readonly host: string;
  private readonly base: URL;
  private readonly isHttps: boolean;
  private agents?: Agents;
  /** Requests (not watches) waiting for their answer: what fails one as stalled, and since when. */
  private readonly inFlight = new Map<() => void, number>();

  constructor(private readonly transport: Transport) {
    this.base = new URL(transport.server);
    if (this.base.protocol !== 'https:' && this.base.protocol !== 'http:') {
      throw new Error(`kube client: unsupported server URL ${transport.server}`);
    }
    this.isHttps = this.base.protocol === 'https:';
    this.host = this.base.host;
  }

  async request<T = unknown>(req: KubeRequest): Promise<T> {
    const verb = verbOf(req);
    let refreshed = false;
    let refresh = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.once(req, verb, refresh)) as T;
      } catch (err) {
        refresh = false;
        if (!(err instanceof ApiError) || req.signal?.aborted) throw err;
        if (err.status === 401 && !refreshed) {
          // Rotated token or expired exec credential: ask the kubeconfig again, once.
          refreshed = refresh = true;
          continue;
        }
        if (err.status === 429 && attempt < MAX_429_RETRIES) {
          // Priority and fairness asks us to come back later; client-go does the same.
          await sleep(Math.min(err.retryAfterSeconds ?? 1, 10) * 1000, req.signal);
          continue;
        }
        throw err;
      }
    }
  }

  async *watch(req: KubeRequest): AsyncGenerator<WatchEvent> {
    const started = process.hrtime.bigint();
    let code = 0;
    let exchange: Exchange | undefined;
    try {
      exchange = await this.open({ ...req, query: { ...req.query, watch: true }, method: 'GET' }, true);
      const res = exchange.res;
      code = res.statusCode ?? 0;
      if (code < 200 || code > 299) {
        const text = await readBody(res);
        throw ApiError.fromResponse(code, text, describe(req), headerValue(res.headers['retry-after']));
      }
      let buffer = '';
      for await (const chunk of res as AsyncIterable<Buffer>) {
        buffer += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) yield parseEvent(line, req);
        }
      }
      const failure = exchange.failure();
      if (failure) throw failure;
      if (req.signal?.aborted) throw abortError(req);
      const rest = buffer.trim();
      if (rest) yield parseEvent(rest, req);
    } catch (err) {
      throw exchange?.failure() ?? networkError(req, err);
    } finally {
      exchange?.cancel();
      this.onRequest?.('watch', code, seconds(started));
    }
  }

  /** One attempt: sends the request, reads the whole body, parses it. */
  private async once(req: KubeRequest, verb: Verb, refresh: boolean): Promise<unknown> {
    const started = process.hrtime.bigint();
    let code = 0;
    let exchange: Exchange | undefined;
    try {
      exchange = await this.open(req, false, refresh);
      const res = exchange.res;
      code = res.statusCode ?? 0;
      const text = await readBody(res);
      if (code < 200 || code > 299) {
        throw ApiError.fromResponse(code, text, describe(req), headerValue(res.headers['retry-after']));
      }
      if (!text) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch (err) {
        if (!/json/i.test(headerValue(res.headers['content-type']) ?? '')) return text;
        throw new ApiError(0, `${describe(req)}: invalid JSON in the response`, {
          reason: 'InvalidResponse',
          cause: err,
        });
      }
    } catch (err) {
      throw exchange?.failure() ?? networkError(req, err);
    } finally {
      exchange?.cancel();
      this.onRequest?.(verb, code, seconds(started));
    }
  }

  /** Sends the request and resolves once the response headers are in. */
  private async open(req: KubeRequest, streaming: boolean, refresh = false): Promise<Exchange> {
    if (req.signal?.aborted) throw abortError(req);
    const creds = this.transport.credentials ? await this.transport.credentials(refresh) : undefined;
    const agents = this.agentsFor(creds?.tls ?? this.transport.tls);
    const agent = streaming ? agents.watches : agents.requests;
    const url = this.url(req);
    const headers: Record<string, string | string[]> = {
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.transport.userAgent ?? 'reconstruct',
      ...creds?.headers,
    };
    let payload: Buffer | undefined;
    if (req.body !== undefined) {
      payload = Buffer.isBuffer(req.body)
        ? req.body
        : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
      headers['Content-Type'] =
        req.contentType ?? (req.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
      headers['Content-Length'] = String(payload.length);
    }
    const send = (): Promise<Exchange> =>
      new Promise((resolve, reject) => {
        const mod = this.isHttps ? https : http;
        const r = mod.request(url, { method: req.method, headers, agent });
        let timer: NodeJS.Timeout | undefined;
        let settled = false;
        let failure: ApiError | undefined;
        let response: http.IncomingMessage | undefined;
        const fail = (err: ApiError) => {
          failure ??= err;
          r.destroy(err);
        };
        const onAbort = () => fail(abortError(req));
        const stall = () => fail(stalledError(req));
        const sentAt = Date.now();
        if (!streaming) this.inFlight.set(stall, sentAt);
        const cancel = () => {
          this.inFlight.delete(stall);
          if (timer) clearTimeout(timer);
          req.signal?.removeEventListener('abort', onAbort);
          // A response read to its end leaves the socket to the agent; anything else closes it.
          if (!r.destroyed && !(response?.complete ?? false)) r.destroy();
        };
        req.signal?.addEventListener('abort', onAbort, { once: true });
        const timeoutMs = req.timeoutMs ?? (streaming ? undefined : DEFAULT_TIMEOUT_MS);
        if (timeoutMs !== undefined && timeoutMs > 0) {
          if (streaming) {
            // Idle timeout: the longest silence between two chunks.
            r.setTimeout(timeoutMs, () => fail(timeoutError(req, timeoutMs, true)));
          } else {
            timer = setTimeout(() => fail(timeoutError(req, timeoutMs, false)), timeoutMs);
          }
        }
        r.on('response', (res) => {
          settled = true;
          response = res;
          this.answered(sentAt);
          resolve({ res, cancel, failure: () => failure });
        });
        r.on('error', (err) => {
          if (settled) return; // the response stream reports it to its reader
          cancel();
          reject(failure ?? Object.assign(err, { reusedSocket: r.reusedSocket }));
        });
        r.end(payload);
      });
    try {
      return await send();
    } catch (err) {
      // The server closed an idle keep-alive connection just as we reused it; the request never
      // reached it, so sending it again is safe (what the Node docs recommend).
      const e = err as NodeJS.ErrnoException & { reusedSocket?: boolean };
      if (e.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && !req.signal?.aborted) {
        return send();
      }
      throw err;
    }
  }

  private url(req: KubeRequest): URL {
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const url = new URL(prefix + req.path, this.base);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  resetStalled(stalledMs = 5000): void {
    for (const agent of this.agents ? [this.agents.requests, this.agents.watches] : []) {
      for (const sockets of Object.values(agent.freeSockets)) sockets?.forEach((socket) => socket.destroy());
    }
    const now = Date.now();
    for (const [stall, since] of this.inFlight) if (now - since >= stalledMs) stall();
  }

  /**
   * The server answered a request sent at `sentAt`: one sent before it that has waited STALLED_MS (longer
   * than any admission webhook may take) is on a dead connection, a partition's leftover. Failed as
   * stalled, it is retried on a new one rather than waiting out its timeout.
   */
  private answered(sentAt: number): void {
    const now = Date.now();
    for (const [stall, since] of this.inFlight) if (since < sentAt && now - since >= STALLED_MS) stall();
  }

  /** Agents are made on first use and again only if the TLS material changes (rotated certs). */
  private agentsFor(tlsOptions: https.AgentOptions | undefined): Agents {
    // The same options object as last time (credentials are cached between refreshes): nothing to compare.
    if (this.agents && this.agents.tls === tlsOptions) return this.agents;
    const tlsKey = tlsOptions ? tlsFingerprint(tlsOptions) : '';
    if (this.agents && this.agents.tlsKey === tlsKey) {
      this.agents.tls = tlsOptions;
      return this.agents;
    }
    const common = { keepAlive: true, ...(this.isHttps && tlsOptions ? withSecureContext(tlsOptions) : {}) };
    const Agent = this.isHttps ? https.Agent : http.Agent;
    this.agents = {
      requests: new Agent({ ...common, maxSockets: this.transport.maxSockets ?? 32 }),
      // Each watch holds its connection for minutes: a pool of their own, so that watches can
      // never starve ordinary requests of sockets (HTTP/1.1 has no multiplexing).
      watches: new Agent({ ...common, maxSockets: Infinity }),
      tls: tlsOptions,
      tlsKey,
    };
    return this.agents;
  }
}

/**
 * The verb of a request as client-go's metrics name it: GET of a collection is `list`, of an
 * object `get`; `watch=true` (or a /watch/ path) is `watch`.
 */
export function verbOf(req: Pick<KubeRequest, 'method' | 'path' | 'query'>): Verb {
  switch (req.method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    case 'GET':
      break;
  }
  const watch = req.query?.watch;
  if (watch === true || watch === 'true' || watch === 1 || watch === '1') return 'watch';
  const segments = req.path.split('?')[0].split('/').filter(Boolean);
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 2) rest = segments.slice(2);
  else if (segments[0] === 'apis' && segments.length >= 3) rest = segments.slice(3);
  else return 'get';
  if (rest[0] === 'watch') return 'watch';
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  return rest.length === 1 ? 'list' : 'get';
}

function parseEvent(line: string, req: KubeRequest): WatchEvent {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch (err) {
    throw new ApiError(0, `${describe(req)}: invalid watch event: ${line.slice(0, 200)}`, {
      reason: 'InvalidResponse',
      cause: err,
    });
  }
  if (!isObject(event) || typeof event.type !== 'string') {
    throw new ApiError(0, `${describe(req)}: invalid watch event: ${line.slice(0, 200)}`, {
      reason: 'InvalidResponse',
    });
  }
  return event as unknown as WatchEvent;
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

function networkError(req: KubeRequest, err: unknown): ApiError {
  if (req.signal?.aborted) return abortError(req);
  if (err instanceof ApiError) return err;
  const e = err as NodeJS.ErrnoException;
  const detail = e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
  return new ApiError(0, `${describe(req)}: ${detail}`, { reason: 'NetworkError', cause: err });
}

function abortError(req: KubeRequest): ApiError {
  return new ApiError(0, `${describe(req)}: aborted`, { reason: 'Aborted', cause: req.signal?.reason });
}

function stalledError(req: KubeRequest): ApiError {
  return new ApiError(0, `${describe(req)}: no answer on a connection found dead; retry on a new one`, {
    reason: 'NetworkError',
  });
}

function timeoutError(req: KubeRequest, ms: number, idle: boolean): ApiError {
  return new ApiError(0, `${describe(req)}: ${idle ? 'no data for' : 'no answer within'} ${ms} ms`, {
    reason: 'Timeout',
  });
}

const describe = (req: KubeRequest) => `${req.method} ${req.path}`;
const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9;
const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * The CA, certificate and key as one secure context, made once. Given as they are, an https.Agent copies
 * them into every request's options and builds its pool key from them (several KB of base64 turned into a
 * string per request): 13% of a request's CPU. With a context, the key is the host and port.
 */
function withSecureContext(tlsOptions: https.AgentOptions): https.AgentOptions {
  const { ca, cert, key, pfx, passphrase, ...rest } = tlsOptions;
  if (ca === undefined && cert === undefined && key === undefined && pfx === undefined) return rest;
  return { ...rest, secureContext: tls.createSecureContext({ ca, cert, key, pfx, passphrase }) };
}

function tlsFingerprint(options: https.AgentOptions): string {
  const part = (v: unknown): string =>
    Buffer.isBuffer(v)
      ? v.toString('base64')
      : Array.isArray(v)
        ? v.map(part).join(',')
        : (JSON.stringify(v) ?? '');
  return [
    options.ca,
    options.cert,
    options.key,
    options.pfx,
    options.passphrase,
    options.rejectUnauthorized,
    options.servername,
  ]
    .map(part)
    .join('|');
}
