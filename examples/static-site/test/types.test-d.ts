/**
 * Type tests: `tsc --noEmit` (the first step of `npm test`) fails if the package's or the generated types
 * ever accept these. Not run by jest (it is not a *.test.ts file).
 */
import { Testing } from 'cdk8s';
import { Memcached, MemcachedResource, withDefaults } from 'cdk8s-reconstruct';
import {
  StaticSite,
  StaticSiteResource,
  staticSiteSchema,
  type StaticSiteSpec,
  type StaticSiteSpecWithDefaults,
} from '../src';

const chart = Testing.chart();
const pages = { 'index.html': '<h1>Hi</h1>' };

// What is right compiles.
new Memcached(chart, 'ok-memcached', { name: 'ok', spec: { size: 2, image: 'memcached:1.6' } });
new MemcachedResource(chart, 'ok-memcached-resource', { spec: { size: 1 } });
new StaticSite(chart, 'ok-site', {
  name: 'ok',
  spec: { pages, replicas: 2, image: 'nginx:1.26', port: 8080 },
});
new StaticSiteResource(chart, 'ok-resource', { metadata: { name: 'ok' }, spec: { pages } });
const defaulted: StaticSiteSpecWithDefaults = withDefaults<StaticSiteSpec, StaticSiteSpecWithDefaults>(
  staticSiteSchema.spec,
  { pages },
);
const replicas: number = defaulted.replicas; // not `number | undefined`
void replicas;

// @ts-expect-error size is a number
new Memcached(chart, 'x', { name: 'x', spec: { size: 'two' } });
// @ts-expect-error size is required
new MemcachedResource(chart, 'x2', { spec: {} });
// @ts-expect-error pages is required
new StaticSite(chart, 'a', { name: 'a', spec: { replicas: 2 } });
// @ts-expect-error a page is a string
new StaticSite(chart, 'b', { name: 'b', spec: { pages: { 'index.html': 1 } } });
// @ts-expect-error replicas is a number
new StaticSite(chart, 'c', { name: 'c', spec: { pages, replicas: '2' } });
// @ts-expect-error no such field
new StaticSite(chart, 'd', { name: 'd', spec: { pages, replica: 2 } });
// @ts-expect-error the construct needs the resource's name
new StaticSite(chart, 'e', { spec: { pages } });
// @ts-expect-error port is a number
new StaticSiteResource(chart, 'f', { spec: { pages, port: '80' } });
// @ts-expect-error in the defaulted type, every defaulted field is present
const partial: StaticSiteSpecWithDefaults = { pages };
void partial;
