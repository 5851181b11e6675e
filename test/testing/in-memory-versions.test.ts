/**
 * The in-memory cluster stores a resource sent in another of its kind's versions as the API server does:
 * admitted by that version's schema, converted to the kind's own version (what the controller reads),
 * defaulted there, with the conversion data that brings back what the kind's version cannot say.
 */
import { CONFIG_MAP, CONVERSION_DATA_ANNOTATION, type CustomResource } from '../../constructs/kit';
import { AdmissionError, InMemoryCluster } from '../../testing';
import { bannerKind } from '../fixtures/kinds/versioned';

const ALPHA = 'versions.example.com/v1alpha1';

describe('putResourceAs', () => {
  it('keeps a v1alpha1 banner as v1beta1, reconciles it, and reads it back as v1alpha1 unchanged', async () => {
    const cluster = new InMemoryCluster([bannerKind]);
    const stored = cluster.putResourceAs(
      bannerKind,
      ALPHA,
      'hello',
      { text: 'hi', formal: true, color: 'red' },
      'web',
    );
    expect(stored.apiVersion).toBe('versions.example.com/v1beta1');
    expect(stored.spec).toEqual({ message: 'hi', style: 'formal', replicas: 1 });
    expect(stored.metadata.annotations?.[CONVERSION_DATA_ANNOTATION]).toContain('"color":"red"');
    await cluster.reconcile(bannerKind, 'web', 'hello');
    expect(cluster.any(CONFIG_MAP, 'web', 'hello')).toMatchObject({ data: { message: 'Dear reader: hi' } });
    const asAlpha = bannerKind.convert(cluster.any(bannerKind, 'web', 'hello') as CustomResource, ALPHA);
    expect(asAlpha.spec).toEqual({ text: 'hi', formal: true, color: 'red' });
  });

  it("refuses what the sent version's schema refuses, naming the field", () => {
    const cluster = new InMemoryCluster([bannerKind]);
    expect(() =>
      cluster.putResourceAs(bannerKind, ALPHA, 'bad', { text: 'hi', color: 'pink' }, 'web'),
    ).toThrow(AdmissionError);
    expect(() =>
      cluster.putResourceAs(bannerKind, ALPHA, 'bad', { text: 'hi', color: 'pink' }, 'web'),
    ).toThrow(/spec.color: Unsupported value: "pink"/);
  });
});
