/**
 * Two kinds as authors wrote them against 0.2.0, with cdk8s-plus's defaults left in: what an operator
 * upgrade must render the same (test/upgrade/upgrade.test.ts). They use only the kit's API of 0.2.0, so
 * that `record-release.sh` renders them with that release's package (it points the import at it).
 *
 * - CacheCluster: a Redis StatefulSet and a warm-up Job. Both keep cdk8s-plus's address label on their
 *   pods; nothing selects by it (the StatefulSet and its Service select by the kind's own labels).
 * - WebFront: a Deployment left to select its pods by the address label (cdk8s-plus's default), exposed
 *   by `exposeViaService`. 0.2.0 gave that label one value for every WebFront of a namespace, so each
 *   Service sent traffic to every WebFront's pods; it now holds the resource's name (CHANGELOG,
 *   Upgrading).
 */
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { DEPLOYMENT, JOB, SERVICE, STATEFUL_SET, defineKind, type ResourceProps } from '../../index';

interface CacheClusterSpec {
  replicas?: number;
}

class CacheCluster extends Construct {
  constructor(scope: Construct, id: string, props: ResourceProps<CacheClusterSpec>) {
    super(scope, id);
    const labels = { app: 'cache', cluster: props.name };
    const service = new kplus.Service(this, 'service', {
      metadata: { name: props.name },
      clusterIP: 'None',
      ports: [{ port: 6379 }],
    });
    const redis = new kplus.StatefulSet(this, 'statefulset', {
      metadata: { name: props.name },
      replicas: props.spec.replicas ?? 1,
      select: false,
      podMetadata: { labels },
      service,
      containers: [{ image: 'redis:7', portNumber: 6379, securityContext: { user: 999 } }],
    });
    redis.select(kplus.LabelSelector.of({ labels }));
    for (const [key, value] of Object.entries(labels)) service.selectLabel(key, value);
    new kplus.Job(this, 'warmup', {
      metadata: { name: `${props.name}-warmup` },
      containers: [
        {
          image: 'redis:7',
          command: ['redis-cli', '-h', props.name, 'ping'],
          securityContext: { user: 999 },
        },
      ],
    });
  }
}

export const cacheClusterKind = defineKind<CacheClusterSpec>({
  apiVersion: 'cache.example.org/v1',
  kind: 'CacheCluster',
  plural: 'cacheclusters',
  schema: {
    description: 'A Redis cluster, with a warm-up Job.',
    spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 1 } } },
  },
  construct: CacheCluster,
  children: [STATEFUL_SET, SERVICE, JOB],
});

interface WebFrontSpec {
  image: string;
}

class WebFront extends Construct {
  constructor(scope: Construct, id: string, props: ResourceProps<WebFrontSpec>) {
    super(scope, id);
    const web = new kplus.Deployment(this, 'deployment', {
      metadata: { name: props.name },
      containers: [{ image: props.spec.image, portNumber: 8080, securityContext: { user: 1000 } }],
    });
    web.exposeViaService({ name: props.name, ports: [{ port: 80, targetPort: 8080 }] });
  }
}

export const webFrontKind = defineKind<WebFrontSpec>({
  apiVersion: 'web.example.org/v1',
  kind: 'WebFront',
  plural: 'webfronts',
  schema: {
    description: 'A web front end behind a Service.',
    spec: { type: 'object', required: ['image'], properties: { image: { type: 'string' } } },
  },
  construct: WebFront,
  children: [DEPLOYMENT, SERVICE],
});

export const kinds = [cacheClusterKind, webFrontKind];
