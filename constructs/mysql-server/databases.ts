/** A MysqlDatabase on the server: read it, create or alter it to match, drop it. */
import {
  MysqlServerError,
  type OperationOptions,
  type ServerConnection,
  type Session,
  withSession,
} from './connection';
import { checkCharsetName, checkDatabaseName, quoteIdentifier } from './names';

/** A database as the server has it (what `status.observed` shows). */
export interface ObservedDatabase {
  readonly name: string;
  readonly characterSet: string;
  readonly collation: string;
}

/** A database as wanted: the spec's values (its schema holds the defaults). */
export type WantedDatabase = ObservedDatabase;

async function readDatabase(session: Session, name: string): Promise<ObservedDatabase | undefined> {
  const rows = await session.rows(
    'SELECT SCHEMA_NAME AS name, DEFAULT_CHARACTER_SET_NAME AS characterSet, DEFAULT_COLLATION_NAME AS collation ' +
      'FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
    [name],
  );
  // The comparison above may ignore case (the server's collation): the name itself must match.
  const row = rows.find((r) => r.name === name);
  return row && { name, characterSet: String(row.characterSet), collation: String(row.collation) };
}

/** The database named `name`, or undefined when there is none. Reads only. */
export async function observeDatabase(
  server: ServerConnection,
  name: string,
  options?: OperationOptions,
): Promise<ObservedDatabase | undefined> {
  checkDatabaseName(name, 'name');
  return withSession(server, (session) => readDatabase(session, name), options);
}

/**
 * Creates the database, or alters its character set and collation where they differ from `wanted`;
 * resolves what the server then has.
 */
export async function applyDatabase(
  server: ServerConnection,
  wanted: WantedDatabase,
  options?: OperationOptions,
): Promise<ObservedDatabase> {
  checkDatabaseName(wanted.name, 'name');
  checkCharsetName(wanted.characterSet, 'characterSet');
  checkCharsetName(wanted.collation, 'collation');
  const settings = `CHARACTER SET ${wanted.characterSet} COLLATE ${wanted.collation}`;
  const name = quoteIdentifier(wanted.name);
  return withSession(
    server,
    async (session) => {
      const observed = await readDatabase(session, wanted.name);
      if (!observed) {
        await session.run(`CREATE DATABASE IF NOT EXISTS ${name} ${settings}`);
      } else if (observed.characterSet !== wanted.characterSet || observed.collation !== wanted.collation) {
        await session.run(`ALTER DATABASE ${name} ${settings}`);
      }
      const now = await readDatabase(session, wanted.name);
      if (!now)
        throw new MysqlServerError(
          'Invalid',
          `database ${JSON.stringify(wanted.name)} was dropped as it was made`,
        );
      return now;
    },
    options,
  );
}

/** Drops the database and everything in it; nothing when there is none. */
export async function dropDatabase(
  server: ServerConnection,
  name: string,
  options?: OperationOptions,
): Promise<void> {
  checkDatabaseName(name, 'name');
  await withSession(
    server,
    (session) => session.run(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)}`),
    options,
  );
}
