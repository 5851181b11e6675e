/**
 * The child policies of docs/GUIDE.md (4a), each in a StaticSite-like construct as the GUIDE shows it: the
 * GUIDE's code blocks there are excerpts of this file (test/docs/snippets.test.ts), and
 * guide-policies.test.ts checks that each policy does what the GUIDE says. examples/static-site uses only
 * the first (with a plain HorizontalPodAutoscaler object); this construct uses cdk8s-plus's.
 *
 * `<name>-content` holds the pages; Job `<name>-check-<hash>` checks them, and the Deployment `<name>` that
 * serves them waits for it; with `spec.migrate`, also for Job `<name>-migrate`, replaced when the image
 * changes; Secret `<name>-stats` holds a generated password; PersistentVolumeClaim `<name>-logs` (with
 * `spec.accessLogs`) is retained; with `spec.autoscaling`, an autoscaler owns the Deployment's replicas.
 */
import { createHash } from 'node:crypto';
import { Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  CONFIG_MAP,
  DEPLOYMENT,
  HORIZONTAL_POD_AUTOSCALER,
  JOB,
  PERSISTENT_VOLUME_CLAIM,
  SECRET,
  admitSpec,
  childPolicy,
  defineKind,
  writeOnly,
  type KindSchema,
  type ResourceProps,
} from '../../index';

export interface GuideSiteSpec {
  pages: Record<string, string>;
  /** @default 1 */
  replicas?: number;
  /** @default "nginx:1.27-alpine" */
  image?: string;
  migrate?: boolean;
  autoscaling?: { maxReplicas: number };
  /** @default true */
  accessLogs?: boolean;
}
type GuideSiteSpecWithDefaults = Required<Omit<GuideSiteSpec, 'autoscaling' | 'migrate'>> &
  Pick<GuideSiteSpec, 'autoscaling' | 'migrate'>;

const schema: KindSchema = {
  description: 'A static site with every child policy of the GUIDE.',
  spec: {
    type: 'object',
    required: ['pages'],
    properties: {
      pages: { type: 'object', additionalProperties: { type: 'string' } },
      replicas: { type: 'integer', minimum: 1, default: 1 },
      image: { type: 'string', default: 'nginx:1.27-alpine' },
      migrate: { type: 'boolean' },
      autoscaling: {
        type: 'object',
        required: ['maxReplicas'],
        properties: { maxReplicas: { type: 'integer', minimum: 1 } },
      },
      accessLogs: { type: 'boolean', default: true },
    },
  },
};

/** nginx's and the check's resources: an autoscaler scales on CPU use, as a share of the request. */
const resources = {
  cpu: { request: kplus.Cpu.millis(10), limit: kplus.Cpu.millis(200) },
  memory: { request: Size.mebibytes(16), limit: Size.mebibytes(64) },
};

export class GuideSite extends Construct {
  readonly deployment: kplus.Deployment;

  constructor(scope: Construct, id: string, props: ResourceProps<GuideSiteSpec>) {
    super(scope, id);
    const spec = admitSpec<GuideSiteSpec, GuideSiteSpecWithDefaults>(this, schema.spec, props.spec);
    const hash = createHash('sha256').update(JSON.stringify(spec.pages)).digest('hex').slice(0, 8);
    const content = new kplus.ConfigMap(this, 'content', {
      metadata: { name: `${props.name}-content` },
      data: spec.pages,
    });
    const pages = kplus.Volume.fromConfigMap(this, 'pages', content);
    this.deployment = new kplus.Deployment(this, 'deployment', {
      metadata: { name: props.name },
      replicas: spec.replicas,
      containers: [
        {
          image: spec.image,
          portNumber: 80,
          resources,
          securityContext: { ensureNonRoot: false },
          volumeMounts: [{ path: '/usr/share/nginx/html', volume: pages }],
        },
      ],
    });

    // An autoscaler owns spec.replicas: set once, from spec.replicas, and then left alone.
    if (spec.autoscaling) {
      new kplus.HorizontalPodAutoscaler(this, 'autoscaler', {
        target: this.deployment,
        minReplicas: spec.replicas,
        maxReplicas: spec.autoscaling.maxReplicas,
      });
      childPolicy(this.deployment, { ignoreFields: ['/spec/replicas'] });
    }

    // A check of the pages runs to completion before the Deployment serves them.
    const check = new kplus.Job(this, 'check', {
      metadata: { name: `${props.name}-check-${hash}` },
      containers: [
        {
          image: 'busybox:1.36',
          command: ['sh', '-c', 'test -n "$(ls /pages)"'],
          resources,
          volumeMounts: [{ path: '/pages', volume: pages }],
        },
      ],
    });
    childPolicy(this.deployment, { waitFor: [check] });

    if (spec.migrate) {
      // A migration of a fixed name: deleted and run again when the image changes, before the app rolls.
      const migrate = new kplus.Job(this, 'migrate', {
        metadata: { name: `${props.name}-migrate` },
        containers: [{ image: spec.image, command: ['sh', '-c', 'echo migrated'], resources }],
      });
      childPolicy(migrate, { replace: true });
      childPolicy(this.deployment, { waitFor: [check, migrate] }); // all of them: a second waitFor replaces the first
    }

    // A password for the stats page: made once, in the cluster, never rewritten.
    const stats = new kplus.Secret(this, 'stats', { metadata: { name: `${props.name}-stats` } });
    childPolicy(stats, { generate: { '/stringData/password': { length: 24 } } });

    if (spec.accessLogs) {
      // Access logs outlive the site.
      const logs = new kplus.PersistentVolumeClaim(this, 'logs', {
        metadata: { name: `${props.name}-logs` },
        storage: Size.gibibytes(1),
        accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
      });
      childPolicy(logs, { retain: true });
    }
  }
}

export const guideSiteKind = defineKind<GuideSiteSpec, object, GuideSiteSpecWithDefaults>({
  apiVersion: 'sites.example.com/v1alpha1',
  kind: 'GuideSite',
  plural: 'guidesites',
  schema,
  construct: GuideSite,
  children: [
    CONFIG_MAP,
    DEPLOYMENT,
    HORIZONTAL_POD_AUTOSCALER,
    JOB,
    writeOnly(SECRET),
    PERSISTENT_VOLUME_CLAIM,
  ],
});
