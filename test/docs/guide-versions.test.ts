/**
 * What docs/GUIDE.md (4c) says of StaticSite's two versions, checked on the kind its code blocks are
 * excerpts of (guide-versions.ts): the CRD and the types gen writes, the conversions both ways, offline
 * rendering of either version, and a reconcile of a resource sent as v1alpha1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CONVERSION_DATA_ANNOTATION,
  SERVICE,
  defineKind,
  renderResources,
  type CustomResource,
} from '../../index';
import { InMemoryCluster, checkConversions } from '../../testing';
import { reconstruct } from '../support/node-ts';
import { compileSnippets } from '../support/snippets';
import { StaticSite, staticSiteKind, staticSiteSchema, staticSiteV1alpha1 } from './guide-versions';

const ALPHA = 'sites.example.com/v1alpha1';
const BETA = 'sites.example.com/v1beta1';
const pages = { 'index.html': '<h1>Docs</h1>' };
const site = (apiVersion: string, spec: object): CustomResource => ({
  apiVersion,
  kind: 'StaticSite',
  metadata: { name: 'docs', namespace: 'web' },
  spec,
});

describe('gen', () => {
  it('writes one CRD: v1beta1 stored, v1alpha1 served and deprecated with its warning', () => {
    const { versions } = staticSiteKind.crd.spec;
    expect(versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false])).toEqual([
      ['v1beta1', true, true, false],
      ['v1alpha1', true, false, true],
    ]);
    expect(versions[1].deprecationWarning).toBe(
      'sites.example.com/v1alpha1 StaticSite is deprecated; use sites.example.com/v1beta1',
    );
    const specOf = (i: number) =>
      Object.keys(versions[i].schema.openAPIV3Schema.properties!.spec.properties!);
    expect(specOf(0)).toEqual(['pages', 'replicas', 'image', 'autoscaling', 'service']);
    expect(specOf(1)).toEqual(['pages', 'replicas', 'image', 'autoscaling', 'port']);
  });

  it("writes each version's types, which are those guide-versions.ts writes by hand", () => {
    // gen in a node of its own: its formatter imports dynamically, which jest's module loader does not.
    const dir = mkdtempSync(join(tmpdir(), 'guide-versions-'));
    let types: string;
    try {
      const run = reconstruct(
        ['gen', '--kinds', join(__dirname, 'guide-versions.ts'), '--types', 'types.ts'],
        {
          cwd: dir,
        },
      );
      expect(run.stderr).toBe('');
      types = readFileSync(join(dir, 'types.ts'), 'utf8');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(types).toContain('export type StaticSiteV1beta1Spec = StaticSiteSpec;');
    const same = `
      import type * as hand from './guide-versions';
      type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
      export const same: [
        Same<hand.StaticSiteSpec, StaticSiteSpec>,
        Same<hand.StaticSiteSpecWithDefaults, StaticSiteSpecWithDefaults>,
        Same<hand.StaticSiteV1alpha1Spec, StaticSiteV1alpha1Spec>,
        Same<hand.OwnStatus, Pick<StaticSiteStatus, 'url' | 'availableReplicas'>>,
        Same<hand.OwnStatus, Pick<StaticSiteV1alpha1Status, 'url' | 'availableReplicas'>>,
      ] = [true, true, true, true, true];
    `;
    const block = { doc: 'generated-types', lang: 'ts', line: 1, heading: '', code: `${types}\n${same}` };
    expect(compileSnippets([block], () => 'test/docs')[0].errors).toEqual([]);
  }, 60_000);
});

describe('the conversions', () => {
  it('converts every version to every other and back', () => {
    // 200 objects of each version, to the other, with and without the conversion data.
    expect(checkConversions(staticSiteKind).roundTrips).toBe(800);
  });

  it('keeps service.type through a v1alpha1 read and write back; a change made there wins', () => {
    const stored = site(BETA, { pages, service: { port: 8080, type: 'LoadBalancer' } });
    const asAlpha = staticSiteKind.convert(stored, ALPHA);
    expect(asAlpha.spec).toEqual({ pages, port: 8080 });
    expect(asAlpha.metadata.annotations?.[CONVERSION_DATA_ANNOTATION]).toContain('"type":"LoadBalancer"');
    expect(staticSiteKind.convert(asAlpha, BETA).spec).toEqual(stored.spec);
    const changed = { ...asAlpha, spec: { pages, port: 9090 } };
    expect(staticSiteKind.convert(changed, BETA).spec).toEqual({
      pages,
      service: { port: 9090, type: 'LoadBalancer' },
    });
  });

  it('fails a fromHub that forgets a field the conversion data would hide, naming the seed', () => {
    const forgetful = defineKind({
      apiVersion: BETA,
      kind: 'StaticSite',
      plural: 'staticsites',
      schema: staticSiteSchema,
      construct: StaticSite,
      children: staticSiteKind.children,
      versions: [
        {
          ...staticSiteV1alpha1,
          // The fields listed by hand, and autoscaling forgotten: the conversion data would hide it.
          fromHub: ({ spec: { pages, replicas, image, service }, status }) => ({
            spec: { pages, replicas, image, port: service?.port },
            status,
          }),
        },
      ],
    });
    expect(() => checkConversions(forgetful)).toThrow(
      'StaticSite v1beta1 -> v1alpha1 (seed 1): came back different without the conversion data (beyond spec.service.type)',
    );
  });
});

describe('reconstruct synth', () => {
  it('renders a v1alpha1 and the same v1beta1 site into the same children, as v1beta1', () => {
    const render = (resource: CustomResource) => {
      const result = renderResources([resource], { kinds: [staticSiteKind] });
      expect(result.problems).toEqual([]);
      return result.rendered[0];
    };
    const alpha = render(site(ALPHA, { pages, port: 8080, autoscaling: { maxReplicas: 3 } }));
    const beta = render(site(BETA, { pages, service: { port: 8080 }, autoscaling: { maxReplicas: 3 } }));
    expect(alpha.children).toEqual(beta.children);
    expect(alpha.children.map((c) => `${c.kind}/${c.metadata.name}`)).toEqual([
      'ConfigMap/docs-content',
      'Deployment/docs',
      'HorizontalPodAutoscaler/docs',
      'Service/docs',
    ]);
    expect(alpha.resource).toMatchObject({
      apiVersion: BETA,
      spec: { service: { port: 8080, type: 'ClusterIP' } },
    });
  });
});

describe('a reconcile test', () => {
  it('reconciles a site sent as v1alpha1 as the v1beta1 it is stored as', async () => {
    const cluster = new InMemoryCluster([staticSiteKind]);
    const spec = { pages: { 'index.html': 'hi' }, port: 8080 };
    const stored = cluster.putResourceAs(staticSiteKind, 'sites.example.com/v1alpha1', 'docs', spec, 'web');
    // Kept as v1beta1, defaulted there: what the controller reads.
    expect(stored.spec).toMatchObject({ service: { port: 8080, type: 'ClusterIP' } });
    await cluster.reconcile(staticSiteKind, 'web', 'docs');
    expect(cluster.any(SERVICE, 'web', 'docs')?.spec).toMatchObject({
      type: 'ClusterIP',
      ports: [{ port: 8080, targetPort: 80 }],
    });
  });
});
