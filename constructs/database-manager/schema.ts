import { DNS_LABEL, DNS_SUBDOMAIN, MAX_LABEL_LENGTH, MAX_SUBDOMAIN_LENGTH, type KindSchema } from '../kit';

/** The CRD schema of DatabaseManager: the source of its CRD YAML and its generated types. */
export const databaseManagerSchema: KindSchema = {
  description: 'A MySQL or MariaDB Deployment.',
  spec: {
    type: 'object',
    properties: {
      dbtype: {
        type: 'string',
        enum: ['mysql', 'mariadb'],
        default: 'mysql',
        description: 'The database: mysql (mysql:5.7) or mariadb (mariadb:10.7.1).',
      },
      deploymentName: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_LABEL_LENGTH,
        pattern: DNS_LABEL,
        description: "Name of the Deployment. Defaults to the resource's name.",
      },
      replicas: {
        type: 'integer',
        format: 'int32',
        minimum: 1,
        maximum: 10,
        default: 1,
        description: 'Number of database pods.',
      },
      rootPasswordSecret: {
        type: 'object',
        description:
          'Secret holding the root password. Without it the image generates a random root password ' +
          'and prints it in the container log.',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: MAX_SUBDOMAIN_LENGTH, pattern: DNS_SUBDOMAIN },
          key: { type: 'string', minLength: 1, default: 'password' },
        },
      },
    },
  },
  status: {
    availableReplicas: {
      type: 'integer',
      format: 'int32',
      description: 'Available replicas of the Deployment.',
    },
  },
  columns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.dbtype' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
  ],
};
