/**
 * One request on the wire, whatever the protocol: `Outgoing` is what ./http's exchange needs of a request
 * in flight (its response, its failure, a way to end it), made over HTTP/1.1 here (`http1Request`, a
 * node:http(s) request on a keep-alive agent) or over HTTP/2 by ./http2. `Response` is what both give:
 * the status, the headers and the body as a stream.
 */
import type * as http from 'node:http';
import type * as https from 'node:https';
import type { Readable } from 'node:stream';

/** A response whose headers are in; its body is read from `body`. */
export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Readable;
}

/** A request sent (or about to be): what ./http's exchange drives. */
export interface Outgoing {
  /** Called once, when the response headers are in. */
  onResponse(listener: (res: Response) => void): void;
  /** Called when the request fails before its response, and when the response's body breaks. */
  onError(listener: (err: Error) => void): void;
  /** Ends the request now, failing it with `err` if given (a response being read errors too). */
  destroy(err?: Error): void;
  /** Calls `listener` once nothing has arrived for `ms` (a watch's longest silence). */
  idleTimeout(ms: number, listener: () => void): void;
  /** Whether the response was read to its end (its connection is then free for the next request). */
  readonly finished: boolean;
  readonly destroyed: boolean;
  /** Whether `err`, met before any response, says the request never reached the server: sending it again is safe. */
  unsent(err: Error): boolean;
}

export interface RequestInit {
  method: string;
  headers: Record<string, string | string[]>;
  payload?: Buffer;
}

/** A request over node:http(s) on `agent`, sent at once. */
export function http1Request(
  mod: typeof http | typeof https,
  url: URL,
  init: RequestInit,
  agent: http.Agent,
): Outgoing {
  const r = mod.request(url, { method: init.method, headers: init.headers, agent });
  let response: http.IncomingMessage | undefined;
  const out: Outgoing = {
    onResponse: (listener) =>
      r.on('response', (res) => {
        response = res;
        listener({ status: res.statusCode ?? 0, headers: res.headers, body: res });
      }),
    onError: (listener) => r.on('error', listener),
    destroy: (err) => r.destroy(err),
    idleTimeout: (ms, listener) => r.setTimeout(ms, listener),
    get finished() {
      return response?.complete ?? false;
    },
    get destroyed() {
      return r.destroyed;
    },
    // The server closed an idle keep-alive connection just as we reused it; the request never reached it
    // (what the Node docs recommend resending).
    unsent: (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      return r.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
    },
  };
  r.end(init.payload);
  return out;
}
