/**
 * Requests to the API server over node:http(s): the request shape, the keep-alive agents (one pool for
 * requests, one for watches), the exchange of one request and its response, the retries (401 once with
 * fresh credentials, 429 after Retry-After, a request sent on a connection the server had just closed),
 * and the requests stalled on a dead connection. The watch stream (./watch) is built on `open`; the
 * client (./client) puts both behind KubeClient. See docs/CLIENT.md for why the HTTP is ours.
 */
import { sleep } from '../abortable';
import * as http from 'node:http';
import * as https from 'node:https';
import { ApiError, isUnauthorized, isTooManyRequests } from './errors';
import type { Transport } from './transport';
import { Http2Connections, type ConnectionStats, type Protocol } from './http2';
import { http1Request, type Response } from './wire';
import { tlsFingerprint, withSecureContext } from './tls-material';
import type { Readable } from 'node:stream';

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

const DEFAULT_TIMEOUT_MS = 60_000;
/** See HttpClient.answered: admission webhooks may take up to 30 s. */
const STALLED_MS = 30_000;
const MAX_429_RETRIES = 3;

/** A request whose response headers are in. */
export interface Exchange {
  res: Response;
  /** Must be called when done: removes the abort and timeout hooks, frees or closes the socket. */
  cancel: () => void;
  /** Why the exchange was cut short by us (abort, timeout), if it was. */
  failure: () => ApiError | undefined;
}

interface Agents {
  requests: http.Agent;
  watches: http.Agent;
  /** HTTP/2 to an https server, unless turned off: see ./http2. */
  h2?: Http2Connections;
  /** The TLS options they were made with, and a fingerprint of their material. */
  tls: https.AgentOptions | undefined;
  tlsKey: string;
}

/** Requests to one API server, over two keep-alive pools made with the transport's TLS material. */
export class HttpClient {
  /** Called after every request with its verb, HTTP status code, seconds, the request and how it failed: see KubeClient.onRequest. */
  onRequest?: (verb: Verb, code: number, seconds: number, req: KubeRequest, error?: unknown) => void;
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

  /** JSON request; resolves the parsed body, throws ApiError for non-2xx (and for network errors: status 0). */
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
        if (isUnauthorized(err) && !refreshed) {
          // Rotated token or expired exec credential: ask the kubeconfig again, once.
          refreshed = refresh = true;
          continue;
        }
        if (isTooManyRequests(err) && attempt < MAX_429_RETRIES) {
          // Priority and fairness asks us to come back later; client-go does the same.
          await sleep(Math.min(err.retryAfterSeconds ?? 1, 10) * 1000, req.signal);
          continue;
        }
        throw err;
      }
    }
  }

  /** One attempt: sends the request, reads the whole body, parses it. */
  private async once(req: KubeRequest, verb: Verb, refresh: boolean): Promise<unknown> {
    const started = process.hrtime.bigint();
    let code = 0;
    let exchange: Exchange | undefined;
    let failure: unknown;
    try {
      exchange = await this.open(req, false, refresh);
      const res = exchange.res;
      code = res.status;
      const text = await readBody(res.body);
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
      failure = exchange?.failure() ?? networkError(req, err);
      throw failure;
    } finally {
      exchange?.cancel();
      this.onRequest?.(verb, code, seconds(started), req, failure);
    }
  }

  /**
   * Sends the request and resolves once the response headers are in. A `streaming` request (a watch)
   * uses the watches' pool, its timeoutMs is the longest silence between two chunks, and it is never
   * failed as stalled.
   */
  async open(req: KubeRequest, streaming: boolean, refresh = false): Promise<Exchange> {
    if (req.signal?.aborted) throw abortError(req);
    const creds = this.transport.credentials ? await this.transport.credentials(refresh) : undefined;
    const agents = this.agentsFor(creds?.tls ?? this.transport.tls);
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
    // The protocol is known after the first handshake: no await (a promise a request) from then on.
    const protocol = agents.h2 && (agents.h2.protocol ?? (await agents.h2.negotiate()));
    const h2 = protocol === 'h2' ? agents.h2 : undefined;
    const init = { method: req.method, headers, payload };
    const send = (): Promise<Exchange> =>
      new Promise((resolve, reject) => {
        const out = h2
          ? h2.request(url, init)
          : http1Request(
              this.isHttps ? https : http,
              url,
              init,
              streaming ? agents.watches : agents.requests,
            );
        let timer: NodeJS.Timeout | undefined;
        let settled = false;
        let failure: ApiError | undefined;
        const fail = (err: ApiError) => {
          failure ??= err;
          out.destroy(err);
        };
        const onAbort = () => fail(abortError(req));
        const stall = () => fail(stalledError(req));
        const sentAt = Date.now();
        if (!streaming) this.inFlight.set(stall, sentAt);
        const cancel = () => {
          this.inFlight.delete(stall);
          if (timer) clearTimeout(timer);
          req.signal?.removeEventListener('abort', onAbort);
          // A response read to its end leaves the connection to the next request; anything else ends it.
          if (!out.destroyed && !out.finished) out.destroy();
        };
        req.signal?.addEventListener('abort', onAbort, { once: true });
        const timeoutMs = req.timeoutMs ?? (streaming ? undefined : DEFAULT_TIMEOUT_MS);
        if (timeoutMs !== undefined && timeoutMs > 0) {
          if (streaming) {
            // Idle timeout: the longest silence between two chunks.
            out.idleTimeout(timeoutMs, () => fail(timeoutError(req, timeoutMs, true)));
          } else {
            timer = setTimeout(() => fail(timeoutError(req, timeoutMs, false)), timeoutMs);
          }
        }
        out.onResponse((res) => {
          settled = true;
          this.answered(sentAt);
          resolve({ res, cancel, failure: () => failure });
        });
        out.onError((err) => {
          if (settled) return; // the response stream reports it to its reader
          cancel();
          reject(failure ?? Object.assign(err, { unsent: out.unsent(err) }));
        });
      });
    try {
      return await send();
    } catch (err) {
      // Sent on a connection the server had just closed (or was closing): it never reached the server,
      // so sending it again is safe.
      if ((err as { unsent?: boolean }).unsent && !req.signal?.aborted) return send();
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

  /** See KubeClient.ping. */
  ping(timeoutMs: number): Promise<boolean> | undefined {
    return this.agents?.h2?.ping(timeoutMs);
  }

  /** See KubeClient.protocol. */
  get protocol(): Protocol | undefined {
    return this.agents?.h2 ? this.agents.h2.protocol : this.agents && 'http/1.1';
  }

  /** See KubeClient.connections. */
  connections(): ConnectionStats[] {
    const h2 = this.agents?.h2?.stats() ?? [];
    const h1 = (pool: Record<string, unknown[] | undefined>, streams: number): ConnectionStats[] =>
      Object.values(pool).flatMap((sockets) =>
        (sockets ?? []).map(() => ({ protocol: 'http/1.1' as const, streams, maxStreams: 1 })),
      );
    const { requests, watches } = this.agents ?? {};
    return [
      ...h2,
      ...[requests, watches].flatMap((agent) =>
        agent ? [...h1(agent.sockets, 1), ...h1(agent.freeSockets, 0)] : [],
      ),
    ];
  }

  /** Ends every connection now (idle ones hold no process open; this is for tests and CLI commands). */
  close(): void {
    this.agents?.h2?.close();
    this.agents?.requests.destroy();
    this.agents?.watches.destroy();
  }

  /** See KubeClient.resetStalled. */
  resetStalled(stalledMs = 5000): void {
    this.agents?.h2?.dropUnanswered();
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
    const secure = this.isHttps && tlsOptions ? withSecureContext(tlsOptions) : {};
    const common = { keepAlive: true, ...secure };
    const Agent = this.isHttps ? https.Agent : http.Agent;
    this.agents?.h2?.retire();
    this.agents = {
      h2: this.isHttps && http2Wanted(this.transport) ? new Http2Connections(this.base, secure) : undefined,
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

/** HTTP/2 unless the transport or the environment (client-go's DISABLE_HTTP2, non-empty) turns it off. */
function http2Wanted(transport: Transport): boolean {
  return transport.http2 !== false && !process.env.DISABLE_HTTP2;
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

export function readBody(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (c: Buffer) => chunks.push(c));
    body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    body.on('error', reject);
    body.on('aborted', () => reject(new Error('response aborted')));
    // Settled already after an end; otherwise the stream was cut short without an error.
    body.on('close', () => reject(new Error('response closed before its end')));
  });
}

/** What a failure without a response becomes: status 0, reason NetworkError (or Aborted). */
export function networkError(req: KubeRequest, err: unknown): ApiError {
  if (req.signal?.aborted) return abortError(req);
  if (err instanceof ApiError) return err;
  const e = err as NodeJS.ErrnoException;
  const detail = e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
  return new ApiError(0, `${describe(req)}: ${detail}`, { reason: 'NetworkError', cause: err });
}

export function abortError(req: KubeRequest): ApiError {
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

/** `GET /api/v1/...`: how errors name their request. */
export const describe = (req: KubeRequest) => `${req.method} ${req.path}`;
export const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9;
export const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
