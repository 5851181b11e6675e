/**
 * The streaming watch request: opens a `watch=true` GET on the watches' connection pool (./http) and
 * yields the server's newline-delimited watch events as they arrive. What to do when a watch ends
 * (re-watch, relist, back off) is the informer's reflector's business, not this one's.
 */
import { ApiError, isObject } from './errors';
import {
  abortError,
  describe,
  type Exchange,
  headerValue,
  type HttpClient,
  type KubeRequest,
  networkError,
  readBody,
  seconds,
} from './http';

/** A watch event as the API server streams it. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the object of the event's kind, narrowed by the informer that asked
  object: any;
}

/**
 * Streams a watch: yields each parsed watch event as it arrives; ends when the server closes; throws
 * ApiError on abort, timeout, a non-2xx answer or a broken stream. Reported to `http.onRequest` as a
 * `watch` when it ends.
 */
export async function* watch(http: HttpClient, req: KubeRequest): AsyncGenerator<WatchEvent> {
  const started = process.hrtime.bigint();
  let code = 0;
  let exchange: Exchange | undefined;
  try {
    exchange = await http.open({ ...req, query: { ...req.query, watch: true }, method: 'GET' }, true);
    const res = exchange.res;
    code = res.status;
    if (code < 200 || code > 299) {
      const text = await readBody(res.body);
      throw ApiError.fromResponse(code, text, describe(req), headerValue(res.headers['retry-after']));
    }
    let buffer = '';
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
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
    http.onRequest?.('watch', code, seconds(started), req);
  }
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
