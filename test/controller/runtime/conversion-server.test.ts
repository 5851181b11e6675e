/**
 * The conversion webhook over real HTTPS connections, its certificates from a CA made by certificates.ts:
 * reviews answered as the API server expects, requests refused with the right status, a certificate
 * rotation while serving, and a stop that lets a request in progress finish.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { caBundle } from '../../../controller/kube/certificates';
import type { Logger } from '../../../controller/log';
import {
  ConversionServer,
  type Convert,
  type ConversionServerOptions,
} from '../../../controller/runtime/conversion-server';
import {
  caA,
  caB,
  call,
  convertWidget,
  review,
  servingA,
  servingB,
  widget,
} from '../../support/conversion-calls';
import { recordingLogger, type LoggedLine } from '../../support/logger';

describe('ConversionServer', () => {
  let servers: ConversionServer[] = [];
  let log: Logger;
  let lines: LoggedLine[];
  let observed: Array<[number, number]>;

  /** A server on a free port of 127.0.0.1 with servingA, stopped after the test. */
  async function serve(
    convert: ConversionServerOptions['convert'] = convertWidget,
    maxBodyBytes?: number,
  ): Promise<ConversionServer> {
    const server = new ConversionServer({
      address: '127.0.0.1:0',
      certificate: servingA,
      convert,
      log,
      maxBodyBytes,
      observe: (seconds, status) => observed.push([seconds, status]),
    });
    await server.start();
    servers.push(server);
    return server;
  }

  beforeEach(() => {
    ({ log, lines } = recordingLogger());
    observed = [];
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
  });

  it('converts every object in order, returns those already in the desired version as they are', async () => {
    const { port } = await serve();
    const already = widget('example.com/v2', 'b', { replicas: 5 });
    const reply = await call(port, {
      path: '/convert?timeout=30s',
      body: review('example.com/v2', [
        widget('example.com/v1', 'a', { size: '3' }),
        already,
        widget('example.com/v1', 'c', { size: '1' }),
      ]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: 'review-1',
        result: { status: 'Success' },
        convertedObjects: [
          widget('example.com/v2', 'a', { replicas: 3 }),
          already,
          widget('example.com/v2', 'c', { replicas: 1 }),
        ],
      },
    });
    expect(lines).toEqual([]);
    expect(observed).toEqual([[expect.any(Number), 200]]);
    expect(port).toBeGreaterThan(0);
  });

  it('fails the whole review when one object fails, naming it, with one log line', async () => {
    const { port } = await serve();
    const reply = await call(port, {
      body: review('example.com/v2', [
        widget('example.com/v1', 'a', { size: '3' }),
        widget('example.com/v1', 'w2', { size: 'broken' }),
      ]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.response).toEqual({
      uid: 'review-1',
      result: {
        status: 'Failure',
        message:
          'converting Widget default/w2 from example.com/v1 to example.com/v2: spec.size "broken" is not a number',
      },
    });
    expect(lines).toEqual([
      {
        level: 'error',
        msg: 'conversion failed',
        fields: {
          uid: 'review-1',
          object: 'Widget default/w2',
          from: 'example.com/v1',
          to: 'example.com/v2',
          error: 'spec.size "broken" is not a number',
        },
      },
    ]);
  });

  it('loads its converter for each review when given a loader: a failure answers 500 and is logged, the next review loads again', async () => {
    let loads = 0;
    const load = () => {
      loads++;
      return loads === 1
        ? Promise.reject(new Error('--kinds /x/kinds.js: boom'))
        : Promise.resolve(convertWidget);
    };
    const server = await serve({ load });
    expect(loads).toBe(0);
    const body = review('example.com/v2', [widget('example.com/v1', 'a', { size: '3' })]);
    const failed = await call(server.port, { body });
    expect(failed.status).toBe(500);
    expect(failed.body.message).toBe('could not load the conversions: --kinds /x/kinds.js: boom');
    expect(lines).toEqual([
      {
        level: 'error',
        msg: 'could not load the conversions',
        fields: { uid: 'review-1', error: '--kinds /x/kinds.js: boom' },
      },
    ]);
    const answered = await call(server.port, { body });
    expect(answered.status).toBe(200);
    expect(answered.body.response?.convertedObjects?.[0].spec).toEqual({ replicas: 3 });
    expect(loads).toBe(2);
  });

  /** A converter that makes its changes to a converted copy. */
  const edit =
    (change: (o: Record<string, unknown>, meta: Record<string, unknown>) => void): Convert =>
    (object, desired) => {
      const out: Record<string, unknown> = structuredClone({ ...object, apiVersion: desired });
      change(out, out.metadata as Record<string, unknown>);
      return out;
    };
  it.each<[string, Convert, string]>([
    ['a new name', edit((_, m) => (m.name = 'other')), 'changed metadata.name: only labels'],
    ['a new namespace', edit((_, m) => (m.namespace = 'x')), 'changed metadata.namespace'],
    ['a new uid', edit((_, m) => (m.uid = 'x')), 'changed metadata.uid'],
    [
      'resourceVersion and generation',
      edit((_, m) => Object.assign(m, { resourceVersion: '8', generation: 3 })),
      'changed metadata.resourceVersion, metadata.generation',
    ],
    ['a finalizer added', edit((_, m) => (m.finalizers = ['f'])), 'changed metadata.finalizers'],
    [
      'another apiVersion',
      edit((o) => (o.apiVersion = 'example.com/v3')),
      'example.com/v3, not example.com/v2',
    ],
    ['another kind', edit((o) => (o.kind = 'Gadget')), 'changed kind Widget to Gadget'],
    ['a label not a string', edit((_, m) => (m.labels = { n: 1 })), 'metadata.labels[n], not a string'],
    // A converter written in JavaScript, which no type stops from returning nothing.
    ['no object', () => JSON.parse('null') as Record<string, unknown>, 'the converter returned no object'],
  ])('refuses a converted object with %s, as the API server would', async (_what, convert, message) => {
    const { port } = await serve(convert);
    const reply = await call(port, { body: review('example.com/v2', [widget('example.com/v1', 'a', {})]) });
    expect(reply.body.response?.result.status).toBe('Failure');
    expect(reply.body.response?.result.message).toContain('converting Widget default/a from example.com/v1');
    expect(reply.body.response?.result.message).toContain(message);
    expect(reply.body.response?.convertedObjects).toBeUndefined();
  });

  it('takes new labels and annotations, and a converter that changes the object it is given', async () => {
    const relabel = edit((_, m) => Object.assign(m, { labels: { app: 'w' }, annotations: { note: 'v2' } }));
    const inPlace: Convert = (object, desired) => {
      (object.metadata as Record<string, unknown>).name = 'mutated'; // the check compares with the original
      return { ...object, apiVersion: desired, metadata: { ...widget('', 'a', {}).metadata } };
    };
    for (const convert of [relabel, inPlace]) {
      const { port } = await serve(convert);
      const reply = await call(port, { body: review('example.com/v2', [widget('example.com/v1', 'a', {})]) });
      expect(reply.body.response?.result).toEqual({ status: 'Success' });
    }
  });

  const empty = review('example.com/v2', []);
  it.each<[string, unknown, string]>([
    ['a body that is not JSON', '{"apiVersion":', 'request body is not JSON'],
    [
      'a v1beta1 review',
      { ...empty, apiVersion: 'apiextensions.k8s.io/v1beta1' },
      'expected a ConversionReview of apiextensions.k8s.io/v1, got apiextensions.k8s.io/v1beta1 ConversionReview',
    ],
    ['another kind', { ...empty, kind: 'AdmissionReview' }, 'got apiextensions.k8s.io/v1 AdmissionReview'],
    ['no request', { ...empty, request: undefined }, 'has no request'],
    [
      'an empty uid',
      { ...empty, request: { ...empty.request, uid: '' } },
      'request.uid is not a non-empty string',
    ],
    ['no desiredAPIVersion', { ...empty, request: { uid: 'u', objects: [] } }, 'request.desiredAPIVersion'],
    [
      'objects not an array',
      { ...empty, request: { ...empty.request, objects: {} } },
      'request.objects is not an array',
    ],
    [
      'an object that is not one',
      review('example.com/v2', [widget('example.com/v1', 'a', {}), 'x']),
      'request.objects[1] is not an object',
    ],
  ])('answers 400 to %s, with a Status that says why', async (_what, body, message) => {
    const { port } = await serve();
    const reply = await call(port, { body });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'BadRequest',
      code: 400,
    });
    expect(reply.body.message).toContain(message);
    expect(lines).toEqual([]);
  });

  it('answers 404 elsewhere, 405 to another method, 413 over the body limit, declared or not', async () => {
    const { port } = await serve(convertWidget, 1024);
    expect((await call(port, { path: '/healthz', method: 'GET' })).status).toBe(404);
    const get = await call(port, { method: 'GET' });
    expect([get.status, get.headers.allow, get.body.reason]).toEqual([405, 'POST', 'MethodNotAllowed']);
    const big = JSON.stringify(
      review('example.com/v2', [widget('example.com/v1', 'a', { pad: 'x'.repeat(2000) })]),
    );
    const declared = await call(port, { body: big });
    expect([declared.status, declared.body.reason]).toEqual([413, 'RequestEntityTooLarge']);
    const chunked = await call(port, { body: big, headers: { 'Transfer-Encoding': 'chunked' } });
    expect(chunked.status).toBe(413);
    const small = await call(port, {
      body: review('example.com/v2', [widget('example.com/v1', 'a', { size: '1' })]),
    });
    expect(small.status).toBe(200);
    expect(observed.map(([, status]) => status)).toEqual([404, 405, 413, 413, 200]);
  });

  it('speaks TLS only', async () => {
    const { port } = await serve();
    const plain = new Promise((resolve, reject) =>
      http.request({ host: '127.0.0.1', port, method: 'POST' }, resolve).on('error', reject).end('{}'),
    );
    await expect(plain).rejects.toThrow();
  });

  it('swaps its certificate while serving: new connections get the new one, open ones keep working', async () => {
    const server = await serve();
    const body = review('example.com/v2', [widget('example.com/v1', 'a', { size: '2' })]);
    const keptAlive = new https.Agent({ keepAlive: true });
    expect((await call(server.port, { body, agent: keptAlive })).status).toBe(200);
    await expect(call(server.port, { body, ca: caB.cert })).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });

    server.setCertificate(servingB);

    expect((await call(server.port, { body, ca: caB.cert })).status).toBe(200);
    const onOpenConnection = await call(server.port, { body, agent: keptAlive });
    expect([onOpenConnection.status, onOpenConnection.reusedSocket]).toEqual([200, true]);
    await expect(call(server.port, { body, ca: caA.cert })).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    expect((await call(server.port, { body, ca: caBundle(caA.cert, caB.cert) })).status).toBe(200);
    keptAlive.destroy();
  });

  it('keeps its certificate when given a key that is not the new one', async () => {
    const server = await serve();
    expect(() => server.setCertificate({ key: servingA.key, cert: servingB.cert })).toThrow();
    const reply = await call(server.port, { body: review('example.com/v2', []) });
    expect(reply.body.response?.result).toEqual({ status: 'Success' });
  });

  it('stops: idle connections close, a request in progress is answered, then no connection is taken', async () => {
    const server = await serve();
    const { port } = server;
    const keptAlive = new https.Agent({ keepAlive: true });
    await call(port, { body: review('example.com/v2', []), agent: keptAlive }); // leaves an idle connection
    const text = JSON.stringify(review('example.com/v2', [widget('example.com/v1', 'a', { size: '4' })]));
    let finish = () => {};
    const answer = call(port, {
      agent: new https.Agent({ keepAlive: true }), // asks to keep it: the answer closes it all the same
      write: (req) => {
        req.write(text.slice(0, 10));
        finish = () => req.end(text.slice(10));
      },
    });
    await new Promise((r) => setTimeout(r, 100)); // the server has the headers and part of the body
    const stopped = server.stop();
    finish();
    // stop() resolves once every connection closed, the idle keep-alive one included.
    const [reply] = await Promise.all([answer, stopped]);
    expect([reply.status, reply.headers.connection, reply.body.response?.convertedObjects?.[0].spec]).toEqual(
      [200, 'close', { replicas: 4 }],
    );
    await expect(call(port, { body: review('example.com/v2', []) })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await server.stop(); // a second stop is a no-op
    keptAlive.destroy();
  });

  it('stops within its grace even when a client never finishes (a shutdown is bounded)', async () => {
    const server = await serve();
    const stalled = call(server.port, { write: (req) => req.write('{"apiVersion":') }).catch(
      (err: Error) => err,
    );
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await server.stop(200);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(((await stalled) as Error).message).toMatch(/socket hang up|ECONNRESET/); // its connection was closed
  });

  it('says which address it could not listen on', async () => {
    const first = await serve();
    const options = { certificate: servingA, convert: convertWidget, log };
    const taken = new ConversionServer({ ...options, address: `127.0.0.1:${first.port}` });
    await expect(taken.start()).rejects.toThrow(`listen on 127.0.0.1:${first.port}: listen EADDRINUSE`);
    expect(() => new ConversionServer({ ...options, address: 'nowhere' })).toThrow(
      'address "nowhere" is not host:port',
    );
  });
});
