/**
 * The process's HTTP endpoints: /healthz (alive), /readyz (caches synced; `?verbose` says per check) and
 * /metrics; over TLS, with each scrape authorized (metrics-auth.ts), when the metrics leave the host.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { ScrapeDecision } from './metrics-auth';
import { createServer, type AddressInfo } from 'node:net';

/** One line of `/readyz?verbose`: `[+]name message` when ok, else `[-]name message`. */
export interface ReadyCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly message: string;
}

export interface HealthServerOptions {
  /** /healthz answers 500 with this reason when it returns one. Default: alive while it answers. */
  alive?: () => string | undefined;
  /** /readyz answers 200 when this returns true, else 503. Default: always ready. */
  ready?: () => boolean;
  /** The checks `/readyz?verbose` lists, as the API server's own /readyz?verbose does. */
  checks?: () => readonly ReadyCheck[];
  /** /metrics body (Prometheus text format); 404 when absent. */
  metrics?: () => Promise<string>;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { readonly key: string; readonly cert: string };
  /** Who may scrape /metrics, from the request's Authorization header; everyone when absent. */
  authorize?: (authorization: string | undefined) => Promise<ScrapeDecision>;
}

export class HealthServer {
  private readonly server: http.Server | https.Server;

  constructor(private readonly options: HealthServerOptions = {}) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    this.server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
    // Probes and scrapers reconnect anyway; idle sockets must not delay close().
    this.server.keepAliveTimeout = 5_000;
  }

  /** Listens on `host:port` (`:port`, `port`, `[::1]:port`; port 0 picks a free one) and resolves the bound port. */
  listen(address: string): Promise<number> {
    const { host, port } = parseAddress(address);
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(new Error(`listen on ${address}: ${err.message}`));
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /** Stops listening and closes open connections. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const [path, query = ''] = (req.url ?? '/').split('?');
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    try {
      switch (path) {
        case '/healthz':
        case '/livez': {
          const dead = this.options.alive?.();
          return dead === undefined ? send(200, 'ok\n') : send(500, `${dead}\n`);
        }
        case '/readyz': {
          const ready = this.options.ready ? this.options.ready() : true;
          if (!new URLSearchParams(query).has('verbose')) {
            return send(ready ? 200 : 503, ready ? 'ok\n' : 'not ready\n');
          }
          const lines = (this.options.checks?.() ?? []).map(
            (c) => `[${c.ok ? '+' : '-'}]${c.name} ${c.message}`,
          );
          lines.push(ready ? 'readyz check passed' : 'readyz check failed');
          return send(ready ? 200 : 503, `${lines.join('\n')}\n`);
        }
        case '/metrics': {
          if (!this.options.metrics) return send(404, 'not found\n');
          const decision =
            this.options.authorize && (await this.options.authorize(req.headers.authorization));
          if (decision && decision.code !== 200) {
            if (decision.code === 401) res.setHeader('WWW-Authenticate', 'Bearer');
            return send(decision.code, decision.message);
          }
          return send(200, await this.options.metrics(), 'text/plain; version=0.0.4; charset=utf-8');
        }
        default:
          return send(404, 'not found\n');
      }
    } catch (err) {
      if (!res.headersSent) send(500, `${err instanceof Error ? err.message : String(err)}\n`);
      else res.destroy();
    }
  }
}

/** `host:port`, `:port`, `port` or `[v6]:port`; host defaults to all interfaces. */
/** The host part of `host:port` (`[v6]:port` keeps its brackets), for saying where a server listens. */
export const hostOf = (address: string): string => address.slice(0, address.lastIndexOf(':'));

/** `host:port`, `[ipv6]:port` or a bare port, as the servers' address flags take them. */
export function parseAddress(address: string): { host?: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(address) ?? /^()()(\d+)$/.exec(address);
  if (!m) throw new Error(`address "${address}" is not host:port`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`address "${address}": port out of range`);
  const host = m[1] || m[2] || undefined;
  return { host, port };
}

/** A TCP port on 127.0.0.1 that nothing listens on right now (for tests, the demo and benchmarks). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether an address binds the loopback interface only (what leaves the host does not). */
export function isLoopback(address: string): boolean {
  const { host } = parseAddress(address);
  return host === 'localhost' || host === '::1' || (host !== undefined && /^127\./.test(host));
}
