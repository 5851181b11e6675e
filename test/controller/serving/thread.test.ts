/**
 * The serving thread as the controller runs it (a real worker thread, from the TypeScript sources through
 * tsx): /healthz and a conversion answered while the main thread is busy, /readyz and /metrics from the
 * main thread's word, and /healthz failing once the main thread has been silent too long.
 */
import { execFile } from 'node:child_process';
import * as http from 'node:http';
import { join } from 'node:path';
import { issueServingCertificate, newCertificateAuthority } from '../../../controller/kube/certificates';
import { ServingThread, type ServingThreadOptions } from '../../../controller/serving/thread';
import { recordingLogger } from '../../support/logger';

const VERSIONED = join(__dirname, '../../fixtures/kinds/versioned.ts');
const threads: ServingThread[] = [];

async function start(options: Partial<ServingThreadOptions> = {}): Promise<ServingThread> {
  const thread = await ServingThread.start({
    healthAddress: '127.0.0.1:0',
    ready: () => true,
    checks: () => [],
    log: recordingLogger().log,
    ...options,
  });
  threads.push(thread);
  return thread;
}
afterEach(async () => {
  await Promise.all(threads.splice(0).map((t) => t.close()));
});

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/**
 * Asks `url` from another process `delayMs` from now and resolves what it measured: the answer's status
 * and how long it took. This process's thread can be busy meanwhile.
 */
interface Asked {
  status: number;
  ms: number;
  text: string;
}
function askFromElsewhere(url: string, delayMs: number, convert = false): Promise<Asked> {
  const script = `
    const [url, delay, body] = process.argv.slice(1);
    setTimeout(() => {
      const lib = url.startsWith('https') ? require('node:https') : require('node:http');
      const started = performance.now();
      const req = lib.request(url, { method: body ? 'POST' : 'GET', rejectUnauthorized: false,
        headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, ms: performance.now() - started, text })));
      });
      req.end(body || undefined);
    }, Number(delay));`;
  const body = convert ? JSON.stringify(review) : '';
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['-e', script, url, String(delayMs), body], (err: Error | null, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout) as Asked),
    ),
  );
}

/** Keeps this thread busy (no event loop turn) for `ms`. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the main thread's reconciles, in effect
  }
}

const review = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: {
    uid: 'review-1',
    desiredAPIVersion: 'versions.example.com/v1alpha1',
    objects: [
      {
        apiVersion: 'versions.example.com/v1beta1',
        kind: 'Banner',
        metadata: { name: 'hello', namespace: 'default', uid: 'u1' },
        spec: { message: 'hi', style: 'formal', replicas: 1 },
      },
    ],
  },
};

describe('ServingThread', () => {
  test('/healthz answers at once while the main thread is busy for 2 s', async () => {
    const thread = await start();
    const asked = askFromElsewhere(`http://127.0.0.1:${thread.healthPort}/healthz`, 700);
    busy(2500);
    const { status, ms } = await asked;
    expect(status).toBe(200);
    expect(ms).toBeLessThan(1000); // on the main thread it would wait for the 2.5 s to end
  });

  test('/readyz says what the main thread said last; ?verbose lists its checks', async () => {
    let ready = false;
    const thread = await start({
      ready: () => ready,
      checks: () => [{ name: 'kind Banner', ok: ready, message: ready ? 'ready' : 'syncing' }],
      stateEveryMs: 50,
    });
    expect(await get(thread.healthPort, '/readyz')).toEqual({ status: 503, body: 'not ready\n' });
    ready = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await get(thread.healthPort, '/readyz?verbose')).toEqual({
      status: 200,
      body: '[+]kind Banner ready\nreadyz check passed\n',
    });
  });

  test('/healthz fails once the main thread has said nothing for livenessMs, naming how long', async () => {
    const thread = await start({ livenessMs: 300, stateEveryMs: 60_000 });
    expect((await get(thread.healthPort, '/healthz')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await get(thread.healthPort, '/healthz')).toEqual({
      status: 500,
      body: "the controller's main thread has not answered for 1 s\n",
    });
  });

  test('/metrics on the health port is what the main thread renders', async () => {
    const thread = await start({ metrics: () => Promise.resolve('reconstruct_up 1\n') });
    expect(await get(thread.healthPort, '/metrics')).toEqual({ status: 200, body: 'reconstruct_up 1\n' });
  });

  test('a port taken: start rejects naming the address', async () => {
    const first = await start();
    await expect(start({ healthAddress: `127.0.0.1:${first.healthPort}` })).rejects.toThrow(
      `listen on 127.0.0.1:${first.healthPort}: listen EADDRINUSE`,
    );
  });

  test('conversions by the kinds of their module, loaded for the first review, then answered while the main thread is busy', async () => {
    const observed: number[] = [];
    const { log, lines } = recordingLogger();
    const thread = await start({
      kinds: { modules: [VERSIONED], builtin: false },
      log,
      observe: (_seconds, code) => observed.push(code),
    });
    expect(thread.converts).toBe(true);
    const ca = newCertificateAuthority({ commonName: 'webhook-ca' });
    const endpoint = await thread.serveConversions('127.0.0.1:0', issueServingCertificate(ca, ['127.0.0.1']));
    const url = `https://127.0.0.1:${endpoint.port}/convert`;
    const loaded = () => lines.filter((l) => l.msg === 'loaded the kinds for the first conversion');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(loaded()).toEqual([]);
    const first = await askFromElsewhere(url, 0, true);
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(loaded().map((l) => [l.level, typeof l.fields?.ms])).toEqual([['info', 'number']]);
    const asked = askFromElsewhere(url, 700, true);
    busy(2500);
    const { status, ms, text } = await asked;
    expect(status).toBe(200);
    expect(ms).toBeLessThan(1000);
    const answer = JSON.parse(text) as { response: { convertedObjects: { spec: unknown }[] } };
    expect(answer.response.convertedObjects[0].spec).toEqual({ text: 'hi', formal: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(observed).toEqual([200, 200]);
    expect(loaded()).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    await endpoint.stop();
  }, 30_000);

  test('a new certificate whose key is not its own: said in one line, the one in place serves on', async () => {
    const { log, lines } = recordingLogger();
    const thread = await start({ kinds: { modules: [VERSIONED], builtin: false }, log });
    const ca = newCertificateAuthority({ commonName: 'webhook-ca' });
    const [first, second] = [
      issueServingCertificate(ca, ['127.0.0.1']),
      issueServingCertificate(ca, ['127.0.0.1']),
    ];
    const endpoint = await thread.serveConversions('127.0.0.1:0', first);
    endpoint.setCertificate({ key: first.key, cert: second.cert });
    const { status } = await askFromElsewhere(`https://127.0.0.1:${endpoint.port}/convert`, 0, true);
    expect(status).toBe(200);
    expect(lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
      'could not take up the conversion webhook certificate',
    ]);
  }, 30_000);

  test('a module that cannot load: serving conversions rejects with its message', async () => {
    const thread = await start({ kinds: { modules: ['/nowhere/kinds.js'], builtin: false } });
    const ca = newCertificateAuthority({ commonName: 'webhook-ca' });
    await expect(
      thread.serveConversions('127.0.0.1:0', issueServingCertificate(ca, ['127.0.0.1'])),
    ).rejects.toThrow('--kinds /nowhere/kinds.js: no such file');
  });
});
