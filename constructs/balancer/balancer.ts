import { createHash } from 'node:crypto';
import { ApiObject, Size } from 'cdk8s';
import { Construct } from 'constructs';
import * as kplus from 'cdk8s-plus-27';
import {
  ResourceProps,
  SpecError,
  admitSpec,
  checkDnsLabel,
  checkServiceName,
  withoutAddressLabel,
} from '../kit';
import { balancerSchema } from './schema';
import type { BalancerSpec, BalancerSpecWithDefaults } from './types.generated';

export type BalancerProps = ResourceProps<BalancerSpec>;
export type BalancerPort = BalancerSpec['ports'][number];
export type BalancerBackend = BalancerSpec['backends'][number];

/** The label on the proxy pods and on every backend Service. */
export const BALANCER_LABEL = 'balancer.exposer.hliangzhao.io/balancer-name';
/** The pod template annotation whose change rolls the proxy when, and only when, nginx.conf changes. */
export const CONFIG_HASH_ANNOTATION = 'balancer.exposer.hliangzhao.io/configmap-hash';

export const balancerNames = {
  frontend: (balancer: string) => balancer,
  configMap: (balancer: string) => `${balancer}-proxy-configmap`,
  deployment: (balancer: string) => `${balancer}proxy`,
  backend: (balancer: string, backend: string) => `${balancer}-${backend}-backend`,
};

/**
 * nginx.conf of the proxy: one stream server per port, each proxying to an upstream that lists every
 * backend Service in spec order with its weight (a stream upstream takes no `tcp` parameter).
 */
export function nginxConf(name: string, spec: Pick<BalancerSpec, 'ports' | 'backends'>): string {
  const lines = ['events {', '    worker_connections 1024;', '}', 'stream {'];
  for (const port of spec.ports) {
    const udp = port.protocol === 'UDP' ? ' udp' : '';
    lines.push(
      '    server {',
      `        listen ${port.port}${udp};`,
      `        proxy_pass upstream_${port.name};`,
      '    }',
    );
  }
  for (const port of spec.ports) {
    lines.push(`    upstream upstream_${port.name} {`);
    for (const backend of spec.backends) {
      lines.push(
        `        server ${balancerNames.backend(name, backend.name)}:${port.port} weight=${backend.weight};`,
      );
    }
    lines.push('    }');
  }
  lines.push('}', '');
  return lines.join('\n');
}

/** A short, deterministic digest of the config, for the pod template annotation. */
export function configHash(conf: string): string {
  return createHash('sha256').update(conf).digest('hex').slice(0, 16);
}

/**
 * An nginx proxy stack with weighted backends: a front-end Service `<name>` selecting the
 * proxy pod, a ConfigMap `<name>-proxy-configmap` with nginx.conf, the proxy Deployment `<name>proxy`,
 * and one Service `<name>-<backend>-backend` per backend.
 */
export class Balancer extends Construct {
  readonly frontend: kplus.Service;
  readonly configMap: kplus.ConfigMap;
  readonly deployment: kplus.Deployment;
  readonly backends: ApiObject[];

  constructor(scope: Construct, id: string, props: BalancerProps) {
    super(scope, id);
    const { name } = props;
    const spec = admitSpec<BalancerSpec, BalancerSpecWithDefaults>(this, balancerSchema.spec, props.spec);
    checkServiceName(balancerNames.frontend(name), 'metadata.name', 'the front-end Service name');
    checkDnsLabel(balancerNames.deployment(name), 'metadata.name', 'the proxy Deployment name');
    spec.backends.forEach((backend, i) => {
      checkServiceName(
        balancerNames.backend(name, backend.name),
        `spec.backends[${i}].name`,
        'the backend Service name',
      );
      if (Object.keys({ ...spec.selector, ...backend.selector }).length === 0) {
        throw new SpecError(
          `spec.backends[${i}].selector`,
          'Required value: the backend selects no pods (give it a selector, or spec.selector)',
        );
      }
    });

    const podLabels = { [BALANCER_LABEL]: name };
    const protocol = (port: BalancerPort) =>
      port.protocol === 'UDP' ? kplus.Protocol.UDP : kplus.Protocol.TCP;
    const conf = nginxConf(name, spec);

    this.frontend = new kplus.Service(this, 'frontend', {
      metadata: { name: balancerNames.frontend(name) },
      type: kplus.ServiceType.CLUSTER_IP,
      ports: spec.ports.map((p) => ({
        name: p.name,
        protocol: protocol(p),
        port: p.port,
        targetPort: p.port,
      })),
    });
    this.frontend.selectLabel(BALANCER_LABEL, name);

    this.configMap = new kplus.ConfigMap(this, 'config', {
      metadata: { name: balancerNames.configMap(name) },
      data: { 'nginx.conf': conf },
    });

    const config = kplus.Volume.fromConfigMap(this, 'config-volume', this.configMap, {
      name: 'nginx-config',
    });
    this.deployment = withoutAddressLabel(
      new kplus.Deployment(this, 'proxy', {
        metadata: { name: balancerNames.deployment(name) },
        replicas: spec.replicas ?? 1,
        select: false,
        podMetadata: { labels: podLabels, annotations: { [CONFIG_HASH_ANNOTATION]: configHash(conf) } },
        automountServiceAccountToken: false,
        // nginx's master process starts as root to bind the ports, and writes its cache and pid file.
        securityContext: { ensureNonRoot: false },
        containers: [
          {
            name: 'nginx',
            image: spec.image,
            imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
            ports: spec.ports.map((p) => ({ name: p.name, number: p.port, protocol: protocol(p) })),
            volumeMounts: [{ path: '/etc/nginx', volume: config, readOnly: true }],
            resources: {
              cpu: { request: kplus.Cpu.millis(100) },
              memory: { request: Size.mebibytes(64), limit: Size.mebibytes(256) },
            },
            securityContext: { ensureNonRoot: false, readOnlyRootFilesystem: false },
          },
        ],
      }),
    );
    this.deployment.select(kplus.LabelSelector.of({ labels: podLabels }));

    // Plain API objects: cdk8s-plus-27's Service takes only numeric target ports, and a backend's
    // targetPort may name a port of the backend pods.
    this.backends = spec.backends.map(
      (backend) =>
        new ApiObject(this, `backend-${backend.name}`, {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: balancerNames.backend(name, backend.name), labels: podLabels },
          spec: {
            type: 'ClusterIP',
            selector: { ...spec.selector, ...backend.selector },
            ports: spec.ports.map((p) => ({
              name: p.name,
              protocol: p.protocol,
              port: p.port,
              targetPort: p.targetPort ?? p.port,
            })),
          },
        }),
    );
  }
}
