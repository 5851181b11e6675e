import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createLogger, isLevel, type LoggerOptions } from '../../controller/log';
import { NODE_TS } from '../support/node-ts';

function capture(options: LoggerOptions = {}) {
  const lines: string[] = [];
  const log = createLogger({
    now: () => new Date('2025-01-02T03:04:05.678Z'),
    write: (l) => lines.push(l),
    ...options,
  });
  return { log, lines };
}

describe('createLogger', () => {
  test('writes one JSON object per line with time, level, msg and fields', () => {
    const { log, lines } = capture();
    log.info('applied', { kind: 'Memcached', namespace: 'ns', name: 'cache', children: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0])).toEqual({
      time: '2025-01-02T03:04:05.678Z',
      level: 'info',
      msg: 'applied',
      kind: 'Memcached',
      namespace: 'ns',
      name: 'cache',
      children: 3,
    });
  });

  test('drops lines below the level', () => {
    const { log, lines } = capture({ level: 'warn' });
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['w', 'e']);
  });

  test('child loggers add their fields; call fields win; undefined fields are left out', () => {
    const { log, lines } = capture({ level: 'debug' });
    const child = log.child({ kind: 'Balancer', namespace: 'a' }).child({ name: 'b' });
    child.debug('x', { namespace: 'override', extra: undefined });
    expect(JSON.parse(lines[0])).toEqual({
      time: '2025-01-02T03:04:05.678Z',
      level: 'debug',
      msg: 'x',
      kind: 'Balancer',
      namespace: 'override',
      name: 'b',
    });
  });

  test('fields cannot overwrite time, level or msg', () => {
    const { log, lines } = capture();
    log.info('real', { msg: 'fake', level: 'error', time: 'never' });
    expect(JSON.parse(lines[0])).toMatchObject({
      msg: 'real',
      level: 'info',
      time: '2025-01-02T03:04:05.678Z',
    });
  });

  test('errors are logged by message (with status when they have one); cycles do not throw', () => {
    const { log, lines } = capture();
    const apiError = Object.assign(new Error('conflict'), { name: 'ApiError', status: 409 });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    log.error('failed', { error: new Error('boom'), apiError });
    log.error('cyclic', { cyclic });
    expect(JSON.parse(lines[0])).toMatchObject({
      error: 'boom',
      apiError: { message: 'conflict', name: 'ApiError', status: 409 },
    });
    expect(lines[1]).toContain('"msg":"cyclic"');
  });

  test('text format is one readable line, quoting values with spaces', () => {
    const { log, lines } = capture({ format: 'text' });
    log.warn('retrying', { kind: 'Memcached', name: 'a b', n: 2, obj: { x: 1 } });
    expect(lines).toEqual(['03:04:05.678 WARN  retrying kind=Memcached name="a b" n=2 obj={"x":1}\n']);
  });

  test('writes to stderr by default, the lines of one turn of the event loop in one write', async () => {
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const log = createLogger();
      log.info('hello');
      log.info('again');
      expect(spy).not.toHaveBeenCalled();
      await new Promise((r) => setImmediate(r));
      expect(spy).toHaveBeenCalledTimes(1);
      const text = String(spy.mock.calls[0][0]);
      expect(
        text
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { msg: string }).msg),
      ).toEqual(['hello', 'again']);
    } finally {
      spy.mockRestore();
    }
  });

  /** Runs a script with the logger in a child process; its exit code and stderr lines' msg fields. */
  async function inChild(body: string): Promise<{ code: number | null; msgs: string[] }> {
    const script = `
      const { createLogger } = require(${JSON.stringify(join(__dirname, '../../controller/log.ts'))});
      const log = createLogger();
      ${body}`;
    const child = spawn(process.execPath, [...NODE_TS, '-e', script]);
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const msgs = err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    return { code, msgs };
  }

  test('lines still waiting are written when the process exits', async () => {
    const { code, msgs } = await inChild(`
      log.info('one');
      setImmediate(() => {
        log.info('two');
        log.error('three');
        process.exit(3);
      });`);
    expect(code).toBe(3);
    expect(msgs).toEqual(['one', 'two', 'three']);
  }, 30_000);

  test('and when it dies of an uncaught exception', async () => {
    const { code, msgs } = await inChild(`
      log.info('before');
      setImmediate(() => {
        log.error('last words');
        throw new Error('boom');
      });`);
    expect(code).toBe(1);
    expect(msgs).toEqual(['before', 'last words']);
  }, 30_000);

  test('a burst of lines goes out in order, in writes of about 64 KB', async () => {
    const { code, msgs } = await inChild(`
      const n = 3000;
      let writes = 0;
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = (chunk, ...rest) => { writes++; return write(chunk, ...rest); };
      for (let i = 0; i < n; i++) log.info('line ' + i, { padding: 'x'.repeat(40) });
      setImmediate(() => { log.info('writes ' + writes); });`);
    expect(code).toBe(0);
    expect(msgs.slice(0, 3000)).toEqual(Array.from({ length: 3000 }, (_, i) => `line ${i}`));
    // 3,000 lines of about 130 bytes: 390 KB, so 5 or 6 writes of 64 KB, not 3,000.
    const writes = Number(msgs[3000].split(' ')[1]);
    expect(writes).toBeGreaterThanOrEqual(5);
    expect(writes).toBeLessThanOrEqual(7);
  }, 30_000);
});

test('isLevel', () => {
  expect(isLevel('debug')).toBe(true);
  expect(isLevel('trace')).toBe(false);
  expect(isLevel('constructor')).toBe(false);
});
