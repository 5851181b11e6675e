/**
 * The CRD conversion webhook: the API server POSTs a `ConversionReview` (apiextensions.k8s.io/v1) to
 * `/convert` over TLS whenever it reads or writes a custom resource in a version other than the stored
 * one, and takes back the objects converted, in order, or one failure for the whole review. As
 * controller-runtime's `pkg/webhook/conversion`, with the checks the API server makes on the answer done
 * here first, so that a converter's mistake fails with a message that names the object and the field.
 * The serving certificate can be swapped while serving (`setCertificate`): a rotation drops no request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type { Kind, KindRegistry } from '../../constructs/kit';
import type { Logger } from '../log';
import { parseAddress } from './server';

/** A whole object converted to `desiredAPIVersion`, metadata included; it throws when it cannot. */
export type Convert = (object: Record<string, unknown>, desiredAPIVersion: string) => Record<string, unknown>;

/** Conversion by each object's kind in `kinds`. */
export function registryConvert(kinds: KindRegistry): Convert {
  return (object, apiVersion) => {
    const kind = kinds.get(String(object.apiVersion), String(object.kind));
    if (!kind) throw new Error(`no kind ${String(object.apiVersion)} ${String(object.kind)} here`);
    return kind.convert(object as Parameters<Kind['convert']>[0], apiVersion);
  };
}

/** What serves the conversions: a ConversionServer here, or the serving thread's (controller/serving). */
export interface ConversionEndpoint {
  /** The port bound. */
  readonly port: number;
  /** Serves new connections with this key and certificate. */
  setCertificate(certificate: { readonly key: string; readonly cert: string }): void;
  /** Stops serving, answering the requests in progress for up to `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ConversionServerOptions {
  /** `host:port`, `:port` or `[v6]:port`; port 0 picks a free one (`port` then says which). */
  readonly address: string;
  /** The serving key and certificate, PEM. */
  readonly certificate: { readonly key: string; readonly cert: string };
  /**
   * Converts one object; or what loads the converter, awaited before each review is answered (keep what
   * it loads: it is asked again every time), so that a process loads the kinds' modules only once a
   * conversion is asked for (the serving thread does). A failure to load answers the review 500, and
   * the next review asks again.
   */
  readonly convert: Convert | { readonly load: () => Promise<Convert> };
  /** Gets one line per failed conversion; none per success. */
  readonly log: Logger;
  /**
   * The largest request body taken; larger ones get 413. A review holds every object of a list page
   * that needs converting, not one object, so this is well above the API server's 3 MiB per object, and
   * below what a 256 MiB controller can parse and answer twice over.
   * @default 8 MiB
   */
  readonly maxBodyBytes?: number;
  /** Called once per request answered, with its duration and HTTP status (a latency histogram). */
  readonly observe?: (seconds: number, httpStatus: number) => void;
}

const REVIEW_API_VERSION = 'apiextensions.k8s.io/v1';
const REVIEW_KIND = 'ConversionReview';

/** The part of a ConversionReview that is read; anything else in it is ignored. */
interface ConversionRequest {
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: readonly Record<string, unknown>[];
}

export class ConversionServer implements ConversionEndpoint {
  private readonly server: https.Server;
  private readonly listenOn: { readonly host?: string; readonly port: number };
  private readonly maxBodyBytes: number;

  /** Throws for an address that is not `host:port`. */
  constructor(private readonly options: ConversionServerOptions) {
    this.listenOn = parseAddress(options.address);
    this.maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
    const { key, cert } = options.certificate;
    this.server = https.createServer({ key, cert }, (req, res) => {
      const started = process.hrtime.bigint();
      res.once('finish', () =>
        this.options.observe?.(Number(process.hrtime.bigint() - started) / 1e9, res.statusCode),
      );
      this.answer(req).then(
        (answer) => this.send(res, answer),
        // A client gone mid-body.
        () => res.destroy(),
      );
    });
    // The API server keeps its connections to a webhook open (Go's transport: 90 s idle), and the
    // webhook's timeout is at most 30 s: a longer idle time saves handshakes, a request takes no longer.
    this.server.keepAliveTimeout = 60_000;
    this.server.requestTimeout = 30_000;
  }

  /** Listens on the address; rejects with the address when it cannot (in use, not local). */
  start(): Promise<void> {
    const { host, port } = this.listenOn;
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(new Error(`listen on ${this.options.address}: ${err.message}`));
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
  }

  /** The port listened on (the one picked when the address said 0). */
  get port(): number {
    const address = this.server.address() as AddressInfo | null;
    if (!address) throw new Error('ConversionServer: not started');
    return address.port;
  }

  /**
   * Serves new connections with this key and certificate, without closing the server: connections
   * already made keep theirs. Throws (and keeps the one in place) when the key is not the certificate's.
   */
  setCertificate(certificate: { readonly key: string; readonly cert: string }): void {
    this.server.setSecureContext({ key: certificate.key, cert: certificate.cert });
  }

  /**
   * Stops taking connections, closes the idle ones, and resolves once the requests in progress are
   * answered (their connections close after the answer), or after `graceMs`, when every connection left
   * is closed: the API server keeps its connections open for 90 s, and a shutdown must not wait for them.
   */
  stop(graceMs = 2000): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      const timer = setTimeout(() => this.server.closeAllConnections(), graceMs);
      this.server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      this.server.closeIdleConnections();
    });
  }

  /** What a request gets: a review answered (200), or a Status that says why not. */
  private async answer(req: IncomingMessage): Promise<Answer> {
    const path = (req.url ?? '/').split('?')[0]; // the API server adds ?timeout=
    if (path !== '/convert') return status(404, 'NotFound', `no webhook at ${path}: POST /convert`);
    if (req.method !== 'POST') {
      return { ...status(405, 'MethodNotAllowed', `${req.method} /convert: only POST`), allow: 'POST' };
    }
    const body = await readBody(req, this.maxBodyBytes);
    if (body === undefined) {
      const tooLarge = status(413, 'RequestEntityTooLarge', `request body over ${this.maxBodyBytes} bytes`);
      return { ...tooLarge, close: true }; // the rest of the body is not read
    }
    let review: { apiVersion: string; kind: string; request: ConversionRequest };
    try {
      review = parseReview(body);
    } catch (err) {
      return status(400, 'BadRequest', errorMessage(err));
    }
    const { apiVersion, kind, request } = review;
    let convert: Convert;
    try {
      convert =
        typeof this.options.convert === 'function' ? this.options.convert : await this.options.convert.load();
    } catch (err) {
      this.options.log.error('could not load the conversions', {
        uid: request.uid,
        error: errorMessage(err),
      });
      return status(500, 'InternalError', `could not load the conversions: ${errorMessage(err)}`);
    }
    return { code: 200, body: { apiVersion, kind, response: this.review(request, convert) } };
  }

  /** Writes an answer; once stopping, with `Connection: close`, so that stop() is not kept waiting. */
  private send(res: ServerResponse, answer: Answer): void {
    let text: string;
    try {
      text = JSON.stringify(answer.body);
    } catch (err) {
      return this.send(res, status(500, 'InternalError', errorMessage(err))); // a cyclic converted object
    }
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    if (answer.allow) res.setHeader('Allow', answer.allow);
    if (answer.close || !this.server.listening) res.setHeader('Connection', 'close');
    res.writeHead(answer.code);
    res.end(text);
  }

  /** The response to a review: every object converted, or the first failure, which fails them all. */
  private review(request: ConversionRequest, convert: Convert): Record<string, unknown> {
    const { uid, desiredAPIVersion, objects } = request;
    const convertedObjects: Record<string, unknown>[] = [];
    for (const object of objects) {
      try {
        convertedObjects.push(convertOne(convert, object, desiredAPIVersion));
      } catch (err) {
        const [what, from, error] = [nameOf(object), String(object.apiVersion), errorMessage(err)];
        this.options.log.error('conversion failed', {
          uid,
          object: what,
          from,
          to: desiredAPIVersion,
          error,
        });
        const message = `converting ${what} from ${from} to ${desiredAPIVersion}: ${error}`;
        return { uid, result: { status: 'Failure', message } };
      }
    }
    return { uid, result: { status: 'Success' }, convertedObjects };
  }
}

/** One object converted and checked; an object already in the desired version comes back as it is. */
function convertOne(
  convert: Convert,
  object: Record<string, unknown>,
  desiredAPIVersion: string,
): Record<string, unknown> {
  if (object.apiVersion === desiredAPIVersion) return object;
  const before = { kind: object.kind, metadata: structuredClone(object.metadata) }; // convert may mutate
  const converted: unknown = convert(object, desiredAPIVersion);
  if (!isObject(converted)) throw new Error('the converter returned no object');
  const problem = refusal(before, converted, desiredAPIVersion);
  if (problem) throw new Error(problem);
  return converted;
}

/**
 * Why the API server would refuse a converted object, or undefined: another apiVersion than desired,
 * another kind, metadata changed beyond labels and annotations (the API server refuses a new name,
 * namespace or uid, and silently undoes any other change, so a converter that makes one has a bug), or
 * a label or annotation that is not a string.
 */
function refusal(
  before: { kind: unknown; metadata: unknown },
  converted: Record<string, unknown>,
  desiredAPIVersion: string,
): string | undefined {
  if (converted.apiVersion !== desiredAPIVersion) {
    return `the converter returned apiVersion ${String(converted.apiVersion)}, not ${desiredAPIVersion}`;
  }
  if (converted.kind !== before.kind) {
    return `the converter changed kind ${String(before.kind)} to ${String(converted.kind)}`;
  }
  const was = isObject(before.metadata) ? before.metadata : {};
  const now = isObject(converted.metadata) ? converted.metadata : {};
  const changed = [...new Set([...Object.keys(was), ...Object.keys(now)])]
    .filter((field) => !MUTABLE_METADATA.has(field) && !isDeepStrictEqual(was[field], now[field]))
    .map((field) => `metadata.${field}`);
  if (changed.length > 0) {
    return `the converter changed ${changed.join(', ')}: only labels and annotations may change`;
  }
  for (const field of MUTABLE_METADATA) {
    const map = now[field];
    if (map === undefined || map === null) continue;
    if (!isObject(map)) return `the converter returned metadata.${field} that is not a map`;
    const notString = Object.keys(map).find((k) => typeof map[k] !== 'string');
    if (notString !== undefined)
      return `the converter returned metadata.${field}[${notString}], not a string`;
  }
  return undefined;
}

const MUTABLE_METADATA = new Set(['labels', 'annotations']);

/** The review in a request body, or an error that says what is wrong with it (a 400). */
function parseReview(body: Buffer): { apiVersion: string; kind: string; request: ConversionRequest } {
  let review: unknown;
  try {
    review = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new Error(`request body is not JSON: ${errorMessage(err)}`);
  }
  if (!isObject(review) || review.apiVersion !== REVIEW_API_VERSION || review.kind !== REVIEW_KIND) {
    const what = isObject(review) ? `${String(review.apiVersion)} ${String(review.kind)}` : typeof review;
    throw new Error(`expected a ${REVIEW_KIND} of ${REVIEW_API_VERSION}, got ${what}`);
  }
  const request = review.request;
  if (!isObject(request)) throw new Error(`the ${REVIEW_KIND} has no request`);
  for (const field of ['uid', 'desiredAPIVersion'] as const) {
    if (typeof request[field] !== 'string' || request[field] === '') {
      throw new Error(`request.${field} is not a non-empty string`);
    }
  }
  const objects = request.objects;
  if (!Array.isArray(objects)) throw new Error('request.objects is not an array');
  const notObject = objects.findIndex((o) => !isObject(o));
  if (notObject >= 0) throw new Error(`request.objects[${notObject}] is not an object`);
  return {
    apiVersion: REVIEW_API_VERSION,
    kind: REVIEW_KIND,
    request: {
      uid: request.uid as string,
      desiredAPIVersion: request.desiredAPIVersion as string,
      objects: objects as Record<string, unknown>[],
    },
  };
}

/** The body, or undefined once it is over `limit` bytes (declared or counted); reading then stops. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** An HTTP answer: its status, its JSON body, and the headers that some need. */
interface Answer {
  readonly code: number;
  readonly body: unknown;
  readonly allow?: string;
  /** Close the connection after it. */
  readonly close?: boolean;
}

/** An error answered as the API server answers one (a metav1.Status), which its client reads back. */
function status(code: number, reason: string, message: string): Answer {
  return {
    code,
    body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code },
  };
}

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object, as a failure names it. */
function nameOf(object: Record<string, unknown>): string {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '(no name)';
  const key = typeof metadata.namespace === 'string' ? `${metadata.namespace}/${name}` : name;
  return `${String(object.kind)} ${key}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));
