import { memcachedKind, type MemcachedSpec } from '../../constructs';
import { memcached, sample, synthesize } from '../fixtures/resources';
import { Deployment, Service, find, ids, podLabels, selects, specError, toYaml } from './manifests';

const synth = (name: string, spec: MemcachedSpec, namespace?: string) =>
  synthesize(memcached(name, spec, namespace));

describe('Memcached', () => {
  describe('snapshots', () => {
    it('renders the seed sample', () => {
      expect(toYaml(synthesize(sample(memcachedKind)))).toMatchSnapshot();
    });

    it('renders three pods of a custom image in a namespace', () => {
      expect(
        toYaml(synth('sessions', { size: 3, image: 'memcached:1.6.21-alpine' }, 'shop')),
      ).toMatchSnapshot();
    });
  });

  it('makes a Deployment and a Service, both named like the resource', () => {
    expect(ids(synthesize(sample(memcachedKind)))).toEqual([
      'Deployment/memcached-sample',
      'Service/memcached-sample',
    ]);
  });

  it.each([0, 1, 2, 7])('runs spec.size = %d replicas', (size) => {
    const deployment = find<Deployment>(synth('cache', { size }), 'Deployment', 'cache');
    expect(deployment.spec.replicas).toBe(size);
  });

  it('runs one memcached container, default image, the seed command and port 11211 named memcached', () => {
    const deployment = find<Deployment>(synth('cache', { size: 1 }), 'Deployment', 'cache');
    expect(deployment.spec.template.spec.containers).toEqual([
      expect.objectContaining({
        name: 'memcached',
        image: 'memcached:1.4.36-alpine',
        command: ['memcached', '-m=64', '-o', 'modern', '-v'],
        ports: [expect.objectContaining({ name: 'memcached', containerPort: 11211 })],
      }),
    ]);
  });

  it('uses spec.image when given', () => {
    const deployment = find<Deployment>(
      synth('cache', { size: 1, image: 'registry.local/memcached:1.6' }),
      'Deployment',
      'cache',
    );
    expect(deployment.spec.template.spec.containers[0].image).toBe('registry.local/memcached:1.6');
  });

  it('labels its pods app=memcached and memcached_cr=<name>', () => {
    const deployment = find<Deployment>(synth('cache', { size: 1 }), 'Deployment', 'cache');
    expect(podLabels(deployment)).toMatchObject({ app: 'memcached', memcached_cr: 'cache' });
  });

  it("selects its own pods with the Deployment's selector", () => {
    const deployment = find<Deployment>(synth('cache', { size: 1 }), 'Deployment', 'cache');
    expect(selects(deployment.spec.selector.matchLabels, podLabels(deployment))).toBe(true);
    expect(deployment.spec.selector.matchExpressions).toBeUndefined();
  });

  it('reaches its pods on 11211 through the Service', () => {
    const out = synth('cache', { size: 2 });
    const deployment = find<Deployment>(out, 'Deployment', 'cache');
    const service = find<Service>(out, 'Service', 'cache');
    expect(selects(service.spec.selector, podLabels(deployment))).toBe(true);
    expect(service.spec.ports).toHaveLength(1);
    const [port] = service.spec.ports;
    expect(port.port).toBe(11211);
    // The target is the container port, by number or by name.
    const container = deployment.spec.template.spec.containers[0].ports?.[0];
    expect([container?.containerPort, container?.name]).toContain(port.targetPort ?? port.port);
  });

  it("does not reach another Memcached's pods in the same namespace", () => {
    const service = find<Service>(synth('a', { size: 1 }), 'Service', 'a');
    const other = find<Deployment>(synth('b', { size: 1 }), 'Deployment', 'b');
    expect(selects(service.spec.selector, podLabels(other))).toBe(false);
  });

  describe('rejects', () => {
    // In the API server's words, as `kubectl apply` of the resource would print them.
    it.each([
      [-1, 'Invalid value: -1: spec.size in body should be greater than or equal to 0'],
      [1.5, 'Invalid value: "float64": spec.size in body must be of type int32: "float64"'],
    ])('spec.size = %p', (size, detail) => {
      const error = specError(() => synth('cache', { size }));
      expect(error.field).toBe('spec.size');
      expect(error.detail.split('; ')[0]).toBe(detail);
    });

    it('a missing spec.size', () => {
      expect(specError(() => synth('cache', {} as MemcachedSpec)).field).toBe('spec.size');
    });

    it('a name that cannot name a Service', () => {
      const error = specError(() => synth('cache.prod', { size: 1 }));
      expect(error.field).toBe('metadata.name');
      expect(error.message).toContain('cache.prod');
    });
  });
});
