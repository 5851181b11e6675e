/**
 * A cdk8s app using the typed constructs: a StaticSite rendered here (its ConfigMap, Deployment and
 * Service go straight into the output), a StaticSite custom resource for the operator to reconcile, and
 * the package's built-in Memcached construct.
 *
 *   npm run synth     # writes dist/static-site.k8s.yaml
 */
import { App, Chart, type ChartProps } from 'cdk8s';
import { Memcached } from 'cdk8s-reconstruct';
import type { Construct } from 'constructs';
import { StaticSite, StaticSiteResource } from './src';

export class SiteChart extends Chart {
  /** Rendered in this app: plain Kubernetes objects, no operator needed. */
  readonly docs: StaticSite;
  /** The custom resource itself: the operator (`reconstruct controller --kinds src/index.ts`) renders it. */
  readonly blog: StaticSiteResource;
  /** A built-in kind's construct, rendered in this app too. */
  readonly cache: Memcached;

  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, props);
    this.docs = new StaticSite(this, 'docs', {
      name: 'docs',
      spec: { pages: { 'index.html': '<h1>Docs</h1>\n' } },
    });
    this.blog = new StaticSiteResource(this, 'blog', {
      metadata: { name: 'blog' },
      spec: { replicas: 3, pages: { 'index.html': '<h1>Blog</h1>\n' } },
    });
    this.cache = new Memcached(this, 'cache', { name: 'sessions', spec: { size: 2 } });
  }
}

if (require.main === module) {
  const app = new App();
  new SiteChart(app, 'static-site');
  app.synth();
}
