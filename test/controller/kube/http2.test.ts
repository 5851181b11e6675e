/**
 * The client over HTTP/2 (controller/kube/http2.ts), against a local TLS server made with node:http2:
 * requests and watches share one connection, a second opens only at the server's stream limit, a PING
 * finds a dead connection that resetStalled then ends, GOAWAY moves new requests to a new connection, and
 * HTTP/1.1 is kept for a server that does not offer h2 or when HTTP/2 is turned off.
 */
import { execFile } from 'node:child_process';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createClient, type KubeClient } from '../../../controller/kube/client';
import { ApiError } from '../../../controller/kube/errors';
import { PEM } from './kubeconfig-fixture';
import { NODE_TS } from '../../support/node-ts';

interface Server {
  url: string;
  /** Connections accepted, and the HTTP version of each request seen. */
  sessions: http2.ServerHttp2Session[];
  versions: string[];
  /** Watch streams the client went away from. */
  watchesEnded: () => number;
  close(): Promise<void>;
}

/**
 * An API server of sorts: `/watch` streams an event every 20 ms until the client goes, `/slow` answers
 * after 300 ms, `/missing` is a 404 Status, anything else a small JSON object.
 */
async function startServer(options: http2.SecureServerOptions = {}): Promise<Server> {
  const sessions: http2.ServerHttp2Session[] = [];
  const versions: string[] = [];
  let watchesEnded = 0;
  const server = http2.createSecureServer({ key: PEM.serverKey, cert: PEM.server, ...options });
  server.on('session', (s) => sessions.push(s));
  server.on('request', (req, res) => {
    versions.push(req.httpVersion);
    if (req.url.startsWith('/watch')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      let n = 0;
      const timer = setInterval(() => {
        res.write(JSON.stringify({ type: 'ADDED', object: { n: n++ } }) + '\n');
      }, 20);
      res.on('close', () => {
        clearInterval(timer);
        watchesEnded++;
      });
      return;
    }
    if (req.url.startsWith('/missing')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound', message: 'not here' }));
      return;
    }
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, method: req.method }));
    };
    if (req.url.startsWith('/slow')) setTimeout(answer, 300);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    sessions,
    versions,
    watchesEnded: () => watchesEnded,
    close: () =>
      new Promise((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A TCP proxy that can stop passing bytes either way, as a dead middlebox does, without closing anything. */
async function startProxy(target: string) {
  let frozen = false;
  const sockets: net.Socket[] = [];
  const { port } = new URL(target);
  const server = net.createServer((downstream) => {
    const upstream = net.connect(Number(port), '127.0.0.1');
    sockets.push(downstream, upstream);
    downstream.on('data', (d) => frozen || upstream.write(d));
    upstream.on('data', (d) => frozen || downstream.write(d));
    downstream.on('error', () => undefined);
    upstream.on('error', () => undefined);
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: (value: boolean) => (frozen = value),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const clients: KubeClient[] = [];
function client(url: string, http2 = true): KubeClient {
  const c = createClient({ server: url, tls: { ca: PEM.ca }, http2 });
  clients.push(c);
  return c;
}
afterEach(() => {
  for (const c of clients.splice(0)) c.close?.();
});

/** Reads `count` events of a watch, then stops it. */
async function firstEvents(c: KubeClient, count: number, signal?: AbortSignal): Promise<number[]> {
  const seen: number[] = [];
  for await (const event of c.watch({ method: 'GET', path: '/watch', signal })) {
    seen.push((event.object as { n: number }).n);
    if (seen.length === count) break;
  }
  return seen;
}

describe('the client over HTTP/2', () => {
  let server: Server;
  beforeEach(async () => (server = await startServer()));
  afterEach(() => server.close());

  it('sends requests and watches over one connection', async () => {
    const c = client(server.url);
    const watching = [firstEvents(c, 5), firstEvents(c, 5)];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        c.request<{ path: string }>({ method: 'GET', path: `/slow/${i}` }),
      ),
    );
    expect(answers.map((a) => a.path)).toEqual(Array.from({ length: 20 }, (_, i) => `/slow/${i}`));
    expect(await Promise.all(watching)).toEqual([
      [0, 1, 2, 3, 4],
      [0, 1, 2, 3, 4],
    ]);
    await c.request({ method: 'POST', path: '/things', body: { a: 1 } });
    expect(c.protocol).toBe('h2');
    expect(server.versions.every((v) => v === '2.0')).toBe(true);
    expect(server.versions).toHaveLength(23);
    expect(server.sessions).toHaveLength(1);
  });

  it('turns an error status into an ApiError as over HTTP/1.1', async () => {
    const c = client(server.url);
    const err = (await c.request({ method: 'GET', path: '/missing' }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.reason]).toEqual([404, 'NotFound']);
  });

  it('ends a watch stream when its signal aborts, and the server sees it go', async () => {
    const c = client(server.url);
    const abort = new AbortController();
    const events: number[] = [];
    const watching = (async () => {
      for await (const event of c.watch({ method: 'GET', path: '/watch', signal: abort.signal })) {
        events.push((event.object as { n: number }).n);
        if (events.length === 3) abort.abort();
      }
    })();
    const err = (await watching.catch((e: unknown) => e)) as ApiError;
    expect(err.reason).toBe('Aborted');
    expect(events).toEqual([0, 1, 2]);
    // The stream was reset, the connection kept.
    await new Promise((r) => setTimeout(r, 100));
    expect(server.watchesEnded()).toBe(1);
    expect(await c.ping?.(1000)).toBe(true);
    expect(server.sessions).toHaveLength(1);
  });

  it('opens a new connection for new requests once the server says GOAWAY', async () => {
    const c = client(server.url);
    await c.request({ method: 'GET', path: '/a' });
    server.sessions[0].goaway();
    await new Promise((r) => setTimeout(r, 100));
    await c.request({ method: 'GET', path: '/b' });
    expect(server.sessions).toHaveLength(2);
  });

  it('lets a process with an idle connection exit', async () => {
    const script = `
      const { createClient } = require(${JSON.stringify(join(__dirname, '../../../controller/kube/client'))});
      const c = createClient({ server: ${JSON.stringify(server.url)}, tls: { ca: ${JSON.stringify(PEM.ca)} } });
      c.request({ method: 'GET', path: '/slow' }).then(() => console.log('answered ' + c.protocol));
    `;
    const started = Date.now();
    // Not spawnSync: this process is the server.
    const run = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [...NODE_TS, '-e', script], { timeout: 20_000 }, (_err, stdout, stderr) =>
        resolve({ stdout, stderr }),
      ),
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('answered h2');
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

describe('a connection over HTTP/2 that dies without a word', () => {
  it('is found by a PING, ended by resetStalled, and the next request goes on a new one', async () => {
    const server = await startServer();
    const proxy = await startProxy(server.url);
    try {
      const c = client(proxy.url);
      await c.request({ method: 'GET', path: '/a' });
      expect(await c.ping?.(500)).toBe(true);
      proxy.freeze(true);
      const waiting = c.request({ method: 'GET', path: '/b', timeoutMs: 30_000 }).catch((e: unknown) => e);
      const pinged = Date.now();
      expect(await c.ping?.(500)).toBe(false);
      expect(Date.now() - pinged).toBeLessThan(2000);
      c.resetStalled?.();
      const err = (await waiting) as ApiError;
      expect([err.status, err.reason]).toEqual([0, 'NetworkError']);
      expect(err.message).toMatch(/found dead/);
      proxy.freeze(false);
      expect(await c.request<{ path: string }>({ method: 'GET', path: '/c' })).toMatchObject({ path: '/c' });
      expect(server.sessions).toHaveLength(2);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});

describe('HTTP/1.1 where HTTP/2 is not spoken', () => {
  it('falls back for a server that offers only http/1.1', async () => {
    const server = https.createServer({ key: PEM.serverKey, cert: PEM.server }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ version: req.httpVersion }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const c = client(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
      expect(c.ping?.(500)).toBeUndefined();
      expect(await c.request({ method: 'GET', path: '/' })).toEqual({ version: '1.1' });
      expect(await c.request({ method: 'GET', path: '/' })).toEqual({ version: '1.1' });
      expect(c.protocol).toBe('http/1.1');
      expect(c.ping?.(500)).toBeUndefined();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('speaks HTTP/1.1 to a server that offers both when HTTP/2 is turned off, or DISABLE_HTTP2 is set', async () => {
    const server = await startServer({ allowHTTP1: true });
    try {
      const c = client(server.url, false);
      await c.request({ method: 'GET', path: '/a' });
      expect(c.protocol).toBe('http/1.1');
      process.env.DISABLE_HTTP2 = 'true';
      const byEnv = client(server.url);
      await byEnv.request({ method: 'GET', path: '/b' });
      expect(byEnv.protocol).toBe('http/1.1');
      expect(server.versions).toEqual(['1.1', '1.1']);
    } finally {
      delete process.env.DISABLE_HTTP2;
      await server.close();
    }
  });
});

describe("the server's stream limit", () => {
  it('opens a second connection once the first has as many streams open as the server allows', async () => {
    const server = await startServer({ settings: { maxConcurrentStreams: 2 } });
    try {
      const c = client(server.url);
      await c.request({ method: 'GET', path: '/a' }); // the server's SETTINGS are in
      const abort = new AbortController();
      const watches = [firstEvents(c, 1000, abort.signal), firstEvents(c, 1000, abort.signal)];
      await new Promise((r) => setTimeout(r, 100));
      expect(await c.request({ method: 'GET', path: '/b' })).toMatchObject({ path: '/b' });
      expect(server.sessions).toHaveLength(2);
      abort.abort();
      await Promise.allSettled(watches);
    } finally {
      await server.close();
    }
  });

  it('never queues a request behind watches on a full connection, however many wait for a new one', async () => {
    const server = await startServer({ settings: { maxConcurrentStreams: 2 } });
    try {
      const c = client(server.url);
      await c.request({ method: 'GET', path: '/a' });
      const abort = new AbortController();
      const watches = [firstEvents(c, 1000, abort.signal), firstEvents(c, 1000, abort.signal)];
      await new Promise((r) => setTimeout(r, 100));
      // The first connection is full: four more watches and a request wait for the second together; all
      // sent on it, the request would wait behind watches that do not end.
      watches.push(...Array.from({ length: 4 }, () => firstEvents(c, 1000, abort.signal)));
      const answer = await c.request({ method: 'GET', path: '/b', timeoutMs: 3000 });
      expect(answer).toMatchObject({ path: '/b' });
      expect(server.sessions.length).toBeGreaterThanOrEqual(4);
      abort.abort();
      await Promise.allSettled(watches);
    } finally {
      await server.close();
    }
  });
});
