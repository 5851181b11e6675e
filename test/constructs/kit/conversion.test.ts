/**
 * A kind with several versions (test/fixtures/kinds/versioned.ts, Banner v1beta1 and v1alpha1): its CRD,
 * what defineKind refuses, and lossless conversion both ways (the kit's conversion data), by example and
 * by the property check authors get from cdk8s-reconstruct/testing.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  CONFIG_MAP,
  CONVERSION_DATA_ANNOTATION,
  KindRegistry,
  defineKind,
  type CustomResource,
  type KindVersion,
} from '../../../index';
import { checkConversions } from '../../../testing';
import {
  bannerKind,
  bannerV1alpha1,
  type BannerSpec,
  type BannerStatus,
} from '../../fixtures/kinds/versioned';

const BETA = 'versions.example.com/v1beta1';
const ALPHA = 'versions.example.com/v1alpha1';

const banner = (apiVersion: string, spec: object, extra: Partial<CustomResource> = {}): CustomResource => ({
  apiVersion,
  kind: 'Banner',
  metadata: { name: 'hello', namespace: 'web', uid: 'u-1', resourceVersion: '7', generation: 2 },
  spec,
  ...extra,
});

describe('a kind with two versions', () => {
  it('has a CRD with both, the hub stored, newest first, the old one deprecated with its warning', () => {
    const { versions, conversion } = bannerKind.crd.spec;
    expect(versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false])).toEqual([
      ['v1beta1', true, true, false],
      ['v1alpha1', true, false, true],
    ]);
    expect(versions[1].deprecationWarning).toBe(
      'versions.example.com/v1alpha1 Banner is deprecated; use v1beta1',
    );
    expect(Object.keys(versions[1].schema.openAPIV3Schema.properties!.spec.properties!)).toEqual([
      'text',
      'formal',
      'color',
    ]);
    // Every version has the kit's status fields and the name rule.
    expect(versions[1].schema.openAPIV3Schema.properties!.status.properties).toHaveProperty('conditions');
    expect(versions[1].schema.openAPIV3Schema['x-kubernetes-validations']![0].rule).toMatch(/metadata.name/);
    expect(conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          service: {
            namespace: 'reconstruct-system',
            name: 'reconstruct-controller-webhook',
            path: '/convert',
            port: 443,
          },
        },
      },
    });
    expect(
      bannerKind.versions.map((v) => `${v.name}${v.hub ? ' hub' : ''}${v.storage ? ' storage' : ''}`),
    ).toEqual(['v1beta1 hub storage', 'v1alpha1']);
  });

  it('a kind of one version has no conversion in its CRD', () => {
    const one = defineKind({ ...options(), versions: undefined });
    expect(one.crd.spec.conversion).toBeUndefined();
    expect(one.crd.spec.versions).toHaveLength(1);
  });

  it('stores in another version when it says so', () => {
    const kind = defineKind({ ...options(), storageVersion: 'v1alpha1' });
    expect(kind.crd.spec.versions.map((v) => [v.name, v.storage])).toEqual([
      ['v1beta1', false],
      ['v1alpha1', true],
    ]);
  });

  it('is found by either version', () => {
    const registry = new KindRegistry([bannerKind]);
    expect(registry.get(ALPHA, 'Banner')).toBe(bannerKind);
    expect(registry.get(BETA, 'Banner')).toBe(bannerKind);
    expect(registry.get('versions.example.com/v2', 'Banner')).toBeUndefined();
  });
});

/** Banner's definition options, with the v1alpha1 version, to vary. */
function options() {
  class Empty extends Construct {
    constructor(scope: Construct, id: string) {
      super(scope, id);
      new ApiObject(this, 'c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    }
  }
  return {
    apiVersion: BETA,
    kind: 'Banner',
    plural: 'banners',
    schema: bannerKind.schema,
    construct: Empty,
    children: [CONFIG_MAP],
    versions: [bannerV1alpha1] as readonly KindVersion<BannerSpec, BannerStatus>[],
  };
}

describe('defineKind refuses versions that cannot work', () => {
  it.each<[string, Partial<ReturnType<typeof options>> & { storageVersion?: string }, RegExp]>([
    [
      'a version without toHub',
      { versions: [{ ...bannerV1alpha1, toHub: undefined! }] },
      /versions\[0\] \(v1alpha1\): toHub is missing: without it, v1alpha1 objects cannot convert/,
    ],
    [
      'a version without fromHub',
      { versions: [{ ...bannerV1alpha1, fromHub: undefined! }] },
      /fromHub is missing/,
    ],
    ['the hub twice', { versions: [{ ...bannerV1alpha1, name: 'v1beta1' }] }, /v1beta1 is defined twice/],
    [
      'a bad version name',
      { versions: [{ ...bannerV1alpha1, name: 'version1' }] },
      /name must look like v1, v1alpha1, v2beta3/,
    ],
    [
      'a storage version it does not have',
      { storageVersion: 'v2' },
      /storageVersion "v2" is not one of the kind's versions \(v1beta1, v1alpha1\)/,
    ],
  ])('%s', (_what, change, message) => {
    expect(() => defineKind({ ...options(), ...change })).toThrow(message);
  });
});

describe('conversion', () => {
  it('renames and reshapes fields both ways, and leaves metadata as it was', () => {
    const alpha = banner(ALPHA, { text: 'hi', formal: true });
    const beta = bannerKind.convert(alpha, BETA);
    expect(beta.apiVersion).toBe(BETA);
    expect(beta.spec).toEqual({ message: 'hi', style: 'formal' });
    expect(beta.metadata).toEqual(alpha.metadata); // nothing lost: no conversion data
    expect(bannerKind.convert(beta, ALPHA)).toEqual(alpha);
  });

  it('returns the object itself when it already is in that version', () => {
    const beta = banner(BETA, { message: 'hi' });
    expect(bannerKind.convert(beta, BETA)).toBe(beta);
  });

  it('keeps what the other version cannot say: v1beta1 replicas 3, read and written back as v1alpha1', () => {
    const stored = banner(BETA, { message: 'hi', style: 'casual', replicas: 3 });
    const asAlpha = bannerKind.convert(stored, ALPHA);
    expect(asAlpha.spec).toEqual({ text: 'hi', formal: false });
    expect(JSON.parse(asAlpha.metadata.annotations![CONVERSION_DATA_ANNOTATION])).toEqual({
      v1beta1: { spec: { message: 'hi', style: 'casual', replicas: 3 } },
    });
    // Written back unchanged: the API server converts it to the stored version.
    const back = bannerKind.convert(asAlpha, BETA);
    expect(back.spec).toEqual({ message: 'hi', style: 'casual', replicas: 3 });
    expect(back.metadata.annotations).toBeUndefined(); // nothing left to keep
  });

  it('lets a change made through the old version win over what it kept', () => {
    const stored = banner(BETA, { message: 'hi', style: 'formal', replicas: 3 });
    const asAlpha = bannerKind.convert(stored, ALPHA);
    const edited = { ...asAlpha, spec: { text: 'bye', formal: false } };
    expect(bannerKind.convert(edited, BETA).spec).toEqual({ message: 'bye', style: 'casual', replicas: 3 });
  });

  it('keeps a field only the old version has through the hub, and the kit status fields as they are', () => {
    const conditions = [
      { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: 'x' },
    ];
    const alpha = banner(
      ALPHA,
      { text: 'hi', formal: false, color: 'red' },
      {
        status: { up: true, observedGeneration: 2, conditions },
      },
    );
    const beta = bannerKind.convert(alpha, BETA);
    expect(beta.spec).toEqual({ message: 'hi', style: 'casual' });
    expect(beta.status).toEqual({ observedGeneration: 2, conditions, readyReplicas: 1 });
    expect(bannerKind.convert(beta, ALPHA)).toEqual(alpha);
  });

  it('says which resource and which way a failing conversion went', () => {
    const broken = defineKind({
      ...options(),
      versions: [
        {
          ...bannerV1alpha1,
          toHub: () => {
            throw new Error('no text');
          },
        },
      ],
    });
    expect(() => broken.convert(banner(ALPHA, { text: 'x' }), BETA)).toThrow(
      'Banner web/hello: converting v1alpha1 to v1beta1 failed: no text',
    );
  });

  it('refuses a version the kind does not have, naming those it has', () => {
    expect(() => bannerKind.convert(banner(BETA, { message: 'x' }), 'versions.example.com/v2')).toThrow(
      'Banner web/hello: Banner has no version versions.example.com/v2 (it has versions.example.com/v1beta1, versions.example.com/v1alpha1)',
    );
  });

  it('ignores conversion data it cannot read (it only loses what it kept)', () => {
    const alpha = banner(ALPHA, { text: 'hi' }, {});
    alpha.metadata.annotations = { [CONVERSION_DATA_ANNOTATION]: '{not json' };
    expect(bannerKind.convert(alpha, BETA).spec).toEqual({ message: 'hi', style: 'casual' });
  });
});

describe('checkConversions (cdk8s-reconstruct/testing)', () => {
  it('round-trips random valid objects of each version through the other', () => {
    // 300 objects of each version, to the other, with and without the conversion data.
    expect(checkConversions(bannerKind, { runs: 300, seed: 7 }).roundTrips).toBe(1200);
  });

  it('finds a conversion that loses what the other version could have said', () => {
    // fromHub forgets `formal`: a formal banner reads as v1alpha1 formal: false. The conversion data would
    // bring the style back on the way home; without it, the loss shows.
    const lossy = defineKind({
      ...options(),
      versions: [{ ...bannerV1alpha1, fromHub: ({ spec }) => ({ spec: { text: spec.message } }) }],
    });
    expect(() => checkConversions(lossy, { runs: 50 })).toThrow(
      /Banner v1beta1 -> v1alpha1 \(seed 1\): came back different without the conversion data \(beyond spec.replicas, status.readyReplicas\)/,
    );
  });

  it('finds a conversion that makes an object the other version refuses', () => {
    // An empty text, which v1alpha1's schema refuses (minLength 1).
    const invalid = defineKind({
      ...options(),
      versions: [{ ...bannerV1alpha1, fromHub: () => ({ spec: { text: '' } }) }],
    });
    expect(() => checkConversions(invalid, { runs: 20 })).toThrow(
      /Banner v1beta1 -> v1alpha1 \(seed 1\): not a valid v1alpha1 object[^]*spec.text/,
    );
  });
});
