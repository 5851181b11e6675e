/**
 * Balancer's two versions (SPEC.md, "v1beta1"): v1beta1 stored, with `spec.replicas` behind a scale
 * subresource that works; v1alpha1 served and deprecated, converting losslessly both ways.
 */
import { balancerKind, type CustomResource, type Manifest } from '../../index';
import { synthesize } from '../../constructs/kit/synthesize';
import { checkConversions } from '../../testing';

const ALPHA = 'exposer.hliangzhao.io/v1alpha1';
const BETA = 'exposer.hliangzhao.io/v1beta1';
const spec = {
  ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  selector: { app: 'shop' },
  backends: [{ name: 'v1', weight: 1 }],
  image: 'nginx:1.15.9',
};
const balancer = (apiVersion: string, s: object): CustomResource => ({
  apiVersion,
  kind: 'Balancer',
  metadata: { name: 'shop', namespace: 'web' },
  spec: s,
});

describe('Balancer v1beta1 and v1alpha1', () => {
  it('stores v1beta1, serves v1alpha1 deprecated, and scales v1beta1 by its replicas', () => {
    const versions = balancerKind.crd.spec.versions;
    expect(versions.map((v) => [v.name, v.storage, v.deprecated ?? false])).toEqual([
      ['v1beta1', true, false],
      ['v1alpha1', false, true],
    ]);
    expect(versions[0].subresources).toEqual({
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
    // The seed's scale subresource named fields v1alpha1 does not have: it has none.
    expect(versions[1].subresources).toEqual({ status: {} });
  });

  it('keeps replicas: 3 through a v1alpha1 read and write back', () => {
    const stored = balancer(BETA, { ...spec, replicas: 3 });
    const asAlpha = balancerKind.convert(stored, ALPHA);
    expect(asAlpha.spec).toEqual(spec);
    expect(balancerKind.convert(asAlpha, BETA).spec).toEqual({ ...spec, replicas: 3 });
  });

  it('makes as many proxy pods as spec.replicas says', () => {
    const deployment = synthesize(balancerKind, balancer(BETA, { ...spec, replicas: 3 })).find(
      (c) => c.kind === 'Deployment',
    ) as Manifest & { spec: { replicas: number } };
    expect(deployment.spec.replicas).toBe(3);
  });

  it('converts random valid balancers of either version losslessly', () => {
    expect(checkConversions(balancerKind, { runs: 150 }).roundTrips).toBe(600);
  });
});
