/**
 * A tiny structured logger: one JSON object per line on stderr (time, level, msg, fields), or a
 * readable line when a human is watching. No dependency: the controller logs a few lines per
 * reconcile, so a fast serializer (pino) would buy nothing worth a dependency and a worker thread.
 */

export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds these fields to every line (e.g. kind, namespace, name). */
  child(fields: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  /** Lines below this level are dropped. Default: info. */
  level?: Level;
  /** `json` (one object per line) or `text` (for a terminal). Default: json. */
  format?: 'json' | 'text';
  /** Where lines go. Default: process.stderr, the lines of one turn of the event loop in one write. */
  write?: (line: string) => void;
  /** The clock, for tests. Default: `() => new Date()`. */
  now?: () => Date;
}

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** True for the level names the logger understands (for validating a --log-level flag). */
export function isLevel(value: string): value is Level {
  return Object.prototype.hasOwnProperty.call(ORDER, value);
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? 'info'];
  const format = options.format ?? 'json';
  const write = options.write ?? stderrWriter();
  const now = options.now ?? (() => new Date());

  const make = (bound: Record<string, unknown>): Logger => {
    const emit = (level: Level, msg: string, fields?: Record<string, unknown>) => {
      if (ORDER[level] < min) return;
      const all = fields ? { ...bound, ...fields } : bound;
      const time = now().toISOString();
      write(format === 'json' ? jsonLine(time, level, msg, all) : textLine(time, level, msg, all));
    };
    return {
      debug: (msg, fields) => emit('debug', msg, fields),
      info: (msg, fields) => emit('info', msg, fields),
      warn: (msg, fields) => emit('warn', msg, fields),
      error: (msg, fields) => emit('error', msg, fields),
      child: (fields) => make({ ...bound, ...fields }),
    };
  };
  return make({});
}

let sharedStderr: ((line: string) => void) | undefined;

/**
 * Lines to stderr, batched: the lines logged in one turn of the event loop go out in one write (a write
 * to a pipe is a system call, and a burst of reconciles logs a line per resource), at the latest once 64 K
 * characters wait. Whatever waits is written when the process exits, however it exits short of being killed.
 */
function stderrWriter(): (line: string) => void {
  if (sharedStderr) return sharedStderr;
  let waiting: string[] = [];
  let size = 0; // characters waiting
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const text = waiting.join('');
    waiting = [];
    size = 0;
    process.stderr.write(text);
  };
  process.on('exit', flush);
  sharedStderr = (line) => {
    waiting.push(line);
    size += line.length;
    if (size >= 64 * 1024) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return sharedStderr;
}

/** A logger that drops everything (the default where a logger is optional). */
export const nullLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => nullLogger,
};

function jsonLine(time: string, level: Level, msg: string, fields: Record<string, unknown>): string {
  const record: Record<string, unknown> = { time, level, msg };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || key === 'time' || key === 'level' || key === 'msg') continue;
    record[key] = normalize(value);
  }
  try {
    return JSON.stringify(record, bigints) + '\n';
  } catch {
    // A cyclic or otherwise unserializable field costs that field, not the line.
    for (const [key, value] of Object.entries(record))
      record[key] = JSON.parse(safeStringify(value)) as unknown;
    return JSON.stringify(record) + '\n';
  }
}

function textLine(time: string, level: Level, msg: string, fields: Record<string, unknown>): string {
  let line = `${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${msg}`;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const v = normalize(value);
    if (typeof v === 'string') line += ` ${key}=${/[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v}`;
    else line += ` ${key}=${safeStringify(v)}`;
  }
  return line + '\n';
}

/** Errors become their message (and stack at debug level would be noise); the rest is as is. */
function normalize(value: unknown): unknown {
  if (value instanceof Error) {
    const out: Record<string, unknown> = { message: value.message };
    if (value.name !== 'Error') out.name = value.name;
    const status = (value as { status?: unknown }).status;
    if (status !== undefined) out.status = status;
    return value.name === 'Error' && status === undefined ? value.message : out;
  }
  return value;
}

const bigints = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, bigints) ?? 'null';
  } catch (err) {
    return JSON.stringify(
      `[unserializable: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}]`,
    );
  }
}
