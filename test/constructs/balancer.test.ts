import { balancerKind, type BalancerSpec, type CustomResource } from '../../constructs';
import { balancer, dnsBalancer, sample, synthesize } from '../fixtures/resources';
import {
  ConfigMap,
  Deployment,
  Labels,
  Service,
  find,
  ids,
  podLabels,
  selects,
  specError,
  toYaml,
} from './manifests';

const BALANCER_LABEL = 'balancer.exposer.hliangzhao.io/balancer-name';
const HASH_ANNOTATION = 'balancer.exposer.hliangzhao.io/configmap-hash';

const SAMPLE_CONF = `events {
    worker_connections 1024;
}
stream {
    server {
        listen 80;
        proxy_pass upstream_http;
    }
    upstream upstream_http {
        server balancer-sample-v1-backend:80 weight=40;
        server balancer-sample-v2-backend:80 weight=20;
        server balancer-sample-v3-backend:80 weight=40;
    }
}
`;

const DNS_CONF = `events {
    worker_connections 1024;
}
stream {
    server {
        listen 53;
        proxy_pass upstream_dns-tcp;
    }
    server {
        listen 53 udp;
        proxy_pass upstream_dns-udp;
    }
    upstream upstream_dns-tcp {
        server dns-primary-backend:53 weight=3;
        server dns-secondary-backend:53 weight=1;
    }
    upstream upstream_dns-udp {
        server dns-primary-backend:53 weight=3;
        server dns-secondary-backend:53 weight=1;
    }
}
`;

/** The parts of a Balancer's output a user looks at, found by the names SPEC.md gives them. */
function parts(resource: CustomResource<BalancerSpec>) {
  const out = synthesize(resource);
  const name = resource.metadata.name;
  return {
    out,
    frontend: find<Service>(out, 'Service', name),
    conf: find<ConfigMap>(out, 'ConfigMap', `${name}-proxy-configmap`).data['nginx.conf'],
    proxy: find<Deployment>(out, 'Deployment', `${name}proxy`),
    backend: (backend: string) => find<Service>(out, 'Service', `${name}-${backend}-backend`),
  };
}

const hashOf = (proxy: Deployment) => proxy.spec.template.metadata.annotations?.[HASH_ANNOTATION];

/** The seed sample changed by `edit`. */
function edited(edit: (spec: BalancerSpec) => void): CustomResource<BalancerSpec> {
  const resource = sample(balancerKind);
  edit(resource.spec);
  return resource;
}

describe('Balancer', () => {
  describe('snapshots', () => {
    it('renders the seed sample', () => {
      expect(toYaml(synthesize(sample(balancerKind)))).toMatchSnapshot();
    });

    it('renders a TCP and UDP balancer in a namespace', () => {
      expect(toYaml(synthesize(dnsBalancer('dns', 'kube-dns')))).toMatchSnapshot();
    });
  });

  it('makes the front-end Service, the ConfigMap, the proxy Deployment and a Service per backend', () => {
    expect(ids(synthesize(sample(balancerKind))).sort()).toEqual(
      [
        'Service/balancer-sample',
        'ConfigMap/balancer-sample-proxy-configmap',
        'Deployment/balancer-sampleproxy',
        'Service/balancer-sample-v1-backend',
        'Service/balancer-sample-v2-backend',
        'Service/balancer-sample-v3-backend',
      ].sort(),
    );
  });

  describe('nginx.conf', () => {
    it('is the seed article\'s config for the seed sample, without its invalid "tcp"', () => {
      expect(parts(sample(balancerKind)).conf).toBe(SAMPLE_CONF);
    });

    it('listens on UDP for a UDP port and lists every backend per port', () => {
      expect(parts(dnsBalancer()).conf).toBe(DNS_CONF);
    });
  });

  describe('front-end Service', () => {
    it('is a ClusterIP Service with one port per spec.ports', () => {
      const { frontend } = parts(dnsBalancer());
      expect(frontend.spec.type ?? 'ClusterIP').toBe('ClusterIP');
      expect(frontend.spec.ports.map(({ name, protocol, port }) => ({ name, protocol, port }))).toEqual([
        { name: 'dns-tcp', protocol: 'TCP', port: 53 },
        { name: 'dns-udp', protocol: 'UDP', port: 53 },
      ]);
    });

    it('reaches the proxy pods on the ports nginx listens on', () => {
      const { frontend, proxy } = parts(dnsBalancer());
      expect(selects(frontend.spec.selector, podLabels(proxy))).toBe(true);
      const containerPorts = proxy.spec.template.spec.containers[0].ports ?? [];
      for (const port of frontend.spec.ports) {
        const target = port.targetPort ?? port.port;
        const reached = containerPorts.filter(
          (c) => (c.containerPort === target || c.name === target) && (c.protocol ?? 'TCP') === port.protocol,
        );
        expect(reached.map((c) => c.containerPort)).toEqual([port.port]);
      }
    });

    it('does not carry the balancer label, which marks backend Services', () => {
      expect(parts(sample(balancerKind)).frontend.metadata.labels?.[BALANCER_LABEL]).toBeUndefined();
    });

    it("does not reach another Balancer's proxy", () => {
      const a = parts(balancer('a', sample(balancerKind).spec));
      const b = parts(balancer('b', sample(balancerKind).spec));
      expect(selects(a.frontend.spec.selector, podLabels(b.proxy))).toBe(false);
    });
  });

  describe('proxy Deployment', () => {
    it('runs one nginx:1.15.9 pod by default, spec.image otherwise', () => {
      const { proxy } = parts(sample(balancerKind));
      expect(proxy.spec.replicas).toBe(1);
      expect(proxy.spec.template.spec.containers.map((c) => c.image)).toEqual(['nginx:1.15.9']);
      const custom = parts(edited((spec) => (spec.image = 'nginx:1.25-alpine'))).proxy;
      expect(custom.spec.template.spec.containers.map((c) => c.image)).toEqual(['nginx:1.25-alpine']);
    });

    it('mounts the ConfigMap at /etc/nginx', () => {
      const { proxy } = parts(sample(balancerKind));
      const [container] = proxy.spec.template.spec.containers;
      const mount = container.volumeMounts?.find((m) => m.mountPath === '/etc/nginx');
      const volume = proxy.spec.template.spec.volumes?.find((v) => v.name === mount?.name);
      expect(volume?.configMap?.name).toBe('balancer-sample-proxy-configmap');
    });

    it("selects its own pods with the Deployment's selector", () => {
      const { proxy } = parts(sample(balancerKind));
      expect(selects(proxy.spec.selector.matchLabels, podLabels(proxy))).toBe(true);
    });

    it('annotates the pod template with the hash of the nginx.conf it mounts', () => {
      const one = parts(sample(balancerKind));
      const other = parts(dnsBalancer());
      expect(hashOf(one.proxy)).toMatch(/^[0-9a-f]{8,}$/);
      expect(hashOf(other.proxy)).not.toBe(hashOf(one.proxy));
    });
  });

  describe('backend Services', () => {
    it('select spec.selector overlaid by the backend selector', () => {
      const { backend } = parts(sample(balancerKind));
      expect(backend('v1').spec.selector).toEqual({ app: 'test', version: 'v1' });
      expect(backend('v2').spec.selector).toEqual({ app: 'test', version: 'v2' });
      expect(backend('v3').spec.selector).toEqual({ app: 'test', version: 'v3' });
    });

    it("let the backend's keys win over spec.selector", () => {
      const { backend } = parts(
        balancer('web', {
          ports: [{ name: 'http', port: 80 }],
          selector: { app: 'web', track: 'stable' },
          backends: [
            { name: 'stable', weight: 9 },
            { name: 'canary', weight: 1, selector: { track: 'canary', version: 'v2' } },
          ],
        }),
      );
      expect(backend('stable').spec.selector).toEqual({ app: 'web', track: 'stable' });
      expect(backend('canary').spec.selector).toEqual({ app: 'web', track: 'canary', version: 'v2' });
    });

    it('each reach the pods of their own version only', () => {
      const { backend } = parts(sample(balancerKind));
      const pods: Record<string, Labels> = {
        v1: { app: 'test', version: 'v1', 'pod-template-hash': 'x' },
        v2: { app: 'test', version: 'v2' },
        v3: { app: 'test', version: 'v3' },
      };
      for (const name of ['v1', 'v2', 'v3']) {
        const reached = Object.keys(pods).filter((pod) => selects(backend(name).spec.selector, pods[pod]));
        expect(reached).toEqual([name]);
      }
      expect(selects(backend('v1').spec.selector, { app: 'other', version: 'v1' })).toBe(false);
    });

    it('carry the balancer label', () => {
      const { backend } = parts(sample(balancerKind));
      expect(backend('v2').metadata.labels?.[BALANCER_LABEL]).toBe('balancer-sample');
    });

    it('forward every port to targetPort, or to the same port when it has none', () => {
      const { backend } = parts(
        balancer('web', {
          ports: [
            { name: 'http', port: 80, targetPort: 8080 },
            { name: 'metrics', protocol: 'TCP', port: 9090 },
            { name: 'syslog', protocol: 'UDP', port: 514, targetPort: 5514 },
          ],
          selector: { app: 'web' },
          backends: [{ name: 'a', weight: 1 }],
        }),
      );
      expect(backend('a').spec.ports).toEqual([
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
        { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090 },
        { name: 'syslog', protocol: 'UDP', port: 514, targetPort: 5514 },
      ]);
    });

    it('are ClusterIP Services', () => {
      const { backend } = parts(sample(balancerKind));
      expect(backend('v1').spec.type ?? 'ClusterIP').toBe('ClusterIP');
    });

    it('accept a backend without a selector of its own: it selects spec.selector', () => {
      const { backend } = parts(edited((spec) => delete spec.backends[1].selector));
      expect(backend('v2').spec.selector).toEqual({ app: 'test' });
    });
  });

  describe('configmap-hash', () => {
    const before = parts(sample(balancerKind));
    const changes: [string, (spec: BalancerSpec) => void][] = [
      ['spec.selector', (spec) => (spec.selector = { app: 'prod' })],
      ["a backend's selector", (spec) => (spec.backends[0].selector = { version: 'v1.1' })],
      ['targetPort', (spec) => (spec.ports[0].targetPort = 8080)],
    ];

    it.each(changes)('stays when %s changes, which changes a backend Service only', (_, edit) => {
      const after = parts(edited(edit));
      expect(after.conf).toBe(before.conf);
      expect(hashOf(after.proxy)).toBe(hashOf(before.proxy));
      expect(after.proxy).toEqual(before.proxy);
      expect(after.backend('v1')).not.toEqual(before.backend('v1'));
    });

    it('stays when the proxy image changes, though the pods roll for the image', () => {
      const after = parts(edited((spec) => (spec.image = 'nginx:1.25')));
      expect(hashOf(after.proxy)).toBe(hashOf(before.proxy));
      expect(after.proxy).not.toEqual(before.proxy);
    });

    const confChanges: [string, (spec: BalancerSpec) => void][] = [
      ["a backend's weight", (spec) => (spec.backends[1].weight = 21)],
      ['the backend order', (spec) => spec.backends.reverse()],
      ['a new backend', (spec) => spec.backends.push({ name: 'v4', weight: 1, selector: { version: 'v4' } })],
      ['a removed backend', (spec) => spec.backends.pop()],
      ['the port number', (spec) => (spec.ports[0].port = 8080)],
      ['the port name', (spec) => (spec.ports[0].name = 'web')],
      ['the protocol', (spec) => (spec.ports[0].protocol = 'UDP')],
      ['a new port', (spec) => spec.ports.push({ name: 'https', port: 443 })],
    ];

    it.each(confChanges)('changes when %s changes nginx.conf', (_, edit) => {
      const after = parts(edited(edit));
      expect(after.conf).not.toBe(before.conf);
      expect(hashOf(after.proxy)).not.toBe(hashOf(before.proxy));
    });

    it('is the same for the same nginx.conf whatever the namespace', () => {
      const a = parts(balancer('b', sample(balancerKind).spec, 'team-a'));
      const b = parts(balancer('b', sample(balancerKind).spec, 'team-b'));
      expect(hashOf(a.proxy)).toBe(hashOf(b.proxy));
    });
  });

  describe('rejects', () => {
    it('a backend weight of 0', () => {
      const error = specError(() => synthesize(edited((spec) => (spec.backends[2].weight = 0))));
      expect(error.field).toBe('spec.backends[2].weight');
      expect(error.message).toContain('0');
    });

    it('duplicate backend names', () => {
      const error = specError(() => synthesize(edited((spec) => (spec.backends[2].name = 'v1'))));
      expect(error.message).toBe('spec.backends[2]: Duplicate value: {"name":"v1"}');
    });

    it('duplicate port names', () => {
      const error = specError(() =>
        synthesize(edited((spec) => spec.ports.push({ name: 'http', port: 8080 }))),
      );
      expect(error.message).toBe('spec.ports[1]: Duplicate value: {"name":"http"}');
    });

    it('a backend with no selector at all', () => {
      const error = specError(() =>
        synthesize(
          edited((spec) => {
            delete spec.selector;
            delete spec.backends[1].selector;
          }),
        ),
      );
      expect(error.field).toBe('spec.backends[1].selector');
    });

    it('a name so long that <name>-<backend>-backend exceeds 63 characters', () => {
      const name = 'b'.repeat(53);
      const error = specError(() => synthesize(balancer(name, sample(balancerKind).spec)));
      expect(error.field).toBe('spec.backends[0].name');
      expect(error.message).toContain(`${name}-v1-backend`);
    });

    it('but accepts a backend Service name of exactly 63 characters', () => {
      const name = 'b'.repeat(52);
      const { backend } = parts(balancer(name, sample(balancerKind).spec));
      expect(backend('v1').metadata.name).toHaveLength(63);
    });

    it.each(['ports', 'backends'] as const)('no spec.%s', (field) => {
      const error = specError(() => synthesize(edited((spec) => (spec[field] = []))));
      expect(error.field).toBe(`spec.${field}`);
    });
  });
});

it('Balancer: a named (string) targetPort reaches the backend Service', () => {
  const resource = sample(balancerKind);
  resource.spec.ports[0].targetPort = 'http';
  const service = find<Service>(synthesize(resource), 'Service', 'balancer-sample-v1-backend');
  expect(service.spec.ports).toEqual([{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' }]);
});
