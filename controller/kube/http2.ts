/**
 * HTTP/2 to the API server, as client-go speaks it: every request and watch of a client multiplexed over
 * one TLS connection (a second only once the server's stream limit is reached), and a dead connection
 * found by a PING frame rather than by a request. The first handshake offers h2 and http/1.1 (ALPN); a
 * server that picks http/1.1, or none, is spoken to over ./http's keep-alive agents from then on.
 *
 * Sessions hold the process open only while a stream is open on them, as idle keep-alive sockets do not.
 * See docs/CLIENT.md for the why and the figures.
 */
import * as http2 from 'node:http2';
import type * as http from 'node:http';
import { isIP } from 'node:net';
import * as tls from 'node:tls';
import type { Outgoing, RequestInit, Response } from './wire';

export type Protocol = 'h2' | 'http/1.1';

/** One open connection to the API server: what it carries and may carry. */
export interface ConnectionStats {
  readonly protocol: Protocol;
  /** Requests and watches open on it (HTTP/1.1: 1 while a request or watch holds the socket, else 0). */
  readonly streams: number;
  /** How many it may carry at once: the server's SETTINGS_MAX_CONCURRENT_STREAMS, or 1 (HTTP/1.1). */
  readonly maxStreams: number;
}

/** client-go's TLS handshake timeout. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** What the server may send on one stream before we read it: Go's HTTP/2 transport's 4 MiB. */
const STREAM_WINDOW = 4 << 20;
/** ... and on the whole connection (a relist's pages and every watch share it). */
const SESSION_WINDOW = 32 << 20;
/** Streams assumed allowed until the server's SETTINGS say (the HTTP/2 spec's recommended minimum). */
const STREAMS_UNTIL_SETTINGS = 100;

/** One HTTP/2 connection and what we know of it. */
class Session {
  /** Streams open on it: the session holds the process open while there are any. */
  active = 0;
  /** The server's SETTINGS_MAX_CONCURRENT_STREAMS. */
  maxStreams = STREAMS_UNTIL_SETTINGS;
  /** The last PING went unanswered: dropped by dropUnanswered(). */
  unanswered = false;
  /** GOAWAY received or closed: no new streams. */
  gone = false;

  constructor(readonly h2: http2.ClientHttp2Session) {}

  get usable(): boolean {
    return !this.gone && !this.h2.destroyed && !this.h2.closed && this.active < this.maxStreams;
  }

  opened(): void {
    if (this.active++ === 0) this.h2.ref();
  }

  closed(): void {
    if (--this.active === 0 && !this.h2.destroyed) this.h2.unref();
  }
}

/** The HTTP/2 connections of one client to one server, with one set of TLS material. */
export class Http2Connections {
  /** What the server chose at the first handshake; undefined until one succeeded. */
  protocol?: Protocol;
  private sessions: Session[] = [];
  private opening?: Promise<Session | undefined>;

  constructor(
    private readonly server: URL,
    private readonly tlsOptions: tls.ConnectionOptions,
  ) {}

  /** The server's protocol: known after the first handshake, which this makes if none has been. */
  async negotiate(): Promise<Protocol> {
    if (!this.protocol) await this.open();
    return this.protocol ?? 'http/1.1';
  }

  /** A request on a session with room for one more stream (opened if there is none). */
  request(url: URL, init: RequestInit): Outgoing {
    return new Http2Outgoing(() => this.pick(), url, init);
  }

  /**
   * A session with room for one more stream, else the one being opened. Many requests may wait for the
   * same new session: those that find it full when it comes pick again (a stream over the server's limit
   * would wait in nghttp2's queue until a watch on it ends, which may be never).
   */
  private pick(): Session | Promise<Session | undefined> {
    return this.sessions.find((s) => s.usable) ?? this.open();
  }

  /** The sessions open now, with their streams. */
  stats(): ConnectionStats[] {
    return this.live().map((s) => ({ protocol: 'h2', streams: s.active, maxStreams: s.maxStreams }));
  }

  /**
   * PINGs every session; resolves true when each answered within `timeoutMs`, false when one did not
   * (marked: see dropUnanswered). Undefined when there is no session to ping (HTTP/1.1, or none open yet).
   */
  ping(timeoutMs: number): Promise<boolean> | undefined {
    const live = this.live();
    if (live.length === 0) return undefined;
    return Promise.all(live.map((s) => pingOnce(s, timeoutMs))).then((answers) => answers.every(Boolean));
  }

  /** Ends the sessions whose last PING went unanswered: their streams fail, and are retried on a new one. */
  dropUnanswered(): void {
    for (const session of this.sessions.filter((s) => s.unanswered)) {
      this.forget(session);
      session.h2.destroy(deadConnection(this.server));
    }
  }

  /** Lets open streams finish, opens no new ones (new TLS material: a new Http2Connections takes over). */
  retire(): void {
    for (const session of this.sessions) session.h2.close();
    this.sessions = [];
  }

  /** Ends every session now. */
  close(): void {
    for (const session of this.sessions) session.h2.destroy();
    this.sessions = [];
  }

  /** The sessions not yet closed or destroyed. */
  private live(): Session[] {
    return this.sessions.filter((s) => !s.h2.destroyed && !s.h2.closed);
  }

  private open(): Promise<Session | undefined> {
    this.opening ??= this.connect().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async connect(): Promise<Session | undefined> {
    const socket = await handshake(this.server, this.tlsOptions);
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy();
      this.protocol = 'http/1.1';
      return undefined;
    }
    this.protocol = 'h2';
    const h2 = http2.connect(this.server.origin, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
      // nghttp2's buffers for all streams of the session (MiB): a relist of thousands of objects fits.
      maxSessionMemory: 64,
    });
    const session = new Session(h2);
    h2.unref();
    h2.on('connect', () => h2.setLocalWindowSize(SESSION_WINDOW));
    h2.on('remoteSettings', (settings: http2.Settings) => {
      session.maxStreams = settings.maxConcurrentStreams ?? STREAMS_UNTIL_SETTINGS;
    });
    // Streams in flight fail with the session's error (their readers see it); nothing more to do here.
    h2.on('error', () => undefined);
    h2.on('goaway', () => this.forget(session));
    h2.on('close', () => this.forget(session));
    this.sessions.push(session);
    return session;
  }

  private forget(session: Session): void {
    session.gone = true;
    this.sessions = this.sessions.filter((s) => s !== session);
  }
}

/** A request on a session, or on the session being opened for it. */
class Http2Outgoing implements Outgoing {
  private stream?: http2.ClientHttp2Stream;
  private session?: Session;
  private ended = false;
  private readonly responseListeners: ((res: Response) => void)[] = [];
  private readonly errorListeners: ((err: Error) => void)[] = [];
  private idle?: { ms: number; listener: () => void };

  constructor(
    private readonly pick: () => Session | Promise<Session | undefined>,
    private readonly url: URL,
    private readonly init: RequestInit,
  ) {
    this.startOn(pick());
  }

  private startOn(session: Session | Promise<Session | undefined>): void {
    if (session instanceof Session) return this.start(session);
    session.then(
      (s) => {
        if (this.ended) return;
        if (!s || s.gone || s.h2.destroyed) this.fail(new Error(`${this.url.host} no longer offers HTTP/2`));
        else if (s.usable) this.start(s);
        else this.startOn(this.pick()); // filled by the others waiting for it
      },
      (err: Error) => this.fail(err),
    );
  }

  onResponse(listener: (res: Response) => void): void {
    this.responseListeners.push(listener);
  }

  onError(listener: (err: Error) => void): void {
    this.errorListeners.push(listener);
  }

  destroy(err?: Error): void {
    if (this.ended && !this.stream) return;
    this.ended = true;
    if (!this.stream) {
      if (err) this.fail(err);
      return;
    }
    if (err) this.stream.destroy(err);
    else if (!this.stream.closed) this.stream.close(http2.constants.NGHTTP2_CANCEL);
  }

  idleTimeout(ms: number, listener: () => void): void {
    this.idle = { ms, listener };
    this.stream?.setTimeout(ms, listener);
  }

  get finished(): boolean {
    return this.stream?.readableEnded ?? false;
  }

  get destroyed(): boolean {
    return this.stream ? this.stream.destroyed : this.ended;
  }

  unsent(err: Error): boolean {
    // The session was going away (GOAWAY) or refused the stream: the server never processed it.
    const code = (err as NodeJS.ErrnoException).code;
    return (
      code === 'ERR_HTTP2_GOAWAY_SESSION' ||
      code === 'ERR_HTTP2_INVALID_SESSION' ||
      (code === 'ERR_HTTP2_STREAM_ERROR' && /REFUSED_STREAM/.test(err.message))
    );
  }

  private start(session: Session): void {
    const headers: http2.OutgoingHttpHeaders = {
      ':method': this.init.method,
      ':path': this.url.pathname + this.url.search,
    };
    for (const [name, value] of Object.entries(this.init.headers)) headers[name.toLowerCase()] = value;
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.h2.request(headers, { endStream: this.init.payload === undefined });
    } catch (err) {
      // The session went away between the pick and now: as a refused stream, safe to send again.
      this.fail(err as Error);
      return;
    }
    this.stream = stream;
    this.session = session;
    session.opened();
    stream.on('close', () => this.session?.closed());
    stream.on('response', (h) => {
      const res = { status: Number(h[':status']), headers: h as http.IncomingHttpHeaders, body: stream };
      for (const listener of this.responseListeners) listener(res);
    });
    stream.on('error', (err: Error) => this.fail(err));
    if (this.idle) stream.setTimeout(this.idle.ms, this.idle.listener);
    if (this.init.payload !== undefined) stream.end(this.init.payload);
  }

  private fail(err: Error): void {
    this.ended = true;
    for (const listener of this.errorListeners) listener(err);
  }
}

/** TLS to the server, offering h2 then http/1.1. */
function handshake(server: URL, options: tls.ConnectionOptions): Promise<tls.TLSSocket> {
  const host = server.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      ...options,
      host,
      port: Number(server.port || 443),
      // As node:https does: SNI is the host's name (never an IP address) unless tls-server-name says.
      servername: options.servername ?? (isIP(host) ? undefined : host),
      ALPNProtocols: ['h2', 'http/1.1'],
    });
    const timer = setTimeout(() => {
      const err = new Error(`TLS handshake with ${server.host} took more than ${HANDSHAKE_TIMEOUT_MS} ms`);
      socket.destroy(Object.assign(err, { code: 'ETIMEDOUT' }));
    }, HANDSHAKE_TIMEOUT_MS);
    const onError = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.removeListener('error', onError);
      resolve(socket);
    });
  });
}

/**
 * One PING; true when answered within `timeoutMs`. The answer is looked for once more after the
 * timeout, past the loop's I/O phase: an event loop busy for longer than the timeout must not make a
 * live connection look dead.
 */
function pingOnce(session: Session, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (answered: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      session.unanswered = !answered;
      resolve(answered);
    };
    const timer = setTimeout(() => setImmediate(() => finish(false)), timeoutMs);
    // False: too many PINGs outstanding already, the earlier ones unanswered.
    if (!session.h2.ping((err) => finish(!err))) finish(false);
  });
}

function deadConnection(server: URL): Error {
  const err = new Error(`connection to ${server.host} found dead (no answer to an HTTP/2 PING)`);
  return Object.assign(err, { code: 'ECONNRESET' });
}
