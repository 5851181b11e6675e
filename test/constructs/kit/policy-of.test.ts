/** A child's policy read back from its annotations (`policyOf`), and one resource's children checked together. */
import {
  CREATE_ONLY_ANNOTATION,
  GENERATE_ANNOTATION,
  IGNORE_FIELDS_ANNOTATION,
  RETAIN_ANNOTATION,
  WAIT_FOR_ANNOTATION,
} from '../../../constructs/kit/child-annotations';
import { parsePointer } from '../../../constructs/kit/json-pointer';
import { checkPolicies, NO_POLICY, policyOf } from '../../../constructs/kit/policy-of';
import { annotated, errorOf } from './child-policy-fixtures';

describe('policyOf', () => {
  it('is no policy for a child without annotations or without ours', () => {
    expect(policyOf({ kind: 'ConfigMap', metadata: { name: 'a' } })).toEqual(NO_POLICY);
    expect(policyOf(annotated('ConfigMap', 'a', { 'example.com/other': 'true' }))).toEqual(NO_POLICY);
  });

  it('reads hand-written annotations: lists trimmed, pointers decoded', () => {
    const child = annotated('Secret', 'db', {
      [CREATE_ONLY_ANNOTATION]: 'true',
      [RETAIN_ANNOTATION]: 'true',
      [GENERATE_ANNOTATION]: '/stringData/password=alphanumeric(16), /stringData/pin=alphanumeric(4)',
      [IGNORE_FIELDS_ANNOTATION]: '/spec/replicas, /metadata/labels/a~1b,',
      [WAIT_FOR_ANNOTATION]: 'Deployment/web , ConfigMap/a/b',
    });
    expect(policyOf(child)).toEqual({
      createOnly: true,
      retain: true,
      replace: false,
      generate: [
        { path: ['stringData', 'password'], length: 16 },
        { path: ['stringData', 'pin'], length: 4 },
      ],
      ignoreFields: [
        ['spec', 'replicas'],
        ['metadata', 'labels', 'a/b'],
      ],
      waitFor: [
        { kind: 'Deployment', name: 'web' },
        { kind: 'ConfigMap', name: 'a/b' },
      ],
    });
  });

  it('takes only "true" as true', () => {
    const child = annotated('ConfigMap', 'a', {
      [CREATE_ONLY_ANNOTATION]: 'yes',
      [RETAIN_ANNOTATION]: 'True',
    });
    expect(policyOf(child)).toMatchObject({ createOnly: false, retain: false });
  });

  describe('throws naming the child and the annotation', () => {
    it.each<[string, Record<string, string>, string]>([
      [
        'a wait-for that is not Kind/name',
        { [WAIT_FOR_ANNOTATION]: 'nope' },
        `annotation ${WAIT_FOR_ANNOTATION}: "nope" is not Kind/name`,
      ],
      [
        'a wait-for without a name',
        { [WAIT_FOR_ANNOTATION]: 'Deployment/' },
        `annotation ${WAIT_FOR_ANNOTATION}: "Deployment/" is not Kind/name`,
      ],
      [
        'a wait-for without a kind',
        { [WAIT_FOR_ANNOTATION]: '/web' },
        `annotation ${WAIT_FOR_ANNOTATION}: "/web" is not Kind/name`,
      ],
      [
        'generate without create-only',
        { [GENERATE_ANNOTATION]: '/stringData/password=alphanumeric(16)' },
        `annotation ${GENERATE_ANNOTATION}: needs ${CREATE_ONLY_ANNOTATION}: "true"`,
      ],
      [
        'a generator other than alphanumeric',
        { [CREATE_ONLY_ANNOTATION]: 'true', [GENERATE_ANNOTATION]: '/stringData/password=random(16)' },
        `annotation ${GENERATE_ANNOTATION}: "/stringData/password=random(16)" is not <pointer>=alphanumeric(<length>)`,
      ],
      [
        'a generate item without a pointer',
        { [CREATE_ONLY_ANNOTATION]: 'true', [GENERATE_ANNOTATION]: 'alphanumeric(16)' },
        `annotation ${GENERATE_ANNOTATION}: "alphanumeric(16)" is not <pointer>=alphanumeric(<length>)`,
      ],
      [
        'a generated length out of range',
        {
          [CREATE_ONLY_ANNOTATION]: 'true',
          [GENERATE_ANNOTATION]: '/stringData/password=alphanumeric(1025)',
        },
        `annotation ${GENERATE_ANNOTATION}: generate /stringData/password: length must be an integer from 1 to 1024, not 1025`,
      ],
      [
        'a malformed ignore-fields pointer',
        { [IGNORE_FIELDS_ANNOTATION]: 'spec/replicas' },
        `annotation ${IGNORE_FIELDS_ANNOTATION}: "spec/replicas" is not a JSON pointer to a field: it must start with "/", as in /spec/replicas`,
      ],
    ])('%s', (_, annotations, message) => {
      expect(errorOf(() => policyOf(annotated('Secret', 'db', annotations)))).toBe(`Secret db: ${message}`);
    });
  });
});

describe('checkPolicies', () => {
  const waiting = (name: string, waitFor?: string, kind = 'ConfigMap') =>
    annotated(kind, name, waitFor ? { [WAIT_FOR_ANNOTATION]: waitFor } : {});

  it('passes children without policies, and a valid chain', () => {
    expect(() => checkPolicies([])).not.toThrow();
    expect(() => checkPolicies([waiting('a'), waiting('b')])).not.toThrow();
    expect(() =>
      checkPolicies([
        waiting('a', 'ConfigMap/b,Deployment/c'),
        waiting('b', 'Deployment/c'),
        waiting('c', undefined, 'Deployment'),
      ]),
    ).not.toThrow();
  });

  it('throws for a field path that goes through a list in the rendered child, naming the child', () => {
    const deployment = {
      ...annotated('Deployment', 'web', {
        [IGNORE_FIELDS_ANNOTATION]: '/spec/template/spec/containers/0/image',
      }),
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    expect(errorOf(() => checkPolicies([deployment]))).toBe(
      'Deployment web: /spec/template/spec/containers/0/image goes through a list at "containers": only object fields can be named',
    );
    const secret = {
      ...annotated('Secret', 'db', {
        [CREATE_ONLY_ANNOTATION]: 'true',
        [GENERATE_ANNOTATION]: '/data/0=alphanumeric(4)',
      }),
      data: ['x'],
    };
    expect(errorOf(() => checkPolicies([secret]))).toBe(
      'Secret db: /data/0 goes through a list at "data": only object fields can be named',
    );
  });

  it('refuses a pointer through __proto__ (it would reach Object.prototype)', () => {
    expect(() => parsePointer('/__proto__/polluted')).toThrow('names __proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('throws for a wait for a child that is not rendered', () => {
    expect(errorOf(() => checkPolicies([waiting('a', 'Deployment/missing'), waiting('missing')]))).toBe(
      "ConfigMap/a waits for Deployment/missing, which is not among the resource's children",
    );
  });

  it('throws for a cycle, listing its path', () => {
    const message = errorOf(() =>
      checkPolicies([
        waiting('a', 'ConfigMap/b'),
        waiting('b', 'ConfigMap/c'),
        waiting('c', 'ConfigMap/a'),
        waiting('d'),
      ]),
    );
    expect(message).toBe(
      'children wait for each other in a cycle: ConfigMap/a -> ConfigMap/b -> ConfigMap/c -> ConfigMap/a',
    );
  });

  it('throws for a cycle entered from outside it, listing only the cycle', () => {
    const message = errorOf(() =>
      checkPolicies([
        waiting('entry', 'ConfigMap/b'),
        waiting('b', 'ConfigMap/c'),
        waiting('c', 'ConfigMap/b'),
      ]),
    );
    expect(message).toBe(
      'children wait for each other in a cycle: ConfigMap/b -> ConfigMap/c -> ConfigMap/b',
    );
  });

  it('throws for a hand-written wait for itself', () => {
    expect(errorOf(() => checkPolicies([waiting('a', 'ConfigMap/a')]))).toBe(
      'children wait for each other in a cycle: ConfigMap/a -> ConfigMap/a',
    );
  });
});
