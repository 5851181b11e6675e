import { DNS_SUBDOMAIN, MAX_SUBDOMAIN_LENGTH, type KindSchema } from '../kit';
import { PRIVILEGES } from '../mysql-server/grants';
import { serverSecretRefSchema } from '../mysql-server/kinds';
import { databaseNameSchema, immutable } from '../mysql-server/schema';

/** The longest user name MariaDB takes. */
const MAX_USER_NAME_LENGTH = 80;

/** The CRD schema of MysqlUser: the source of its CRD YAML and its generated types. */
export const mysqlUserSchema: KindSchema = {
  description:
    'A user of a MySQL or MariaDB server with exactly the grants of the spec and a password the controller ' +
    'generates once into a Secret, made and kept with the account of a Secret.',
  spec: {
    type: 'object',
    required: ['serverSecretRef'],
    properties: {
      serverSecretRef: serverSecretRefSchema,
      name: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_USER_NAME_LENGTH,
        description: "The user's name on the server. Defaults to the resource's name. Immutable.",
      },
      host: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        default: '%',
        description:
          'The hosts the user may connect from: a host name, an address or a pattern (`%` any host). ' +
          'Immutable: with the name it is the account.',
      },
      grants: {
        type: 'array',
        default: [],
        description:
          "The user's privileges, each on one database: exactly these (any other grant is revoked).",
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['database'],
        items: {
          type: 'object',
          required: ['database', 'privileges'],
          properties: {
            database: databaseNameSchema('The database (its tables and routines: `<database>.*`).'),
            privileges: {
              type: 'array',
              minItems: 1,
              'x-kubernetes-list-type': 'set',
              items: { type: 'string', enum: [...PRIVILEGES] },
              description: 'What the user may do there; `ALL` is every database privilege.',
            },
          },
        },
      },
      passwordSecretName: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_SUBDOMAIN_LENGTH,
        pattern: DNS_SUBDOMAIN,
        description:
          "The Secret the controller makes once, in the resource's namespace, with keys `username`, " +
          "`password` (24 random characters) and `database` (the first grant's). Defaults to " +
          "`<metadata.name>-mysql`. Another name makes a new Secret, and the user's password its password.",
      },
    },
    'x-kubernetes-validations': [
      immutable('name', 'a user of another name is another MysqlUser'),
      immutable('host', 'a user of other hosts is another account, another MysqlUser'),
    ],
  },
};
