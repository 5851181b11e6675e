import { Construct } from 'constructs';
import * as kplus from 'cdk8s-plus-27';
import { Size } from 'cdk8s';
import { ResourceProps, admitSpec, checkServiceName, withoutAddressLabel } from '../kit';
import { memcachedSchema } from './schema';
import type { MemcachedSpec, MemcachedSpecWithDefaults } from './types.generated';

export const MEMCACHED_PORT = 11211;

export type MemcachedProps = ResourceProps<MemcachedSpec>;

/**
 * A memcached Deployment of `spec.size` pods and a Service `<name>` in front of them.
 * Pods are labelled `app: memcached` and `memcached_cr: <name>`.
 */
export class Memcached extends Construct {
  readonly deployment: kplus.Deployment;
  readonly service: kplus.Service;

  constructor(scope: Construct, id: string, props: MemcachedProps) {
    super(scope, id);
    const { name } = props;
    const spec = admitSpec<MemcachedSpec, MemcachedSpecWithDefaults>(this, memcachedSchema.spec, props.spec);
    checkServiceName(name, 'metadata.name', 'the Deployment and Service name');
    const podLabels = { app: 'memcached', memcached_cr: name };

    this.deployment = withoutAddressLabel(
      new kplus.Deployment(this, 'deployment', {
        metadata: { name },
        replicas: spec.size,
        select: false,
        podMetadata: { labels: podLabels },
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'memcached',
            image: spec.image,
            imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
            command: ['memcached', '-m=64', '-o', 'modern', '-v'],
            ports: [{ name: 'memcached', number: MEMCACHED_PORT }],
            readiness: kplus.Probe.fromTcpSocket({ port: MEMCACHED_PORT }),
            // -m=64 caps the cache at 64 MiB; the rest is connection buffers.
            resources: {
              cpu: { request: kplus.Cpu.millis(100) },
              memory: { request: Size.mebibytes(96), limit: Size.mebibytes(128) },
            },
            // The image's USER is a name, which runAsNonRoot cannot verify: give the uid it uses.
            securityContext: { user: 11211, group: 11211 },
          },
        ],
      }),
    );
    this.deployment.select(kplus.LabelSelector.of({ labels: podLabels }));

    this.service = new kplus.Service(this, 'service', {
      metadata: { name },
      ports: [{ name: 'memcached', port: MEMCACHED_PORT, targetPort: MEMCACHED_PORT }],
    });
    for (const [key, value] of Object.entries(podLabels)) this.service.selectLabel(key, value);
  }
}
