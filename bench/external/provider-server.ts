/**
 * A DNS provider over HTTP, for the benchmark and the cluster test of external work: a real server on
 * 127.0.0.1 (a port of its own) that the controller's handlers reach with `fetch`, as they would a
 * provider's API. Records in memory by name; each request must carry the bearer token; every answer
 * comes `latencyMs` late, on a timer, so that hundreds of slow calls cost the server nothing but sockets.
 * `down()` refuses connections (the listener closed, open connections cut) until `up()`, as a provider
 * whose load balancer is gone.
 *
 *   GET    /records/<fqdn>   200 the record, 404
 *   PUT    /records/<fqdn>   200, the body (JSON) kept as the record
 *   DELETE /records/<fqdn>   204, 404
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderServerOptions {
  /** The bearer token requests must present; another is refused (401). */
  readonly token: string;
  /** How long each answer takes. @default 0 */
  readonly latencyMs?: number;
}

export class ProviderServer {
  readonly records = new Map<string, unknown>();
  /** How long each answer takes; changed while it runs, it holds for the requests that arrive next. */
  latencyMs: number;
  /** Requests answered (any status), and the most that waited for their answer at once. */
  answered = 0;
  maxInFlight = 0;
  /** When (Date.now()) it first answered since it was last brought up: an outage's end, as callers see it. */
  firstAnswerAt?: number;
  private inFlight = 0;
  private readonly server: http.Server;
  private readonly pending = new Set<NodeJS.Timeout>();
  private port = 0;

  private constructor(private readonly options: ProviderServerOptions) {
    this.latencyMs = options.latencyMs ?? 0;
    this.server = http.createServer((req, res) => this.handle(req, res));
    // Hundreds of handlers keep their connections: no limit on requests per connection or idle sockets.
    this.server.keepAliveTimeout = 60_000;
  }

  /** A server listening on a free port of 127.0.0.1. */
  static async start(options: ProviderServerOptions): Promise<ProviderServer> {
    const provider = new ProviderServer(options);
    await provider.up();
    return provider;
  }

  /** Where the handlers reach it: the Secret's `endpoint`. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Requests waiting for their answer now. */
  get inFlightNow(): number {
    return this.inFlight;
  }

  get listening(): boolean {
    return this.server.listening;
  }

  /** Listens again (on the same port, once it had one): connections are accepted from now on. */
  async up(): Promise<void> {
    this.firstAnswerAt = undefined;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Refuses connections from now on, cutting those open and the answers not sent yet. */
  async down(): Promise<void> {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
    this.inFlight = 0;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  async stop(): Promise<void> {
    if (this.server.listening) await this.down();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        this.inFlight--;
        this.answered++;
        this.firstAnswerAt ??= Date.now();
        const [status, answer] = this.answer(req, body);
        res.writeHead(status, answer === undefined ? {} : { 'Content-Type': 'application/json' });
        res.end(answer === undefined ? undefined : JSON.stringify(answer));
      }, this.latencyMs);
      this.pending.add(timer);
      // A caller that gave up (its handler's signal aborted) gets no answer.
      res.on('close', () => {
        if (!this.pending.delete(timer)) return;
        clearTimeout(timer);
        this.inFlight--;
      });
    });
  }

  private answer(req: http.IncomingMessage, body: string): [number, unknown?] {
    if (req.headers.authorization !== `Bearer ${this.options.token}`) return [401, { error: 'bad token' }];
    const match = /^\/records\/([^/?]+)$/.exec(req.url ?? '');
    if (!match) return [404, { error: 'no such path' }];
    const fqdn = decodeURIComponent(match[1]);
    switch (req.method) {
      case 'GET':
        return this.records.has(fqdn) ? [200, this.records.get(fqdn)] : [404, { error: 'no such record' }];
      case 'PUT':
        try {
          this.records.set(fqdn, JSON.parse(body));
        } catch {
          return [400, { error: 'the body is not JSON' }];
        }
        return [200, this.records.get(fqdn)];
      case 'DELETE':
        return this.records.delete(fqdn) ? [204] : [404, { error: 'no such record' }];
      default:
        return [405, { error: 'method not allowed' }];
    }
  }
}
