import type { KindSchema } from '../kit';
import { serverSecretRefSchema } from '../mysql-server/kinds';
import { charsetSchema, databaseNameSchema, immutable } from '../mysql-server/schema';

/** The CRD schema of MysqlDatabase: the source of its CRD YAML and its generated types. */
export const mysqlDatabaseSchema: KindSchema = {
  description:
    'A database on a MySQL or MariaDB server, made and kept as the spec says with the account of a Secret.',
  spec: {
    type: 'object',
    required: ['serverSecretRef'],
    properties: {
      serverSecretRef: serverSecretRefSchema,
      name: databaseNameSchema(
        "The database's name on the server. Defaults to the resource's name with `-` as `_`. Immutable.",
      ),
      characterSet: charsetSchema("The database's default character set.", 'utf8mb4'),
      collation: charsetSchema("The database's default collation.", 'utf8mb4_unicode_ci'),
      deletionPolicy: {
        type: 'string',
        enum: ['Retain', 'Delete'],
        default: 'Retain',
        description:
          'What deleting the resource does to the database: Retain leaves it (and its data) on the server, ' +
          'Delete drops it.',
      },
    },
    'x-kubernetes-validations': [immutable('name', 'a database of another name is another MysqlDatabase')],
  },
  status: {
    observed: {
      type: 'object',
      description: 'The database as the server last said it is.',
      properties: {
        name: { type: 'string' },
        characterSet: { type: 'string' },
        collation: { type: 'string' },
      },
    },
  },
  rules: [
    {
      // The default name must be one the server takes.
      rule: "has(self.spec.name) || !self.metadata.name.contains('.')",
      message: 'spec.name is required when metadata.name has a "." (a database name cannot)',
      fieldPath: '.spec.name',
    },
  ],
  columns: [
    { name: 'Database', type: 'string', jsonPath: '.status.observed.name' },
    { name: 'Policy', type: 'string', jsonPath: '.spec.deletionPolicy' },
  ],
};
