import { createLogger, isLevel, type LoggerOptions } from '../../controller/log';

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

  test('writes to stderr by default', () => {
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      createLogger().info('hello');
      expect(spy).toHaveBeenCalledWith(expect.stringContaining('"msg":"hello"'));
    } finally {
      spy.mockRestore();
    }
  });
});

test('isLevel', () => {
  expect(isLevel('debug')).toBe(true);
  expect(isLevel('trace')).toBe(false);
  expect(isLevel('constructor')).toBe(false);
});
