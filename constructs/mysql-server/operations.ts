/**
 * The server operations the MysqlDatabase and MysqlUser handlers call, as an interface (a unit test
 * passes a fake of its own) and as the real ones, which load the driver (mysql2) at their first call: a
 * process that only renders, or a cdk8s app, never loads it.
 */
import type * as server from './server';

export interface ServerOperations {
  readonly observeDatabase: typeof server.observeDatabase;
  readonly applyDatabase: typeof server.applyDatabase;
  readonly dropDatabase: typeof server.dropDatabase;
  readonly observeUser: typeof server.observeUser;
  readonly applyUser: typeof server.applyUser;
  readonly dropUser: typeof server.dropUser;
}

const driver = () => import('./server');

/** The operations on a real MariaDB or MySQL server (server.ts). */
export const mariadbOperations: ServerOperations = {
  observeDatabase: async (...args) => (await driver()).observeDatabase(...args),
  applyDatabase: async (...args) => (await driver()).applyDatabase(...args),
  dropDatabase: async (...args) => (await driver()).dropDatabase(...args),
  observeUser: async (...args) => (await driver()).observeUser(...args),
  applyUser: async (...args) => (await driver()).applyUser(...args),
  dropUser: async (...args) => (await driver()).dropUser(...args),
};
