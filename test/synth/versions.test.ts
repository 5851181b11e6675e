/**
 * Offline rendering of a kind with several versions (Banner, test/fixtures/kinds/versioned.ts): a resource
 * of any version renders the same children for the same meaning, as the hub the construct is written
 * against; a document of a version the kind does not have, or invalid in its own version, is a problem
 * naming it.
 */
import { KindRegistry } from '../../index';
import { renderDocument } from '../../synth/render';
import { bannerKind } from '../fixtures/kinds/versioned';

const kinds = new KindRegistry([bannerKind]);
const render = (value: object) => renderDocument({ file: 'banners.yaml', index: 0, value }, { kinds });
const metadata = { name: 'hello', namespace: 'web' };

describe('reconstruct synth of a kind with versions', () => {
  it('renders a v1alpha1 and a v1beta1 resource of the same meaning into the same children', () => {
    const alpha = render({
      apiVersion: 'versions.example.com/v1alpha1',
      kind: 'Banner',
      metadata,
      spec: { text: 'hi', formal: true },
    });
    const beta = render({
      apiVersion: 'versions.example.com/v1beta1',
      kind: 'Banner',
      metadata,
      spec: { message: 'hi', style: 'formal' },
    });
    expect(alpha.problems).toEqual([]);
    expect(beta.problems).toEqual([]);
    expect(alpha.rendered!.children).toEqual(beta.rendered!.children);
    expect(alpha.rendered!.children[0]).toMatchObject({
      kind: 'ConfigMap',
      data: { message: 'Dear reader: hi', replicas: '1' },
    });
    // As the controller sees it: the hub, with the hub's defaults.
    expect(alpha.rendered!.resource).toMatchObject({
      apiVersion: 'versions.example.com/v1beta1',
      spec: { message: 'hi', style: 'formal', replicas: 1 },
    });
  });

  it("checks a resource against its own version's schema, naming the field", () => {
    const { problems } = render({
      apiVersion: 'versions.example.com/v1alpha1',
      kind: 'Banner',
      metadata,
      spec: { text: 'hi', color: 'purple' },
    });
    // (and, as the API server says, that the CEL rules were not checked)
    expect(problems[0]).toEqual(
      expect.objectContaining({
        file: 'banners.yaml',
        resource: 'Banner/web/hello',
        field: 'spec.color',
        message: expect.stringContaining('Unsupported value: "purple"') as string,
      }),
    );
  });

  it('refuses a version the kind does not have, naming those it has', () => {
    const { problems } = render({
      apiVersion: 'versions.example.com/v2',
      kind: 'Banner',
      metadata,
      spec: {},
    });
    expect(problems).toEqual([
      expect.objectContaining({
        field: 'kind',
        message: expect.stringContaining('unknown kind versions.example.com/v2 Banner') as string,
      }),
    ]);
  });
});
