/**
 * The MysqlDatabase kind, on the server operations it is given: the real ones in index.ts, a fake in a
 * unit test. No children: the database is the kind's external object, kept by its handlers.
 */
import { defineKind, type CustomResource, type KindExternal } from '../kit';
import type { ObservedDatabase, WantedDatabase } from '../mysql-server/databases';
import { inKindWords, nothingIfInvalidName, onServer, serverOf, serverSecret } from '../mysql-server/kinds';
import type { ServerOperations } from '../mysql-server/operations';
import { mysqlDatabaseSchema } from './schema';
import type {
  MysqlDatabaseSpec,
  MysqlDatabaseSpecWithDefaults,
  MysqlDatabaseStatus,
} from './types.generated';

type Stored = MysqlDatabaseSpecWithDefaults;
type OwnStatus = Pick<MysqlDatabaseStatus, 'observed'>;

/** The database a resource names: `spec.name`, else the resource's name with `-` as `_`. */
export function databaseName(resource: {
  metadata: { name: string };
  spec: Pick<MysqlDatabaseSpec, 'name'>;
}): string {
  return resource.spec.name ?? resource.metadata.name.replace(/-/g, '_');
}

/** What differs, one line each: `collation: utf8mb4_general_ci -> utf8mb4_unicode_ci`. */
export function databaseDifferences(wanted: WantedDatabase, observed: ObservedDatabase): string[] {
  const lines: string[] = [];
  if (observed.characterSet !== wanted.characterSet) {
    lines.push(`character set: ${observed.characterSet} -> ${wanted.characterSet}`);
  }
  if (observed.collation !== wanted.collation) {
    lines.push(`collation: ${observed.collation} -> ${wanted.collation}`);
  }
  return lines;
}

/** The handlers of a MysqlDatabase's database, on `server`. */
export function mysqlDatabaseExternal(
  server: ServerOperations,
): KindExternal<Stored, ObservedDatabase, WantedDatabase> {
  return {
    describe: (d) => `MySQL database ${d.name}`,
    identity: (d, r) => onServer(r, d.name),
    secrets: { server: serverSecret },
    desired: (r: CustomResource<Stored>) => ({
      name: databaseName(r),
      characterSet: r.spec.characterSet,
      collation: r.spec.collation,
    }),
    observe: (d, context) =>
      inKindWords(context, () =>
        nothingIfInvalidName(() =>
          server.observeDatabase(serverOf(context), d.name, { signal: context.signal }),
        ),
      ),
    differences: databaseDifferences,
    async apply(d, _observed, context) {
      await inKindWords(context, () =>
        server.applyDatabase(serverOf(context), d, { signal: context.signal }),
      );
    },
    delete: (o, context) =>
      inKindWords(context, () => server.dropDatabase(serverOf(context), o.name, { signal: context.signal })),
    retain: (r) => r.spec.deletionPolicy !== 'Delete',
  };
}

/** The MysqlDatabase kind, its handlers on `server`. */
export function mysqlDatabaseKindOn(server: ServerOperations) {
  return defineKind<MysqlDatabaseSpec, OwnStatus, Stored, ObservedDatabase, WantedDatabase>({
    apiVersion: 'mysql.reconstruct.dev/v1alpha1',
    kind: 'MysqlDatabase',
    plural: 'mysqldatabases',
    categories: ['mysql'],
    schema: mysqlDatabaseSchema,
    children: [],
    external: mysqlDatabaseExternal(server),
    status: ({ observed }) => (observed ? { observed } : {}),
  });
}
