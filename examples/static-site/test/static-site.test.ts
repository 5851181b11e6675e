import { Chart, Testing } from 'cdk8s';
import {
  Memcached,
  SpecError,
  withDefaults,
  type ClusterView,
  type KubeObject,
  type Manifest,
} from 'cdk8s-reconstruct';
import { SiteChart } from '../main';
import {
  CONTENT_HASH_ANNOTATION,
  StaticSite,
  StaticSiteResource,
  staticSiteKind,
  staticSiteSchema,
  type StaticSiteSpec,
  type StaticSiteSpecWithDefaults,
} from '../src';

interface Container {
  name: string;
  image: string;
  ports: { containerPort: number }[];
  readinessProbe: { httpGet: { path: string; port: number } };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Deployment extends Manifest {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: { containers: Container[]; volumes: { name: string; configMap?: { name: string } }[] };
    };
  };
}
interface Service extends Manifest {
  spec: { ports: { port: number; targetPort: number }[]; selector: Record<string, string> };
}
interface ConfigMap extends Manifest {
  data: Record<string, string>;
}

const PAGES = { 'index.html': '<h1>Docs</h1>\n', 'about.html': '<p>About</p>\n' };

function render(spec: StaticSiteSpec, name = 'docs'): Manifest[] {
  const chart = Testing.chart();
  new StaticSite(chart, 'site', { name, spec });
  return Testing.synth(chart) as Manifest[];
}

function find<T extends Manifest>(manifests: Manifest[], kind: string, name: string): T {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found)
    throw new Error(`no ${kind}/${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`)}`);
  return found as T;
}

/** The SpecError `fn` throws. */
function errorOf(fn: () => unknown): SpecError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SpecError) return err;
    throw err;
  }
  throw new Error('no SpecError thrown');
}

const hashOf = (manifests: Manifest[], name = 'docs') =>
  find<Deployment>(manifests, 'Deployment', name).spec.template.metadata.annotations[CONTENT_HASH_ANNOTATION];

describe('StaticSite', () => {
  it('renders a site (snapshot)', () => {
    const chart = Testing.chart();
    new StaticSite(chart, 'site', { name: 'docs', spec: { pages: PAGES, replicas: 2, port: 8080 } });
    expect(Testing.synth(chart)).toMatchSnapshot();
  });

  it('makes a ConfigMap <name>-content, a Deployment <name> and a Service <name>', () => {
    const manifests = render({ pages: PAGES });
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      'ConfigMap/docs-content',
      'Deployment/docs',
      'Service/docs',
    ]);
  });

  it('puts every page in the ConfigMap, as it is', () => {
    expect(find<ConfigMap>(render({ pages: PAGES }), 'ConfigMap', 'docs-content').data).toEqual(PAGES);
  });

  it('mounts the ConfigMap read-only where nginx serves from', () => {
    const pod = find<Deployment>(render({ pages: PAGES }), 'Deployment', 'docs').spec.template.spec;
    const volume = pod.volumes.find((v) => v.configMap?.name === 'docs-content');
    expect(volume).toBeDefined();
    expect(pod.containers).toHaveLength(1);
    expect(pod.containers[0].volumeMounts).toContainEqual({
      name: volume?.name,
      mountPath: '/usr/share/nginx/html',
      readOnly: true,
    });
  });

  it('applies the schema defaults when fields are omitted', () => {
    const manifests = render({ pages: PAGES });
    const deployment = find<Deployment>(manifests, 'Deployment', 'docs');
    const service = find<Service>(manifests, 'Service', 'docs');
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.template.spec.containers[0].image).toBe('nginx:1.27-alpine');
    expect(service.spec.ports).toEqual([expect.objectContaining({ port: 80, targetPort: 80 })]);
    // ... which are the schema's, not the construct's own.
    const props = staticSiteSchema.spec.properties ?? {};
    expect([props.replicas.default, props.image.default, props.port.default]).toEqual([
      1,
      'nginx:1.27-alpine',
      80,
    ]);
  });

  it('uses the given replicas, image and port', () => {
    const manifests = render({ pages: PAGES, replicas: 3, image: 'nginx:1.26', port: 8080 });
    const deployment = find<Deployment>(manifests, 'Deployment', 'docs');
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0].image).toBe('nginx:1.26');
    expect(find<Service>(manifests, 'Service', 'docs').spec.ports).toEqual([
      expect.objectContaining({ port: 8080, targetPort: 80 }),
    ]);
  });

  it('with autoscaling: a HorizontalPodAutoscaler from replicas to maxReplicas owns the replica count', () => {
    const manifests = render({ pages: PAGES, replicas: 2, autoscaling: { maxReplicas: 6 } });
    const deployment = find<Deployment>(manifests, 'Deployment', 'docs');
    // The Deployment starts with spec.replicas; the controller leaves the field to the autoscaler after that.
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.metadata.annotations).toMatchObject({
      'reconstruct.dev/ignore-fields': '/spec/replicas',
    });
    expect(find<Manifest>(manifests, 'HorizontalPodAutoscaler', 'docs')).toMatchObject({
      apiVersion: 'autoscaling/v2',
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'docs' },
        minReplicas: 2,
        maxReplicas: 6,
        metrics: [{ resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      },
    });
  });

  it('without autoscaling: no autoscaler, and the controller owns spec.replicas', () => {
    const manifests = render({ pages: PAGES, replicas: 2 });
    expect(manifests.map((m) => m.kind)).not.toContain('HorizontalPodAutoscaler');
    expect(find<Deployment>(manifests, 'Deployment', 'docs').metadata.annotations ?? {}).not.toHaveProperty(
      'reconstruct.dev/ignore-fields',
    );
  });

  it('probes readiness on port 80', () => {
    const [container] = find<Deployment>(render({ pages: PAGES }), 'Deployment', 'docs').spec.template.spec
      .containers;
    expect(container.ports).toEqual([expect.objectContaining({ containerPort: 80 })]);
    expect(container.readinessProbe.httpGet).toMatchObject({ path: '/index.html', port: 80 });
  });

  it("selects its own pods, by the spec's labels only", () => {
    const manifests = render({ pages: PAGES });
    const deployment = find<Deployment>(manifests, 'Deployment', 'docs');
    const labels = { 'app.kubernetes.io/name': 'static-site', 'sites.example.com/site': 'docs' };
    expect(deployment.spec.template.metadata.labels).toEqual(labels);
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(find<Service>(manifests, 'Service', 'docs').spec.selector).toEqual(labels);
  });

  describe('the content hash on the pod template', () => {
    const base = hashOf(render({ pages: PAGES }));

    it('is there', () => expect(base).toMatch(/^[0-9a-f]{16}$/));

    it('changes when a page changes', () => {
      expect(hashOf(render({ pages: { ...PAGES, 'index.html': '<h1>Docs v2</h1>\n' } }))).not.toBe(base);
    });

    it('changes when a page is added or renamed', () => {
      expect(hashOf(render({ pages: { ...PAGES, 'faq.html': '' } }))).not.toBe(base);
      const renamed = { 'index.html': PAGES['index.html'], 'about-us.html': PAGES['about.html'] };
      expect(hashOf(render({ pages: renamed }))).not.toBe(base);
    });

    it('changes only then: not for the order of the pages, replicas, image, port or name', () => {
      const reversed = { 'about.html': PAGES['about.html'], 'index.html': PAGES['index.html'] };
      expect(hashOf(render({ pages: reversed }))).toBe(base);
      expect(hashOf(render({ pages: PAGES, replicas: 4, image: 'nginx:1.26', port: 81 }))).toBe(base);
      expect(hashOf(render({ pages: PAGES }, 'other'), 'other')).toBe(base);
    });
  });

  describe('refuses what the schema cannot check', () => {
    it('pages that do not fit in a ConfigMap (1 MiB)', () => {
      const big = 'x'.repeat(512 * 1024 - 'a.html'.length);
      expect(() => render({ pages: { 'a.html': big, 'b.html': big } })).not.toThrow(); // 1 MiB exactly
      const error = errorOf(() => render({ pages: { 'a.html': big, 'b.html': big, 'c.html': '' } }));
      expect(error).toMatchObject({ field: 'spec.pages' });
    });

    it('a name that is not a DNS-1035 label', () => {
      expect(errorOf(() => render({ pages: PAGES }, 'Docs'))).toMatchObject({ field: 'metadata.name' });
    });
  });
});

describe('StaticSiteResource', () => {
  it('renders the custom resource itself, as written (the API server applies the defaults)', () => {
    const chart = Testing.chart();
    new StaticSiteResource(chart, 'blog', {
      metadata: { name: 'blog', namespace: 'web' },
      spec: { pages: { 'index.html': '<h1>Blog</h1>' } },
    });
    expect(Testing.synth(chart)).toEqual([
      {
        apiVersion: 'sites.example.com/v1alpha1',
        kind: 'StaticSite',
        metadata: { name: 'blog', namespace: 'web' },
        spec: { pages: { 'index.html': '<h1>Blog</h1>' } },
      },
    ]);
  });
});

describe('the built-in Memcached construct, in the same app', () => {
  it('renders a Deployment of size 2 and a Service', () => {
    const chart = Testing.chart();
    new Memcached(chart, 'cache', { name: 'sessions', spec: { size: 2 } });
    const manifests = Testing.synth(chart) as Manifest[];
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      'Deployment/sessions',
      'Service/sessions',
    ]);
    expect(find<Deployment>(manifests, 'Deployment', 'sessions').spec.replicas).toBe(2);
    expect(find<Service>(manifests, 'Service', 'sessions').spec.ports).toEqual([
      expect.objectContaining({ port: 11211 }),
    ]);
  });
});

describe('main.ts', () => {
  it('holds the rendered site, the custom resource and memcached', () => {
    const chart = new SiteChart(Testing.app(), 'static-site');
    expect((Testing.synth(chart) as Manifest[]).map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      'ConfigMap/docs-content',
      'Deployment/docs',
      'Deployment/sessions',
      'Service/docs',
      'Service/sessions',
      'StaticSite/blog',
    ]);
  });
});

describe('staticSiteKind', () => {
  /** As the API server stores it: the schema's defaults applied. */
  const resource = {
    apiVersion: 'sites.example.com/v1alpha1',
    kind: 'StaticSite',
    metadata: { name: 'docs', namespace: 'web', generation: 1 },
    spec: withDefaults<StaticSiteSpec, StaticSiteSpecWithDefaults>(staticSiteSchema.spec, { pages: PAGES }),
  };
  const children = (): Manifest[] => {
    const chart = new Chart(Testing.app(), 'kind');
    staticSiteKind.build(chart, resource);
    return Testing.synth(chart) as Manifest[];
  };
  /**
   * A view whose caches hold the ConfigMaps `docs-content` and `docs-endpoint` (unless `noEndpoint`), the
   * Service `docs` (unless `noService`) and,
   * given a `status`, the Deployment `docs` with it.
   */
  const viewWith = (status?: object, noService = false, noEndpoint = false): ClusterView => {
    const objects: Record<string, KubeObject | undefined> = {
      'configmaps/docs-content': { metadata: { name: 'docs-content', namespace: 'web' } },
      'configmaps/docs-endpoint': noEndpoint
        ? undefined
        : { metadata: { name: 'docs-endpoint', namespace: 'web' } },
      'services/docs': noService ? undefined : { metadata: { name: 'docs', namespace: 'web' } },
      'deployments/docs': status && {
        metadata: { name: 'docs', namespace: 'web', generation: 1 },
        status: { observedGeneration: 1, ...status },
      },
    };
    return {
      get: (type, namespace, name) => (namespace === 'web' ? objects[`${type.plural}/${name}`] : undefined),
      list: () => [],
      exists: () => false,
    };
  };

  it('defines the CRD staticsites.sites.example.com, namespaced', () => {
    expect(staticSiteKind.crd.metadata.name).toBe('staticsites.sites.example.com');
    expect(staticSiteKind.crd.spec.scope).toBe('Namespaced');
    expect(staticSiteKind.children.map((c) => c.kind)).toEqual([
      'ConfigMap',
      'Deployment',
      'Service',
      'HorizontalPodAutoscaler',
    ]);
  });

  it('reports the url (default port) and the available replicas', () => {
    const view = viewWith({ availableReplicas: 1, updatedReplicas: 1, replicas: 1 });
    expect(staticSiteKind.status({ resource, children: children(), view })).toEqual({
      url: 'http://docs.web.svc:80',
      availableReplicas: 1,
    });
    const on8080 = { ...resource, spec: { ...resource.spec, port: 8080 } };
    expect(staticSiteKind.status({ resource: on8080, children: children(), view }).url).toBe(
      'http://docs.web.svc:8080',
    );
  });

  it('is Ready once every child is (the Deployment rolled out), and names the child that blocks', () => {
    const ready = (status?: object, noService = false, noEndpoint = false) =>
      staticSiteKind.ready({ resource, children: children(), view: viewWith(status, noService, noEndpoint) });
    expect(ready()).toEqual({
      ready: false,
      reason: 'Progressing',
      message: 'Deployment docs: does not exist yet',
    });
    expect(ready({ availableReplicas: 0, updatedReplicas: 1, replicas: 1 })).toEqual({
      ready: false,
      reason: 'Progressing',
      message: 'Deployment docs: 0 of 1 replicas available',
    });
    const rolledOut = { availableReplicas: 1, updatedReplicas: 1, replicas: 1 };
    expect(ready(rolledOut, true)).toMatchObject({
      ready: false,
      message: 'Service docs: does not exist yet',
    });
    expect(ready(rolledOut, false, true)).toMatchObject({
      ready: false,
      message: 'ConfigMap docs-endpoint: does not exist yet',
    });
    expect(ready(rolledOut)).toMatchObject({ ready: true, reason: 'Ready' });
  });
});
