import { sameJson } from '../../../constructs/kit/same-json';
import {
  APPLIED_HASH_ANNOTATION,
  applyNeeded,
  firstDifference,
  hashObject,
  withAppliedHash,
} from '../../../controller/reconcile/converge';
import { formatQuantity, parseQuantity, sumQuantities } from '../../../constructs/kit/quantity';

const desired = withAppliedHash({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's', labels: { a: '1' } },
  spec: { selector: { app: 'x' }, ports: [{ port: 80, targetPort: 80 }], externalIPs: [] },
});

/** What the API server returns for `desired`: defaults and other managers' fields added. */
const live = {
  ...desired,
  metadata: { ...desired.metadata, uid: 'u', resourceVersion: '5', labels: { a: '1', other: 'y' } },
  spec: {
    ...desired.spec,
    ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }],
    clusterIP: '10.0.0.1',
    externalIPs: undefined,
  },
};

describe('applyNeeded', () => {
  it('skips an object that already holds every desired field and was applied from the same desired state', () => {
    expect(applyNeeded(desired, live)).toBeUndefined();
  });

  it('applies a missing object', () => {
    expect(applyNeeded(desired, undefined)).toBe('missing');
  });

  it('applies when a managed field was edited by hand', () => {
    const edited = { ...live, spec: { ...live.spec, selector: { app: 'hacked' } } };
    expect(applyNeeded(desired, edited)).toBe('drifted at /spec/selector/app');
  });

  it('applies when the desired state dropped a field the live object still has', () => {
    const fewer = withAppliedHash({ ...desired, metadata: { name: 's', labels: {} } });
    expect(applyNeeded(fewer, live)).toBe('changed');
  });

  it('records a hash that does not depend on key order', () => {
    expect(hashObject({ a: 1, b: [{ c: 2, d: 3 }] })).toBe(hashObject({ b: [{ d: 3, c: 2 }], a: 1 }));
    // The digest children carry in the cluster: a new release must keep it, or it applies everything again.
    expect(
      hashObject({ b: [{ d: 3, c: 'x' }, null, 1.5, true], a: { z: undefined, é: 1, E: 2, e: 3 }, n: null }),
    ).toBe('ef80e70e6cdc6ff7ea332c2f2c06dde5');
    expect(desired.metadata.annotations?.[APPLIED_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('sameJson', () => {
  it('ignores key order and undefined members, and nothing else', () => {
    expect(sameJson({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: [1] }, { a: [1, 1] })).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
    expect(sameJson({ a: {} }, { a: [] })).toBe(false);
    expect(sameJson({ a: { b: 1 } }, { a: { b: 1, c: 2 } })).toBe(false);
  });

  it('compares what JSON would say: a Date as its string, NaN and an empty array slot as null', () => {
    const at = '2026-11-25T03:00:00.000Z';
    expect(sameJson({ lastBackup: new Date(at) }, { lastBackup: at })).toBe(true);
    expect(sameJson({ lastBackup: new Date(at) }, { lastBackup: '2026-11-25T04:00:00.000Z' })).toBe(false);
    expect(sameJson({ ratio: NaN }, { ratio: null })).toBe(true);
    expect(sameJson([undefined], [null])).toBe(true);
  });
});

describe('firstDifference', () => {
  it('treats canonicalized quantities as equal and other strings as different', () => {
    expect(firstDifference({ cpu: '1000m', memory: '1Gi' }, { cpu: '1', memory: '1024Mi' })).toBeUndefined();
    expect(firstDifference({ cpu: '500m' }, { cpu: '1' })).toBe('/cpu');
    expect(firstDifference({ port: 80 }, { port: '80' })).toBe('/port');
  });

  it('compares lists element by element and by length', () => {
    expect(firstDifference({ l: [1, 2] }, { l: [1, 2, 3] })).toBe('/l');
  });

  it('names the whole path to the first difference, outermost first', () => {
    const desired = { spec: { template: { containers: [{ name: 'a', image: 'x:1' }] } } };
    const live = { spec: { template: { containers: [{ name: 'a', image: 'x:2', extra: true }] } } };
    expect(firstDifference(desired, live)).toBe('/spec/template/containers/0/image');
    expect(firstDifference(desired, { spec: 'no object' })).toBe('/spec');
    expect(firstDifference(1, 2)).toBe('/');
    expect(firstDifference(desired, JSON.parse(JSON.stringify(desired)))).toBeUndefined();
  });
});

describe('quantities', () => {
  it('parses and formats the forms Kubernetes uses', () => {
    expect(parseQuantity('500m')?.milli).toBe(500n);
    expect(parseQuantity('2')?.milli).toBe(2000n);
    expect(parseQuantity('1e3')?.milli).toBe(1_000_000n);
    expect(parseQuantity('64Mi')?.milli).toBe(64n * 1024n * 1024n * 1000n);
    expect(parseQuantity('a lot')).toBeUndefined();
    expect(formatQuantity({ milli: 1500n, binary: false })).toBe('1500m');
  });

  it('sums node allocatable resources exactly', () => {
    expect(
      sumQuantities([
        { cpu: '32', memory: '256Gi', pods: '110' },
        { cpu: '500m', memory: '512Mi', pods: '110' },
      ]),
    ).toEqual({ cpu: '32500m', memory: '262656Mi', pods: '220' });
  });
});
