/**
 * A throwaway MariaDB server for one test file or the demo (the MySQL samples' server): a fresh data directory (mariadb-install-db) in a temp
 * directory, `mariadbd` on 127.0.0.1 at a free port with its own socket and pid file (so it never meets
 * another server on the machine), and an admin account with a random password that may create
 * databases, users and grants (WITH GRANT OPTION). `stop()` really stops it (for outage tests), `start()`
 * brings it back on the same data and port, `destroy()` stops it and removes the directory.
 *
 *   let server: MariadbServer;
 *   beforeAll(async () => { server = await startMariadb(); }, MARIADB_START_TIMEOUT);
 *   afterAll(() => server?.destroy());
 *
 * Needs `mariadbd` (bash scripts/mariadb/install.sh); settings keep it small and quick on a busy
 * machine (a 16 MB buffer pool, no doublewrite, no fsync per commit, no performance schema).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { sleep } from '../controller/abortable';
import type { ServerConnection } from '../constructs/mysql-server/server';
import { freePort } from '../controller/runtime/server';

/** For beforeAll: installing the data directory and starting take a few seconds, more on a loaded machine. */
export const MARIADB_START_TIMEOUT = 120_000;

export interface MariadbServer extends ServerConnection {
  /** Stops the server (SIGTERM, then SIGKILL after 30 s) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same data directory and port; resolves once it accepts the admin account. */
  start(): Promise<void>;
  /** A statement as the admin account, on a connection of its own. */
  sql<T = Record<string, unknown>[]>(query: string, values?: unknown[]): Promise<T>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/** `name` on PATH or in the sbin directories (Debian puts mariadbd in /usr/sbin, not on every PATH). */
function findProgram(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(file: string, args: string[], timeout: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} failed: ${error.message}\n${stdout}${stderr}`.trim()));
      else resolve();
    });
  });
}

/** Whether this machine has MariaDB's server (mariadbd and mariadb-install-db). */
export function mariadbInstalled(): boolean {
  return findProgram('mariadbd') !== undefined && findProgram('mariadb-install-db') !== undefined;
}

/** Starts a throwaway server; see the file's comment. */
export async function startMariadb(): Promise<MariadbServer> {
  const mariadbd = findProgram('mariadbd');
  const installDb = findProgram('mariadb-install-db');
  if (!mariadbd || !installDb) {
    throw new Error('MariaDB is not installed (no mariadbd): run `bash scripts/mariadb/install.sh`');
  }
  const dir = mkdtempSync(join(tmpdir(), 'reconstruct-mariadb-'));
  const datadir = join(dir, 'data');
  const errorLog = join(dir, 'error.log');
  const user = userInfo().username;
  const small = [
    '--innodb-buffer-pool-size=16M',
    '--innodb-log-file-size=8M',
    '--innodb-use-native-aio=0',
    '--innodb-doublewrite=0',
    '--innodb-flush-log-at-trx-commit=0',
  ];
  const username = 'reconstruct_admin';
  const password = randomBytes(18).toString('base64url');
  const port = await freePort();
  // Run at each start (idempotent): the admin account, as the first connection finds it.
  const initFile = join(dir, 'init.sql');
  writeFileSync(
    initFile,
    `CREATE USER IF NOT EXISTS '${username}'@'%' IDENTIFIED BY '${password}';\n` +
      `GRANT ALL PRIVILEGES ON *.* TO '${username}'@'%' WITH GRANT OPTION;\n`,
    { mode: 0o600 },
  );
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  try {
    await run(
      installDb,
      [
        '--no-defaults',
        `--datadir=${datadir}`,
        `--user=${user}`,
        '--skip-test-db',
        '--skip-name-resolve',
        ...small,
      ],
      MARIADB_START_TIMEOUT,
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    process.removeListener('exit', killOnExit);
    throw error;
  }

  const config = { host: '127.0.0.1', port, user: username, password, connectTimeout: 10_000 };
  const sql = async <T>(query: string, values: unknown[] = []): Promise<T> => {
    const connection = await createConnection(config);
    try {
      const [result] = await connection.query(query, values);
      return result as T;
    } finally {
      await connection.end();
    }
  };

  const start = async () => {
    if (child) return;
    const started = spawn(
      mariadbd,
      [
        '--no-defaults',
        `--datadir=${datadir}`,
        `--socket=${join(dir, 'mariadbd.sock')}`,
        `--pid-file=${join(dir, 'mariadbd.pid')}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--skip-networking=0',
        `--user=${user}`,
        '--skip-name-resolve',
        '--performance-schema=OFF',
        `--log-error=${errorLog}`,
        `--init-file=${initFile}`,
        ...small,
      ],
      { stdio: 'ignore' },
    );
    child = started;
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + MARIADB_START_TIMEOUT;
    for (;;) {
      const code = await Promise.race([exited, sleep(200).then(() => 'waiting' as const)]);
      if (code !== 'waiting') {
        child = undefined;
        throw new Error(`mariadbd exited (${code}) as it started:\n${tail(errorLog)}`);
      }
      try {
        await sql('SELECT 1');
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(
            `mariadbd did not accept the admin account in time (${String(error)}):\n${tail(errorLog)}`,
          );
        }
      }
    }
  };

  const stop = async () => {
    const running = child;
    if (!running) return;
    if (running.exitCode === null && running.signalCode === null) {
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    child = undefined;
  };

  try {
    await start();
  } catch (error) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    process.removeListener('exit', killOnExit);
    throw error;
  }
  return {
    host: '127.0.0.1',
    port,
    username,
    password,
    start,
    stop,
    sql,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
      process.removeListener('exit', killOnExit);
    },
  };
}

/** The last lines of the server's error log, for a failure message. */
function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
  } catch {
    return '(no error log)';
  }
}
