import {
  CONTAINER_IMAGE,
  DNS_LABEL,
  DNS_SUBDOMAIN,
  LABEL_KEY,
  LABEL_VALUE,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
  annotationMap,
  intOrString,
  labelMap,
  type JSONSchemaProps,
  type KindSchema,
} from '../kit';

/** The oldest MySQL version the cluster runs: group replication as the agent drives it starts there. */
export const MINIMUM_VERSION = '8.0.11';

/** The longest Cluster name: MySQL bug 90601 (group replication host names) limits it. */
export const MAX_CLUSTER_NAME_LENGTH = 28;

/**
 * CEL: whether the `major.minor.patch` string `a` is at least `b`, component by component as integers
 * (`8.0.9` < `8.0.11`). The schema's pattern makes both parse.
 */
export function versionAtLeast(a: string, b: string): string {
  const part = (v: string, i: number) => `int(${v}.split('.')[${i}])`;
  return (
    `${part(a, 0)} > ${part(b, 0)} || (${part(a, 0)} == ${part(b, 0)} && ` +
    `(${part(a, 1)} > ${part(b, 1)} || (${part(a, 1)} == ${part(b, 1)} && ${part(a, 2)} >= ${part(b, 2)})))`
  );
}

const localObjectReference = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_SUBDOMAIN_LENGTH, pattern: DNS_SUBDOMAIN },
  },
});

/** A Kubernetes quantity (`1Gi`, `500m`, `2`), as resource.Quantity parses it. */
const quantity: JSONSchemaProps = {
  ...intOrString(),
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
};

const quantities: JSONSchemaProps = {
  type: 'object',
  maxProperties: 16,
  // What the API server accepts in a container's resources; anything else is refused in the StatefulSet.
  'x-kubernetes-validations': [
    {
      rule:
        "self.all(k, k in ['cpu', 'memory', 'ephemeral-storage'] || k.startsWith('hugepages-') || " +
        "(k.contains('/') && !k.startsWith('kubernetes.io/') && !k.startsWith('requests.')))",
      message:
        'keys must be cpu, memory, ephemeral-storage, hugepages-<size> or an extended resource (example.com/gpu)',
    },
  ],
  additionalProperties: quantity,
};

/** corev1.ResourceRequirements, limits and requests. */
const resourceRequirements = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  properties: { limits: quantities, requests: quantities },
});

/**
 * A PersistentVolumeClaim template, as a StatefulSet takes it: its name names the volume. The claim's spec
 * is the core type's and is passed through as written; the API server checks it when the StatefulSet is
 * applied.
 */
const claimTemplate = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  required: ['metadata', 'spec'],
  properties: {
    metadata: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: MAX_LABEL_LENGTH, pattern: DNS_LABEL },
        labels: labelMap('Labels of each claim.'),
        annotations: annotationMap('Annotations of each claim.'),
      },
    },
    spec: {
      type: 'object',
      description:
        'A PersistentVolumeClaimSpec (core/v1): the fields the API server requires are checked here, the rest ' +
        'passed through as written.',
      'x-kubernetes-preserve-unknown-fields': true,
      required: ['accessModes', 'resources'],
      properties: {
        accessModes: {
          type: 'array',
          minItems: 1,
          maxItems: 4,
          items: {
            type: 'string',
            enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'],
          },
        },
        resources: {
          type: 'object',
          required: ['requests'],
          properties: {
            requests: { type: 'object', required: ['storage'], properties: { storage: quantity } },
            limits: { type: 'object', properties: { storage: quantity } },
          },
        },
        storageClassName: { type: 'string', maxLength: MAX_SUBDOMAIN_LENGTH, pattern: DNS_SUBDOMAIN },
        volumeMode: { type: 'string', enum: ['Filesystem', 'Block'] },
      },
    },
  },
});

/** The CRD schema of the MySQL Cluster: the source of its CRD YAML and its generated types. */
export const mysqlClusterSchema: KindSchema = {
  description:
    'A MySQL InnoDB cluster: a StatefulSet of MySQL servers in group replication, each beside a mysql-agent, ' +
    'a headless Service, and a generated root password.',
  spec: {
    type: 'object',
    properties: {
      version: {
        type: 'string',
        default: '8.0.12',
        maxLength: 32,
        pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$',
        description:
          'MySQL server version (the image tag). Raising it rolls the members to the new version; lowering it is refused.',
        'x-kubernetes-validations': [
          {
            rule: versionAtLeast('self', `'${MINIMUM_VERSION}'`),
            message: `minimum supported MySQL version is ${MINIMUM_VERSION}`,
          },
          {
            rule: versionAtLeast('self', 'oldSelf'),
            message: 'unsupported downgrade',
            messageExpression: "'unsupported downgrade from ' + oldSelf + ' to ' + self",
          },
        ],
      },
      repository: {
        type: 'string',
        default: 'mysql/mysql-server',
        minLength: 1,
        maxLength: 200,
        pattern: '^[^\\s:@]+$',
        description: 'Server image repository; the image is <repository>:<version>.',
      },
      agentImage: {
        type: 'string',
        default: 'iad.ocir.io/oracle/mysql-agent:0.3.0',
        minLength: 1,
        maxLength: 256,
        pattern: CONTAINER_IMAGE,
        description: 'Image of the mysql-agent beside each server.',
      },
      members: {
        type: 'integer',
        format: 'int32',
        default: 3,
        description: 'Number of members: InnoDB clustering supports between 1-9 members.',
        // A rule rather than minimum and maximum, for the message users of the original operator know.
        'x-kubernetes-validations': [
          { rule: 'self >= 1 && self <= 9', message: 'InnoDB clustering supports between 1-9 members' },
        ],
      },
      baseServerId: {
        type: 'integer',
        format: 'int64',
        minimum: 0,
        maximum: 4294967286,
        default: 1000,
        description: 'server_id of the first member; member i has baseServerId + i.',
      },
      multiMaster: {
        type: 'boolean',
        default: false,
        description: 'Every member accepts writes (group replication multi-primary mode).',
      },
      nodeSelector: labelMap("The pods' nodeSelector: labels a node must have."),
      affinity: {
        type: 'object',
        description: "The pods' affinity (core/v1 Affinity), passed through.",
        'x-kubernetes-preserve-unknown-fields': true,
      },
      tolerations: {
        type: 'array',
        description: "The pods' tolerations, in order.",
        items: {
          type: 'object',
          properties: {
            key: { type: 'string', maxLength: 316, pattern: LABEL_KEY },
            operator: { type: 'string', enum: ['Exists', 'Equal'] },
            value: { type: 'string', maxLength: MAX_LABEL_LENGTH, pattern: LABEL_VALUE },
            effect: { type: 'string', enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
            tolerationSeconds: { type: 'integer', format: 'int64' },
          },
          // The API server's own checks of a toleration (core/v1 validation), said at admission.
          'x-kubernetes-validations': [
            {
              rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
              message:
                'operator must be Exists when `key` is empty, which means "match all values and all keys"',
            },
            {
              rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
              message: "value must be empty when `operator` is 'Exists'",
            },
            {
              rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
              message: "effect must be 'NoExecute' when `tolerationSeconds` is set",
            },
          ],
        },
      },
      securityContext: {
        type: 'object',
        description: "The pods' securityContext (core/v1 PodSecurityContext), passed through.",
        'x-kubernetes-preserve-unknown-fields': true,
      },
      resources: {
        type: 'object',
        description: 'Compute resources of the containers.',
        properties: {
          server: resourceRequirements('Resources of the mysql container.'),
          agent: resourceRequirements('Resources of the mysql-agent container.'),
        },
      },
      imagePullSecrets: {
        type: 'array',
        description: 'Secrets to pull the images with.',
        items: localObjectReference('A Secret in the namespace.'),
      },
      imagePullSecret: {
        type: 'array',
        description:
          "The original operator's singular spelling of imagePullSecrets, still accepted: both lists are merged.",
        items: localObjectReference('A Secret in the namespace.'),
      },
      volumeClaimTemplate: claimTemplate(
        'Claim template of the data volume (/var/lib/mysql). Without it, data lives in an emptyDir.',
      ),
      backupVolumeClaimTemplate: claimTemplate(
        'Claim template of the agent backup volume (/var/lib/mysql-agent). Without it, an emptyDir.',
      ),
      rootPasswordSecret: localObjectReference(
        'A Secret with key `password`: the root password. Without it the operator creates <name>-root-password ' +
          'with a random password, once.',
      ),
      config: localObjectReference('A ConfigMap with key my.cnf, mounted at /etc/my.cnf.'),
      sslSecret: localObjectReference(
        "A Secret with ca.crt, tls.crt and tls.key, mounted at /etc/ssl/mysql for the server's TLS.",
      ),
    },
  },
  status: {
    members: { type: 'integer', format: 'int32', description: 'Member pods that exist.' },
    readyMembers: { type: 'integer', format: 'int32', description: 'Member pods that are ready.' },
    version: {
      type: 'string',
      description: 'The version every member runs: set once a roll to spec.version has finished.',
    },
  },
  columns: [
    { name: 'Members', type: 'integer', jsonPath: '.spec.members' },
    { name: 'Ready Members', type: 'integer', jsonPath: '.status.readyMembers' },
    { name: 'Version', type: 'string', jsonPath: '.status.version' },
  ],
};
