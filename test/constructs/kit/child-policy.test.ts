import { ApiObject, App, Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  CREATE_ONLY_ANNOTATION,
  GENERATE_ANNOTATION,
  IGNORE_FIELDS_ANNOTATION,
  OWNER_UID_ANNOTATION,
  RETAIN_ANNOTATION,
  REPLACE_ANNOTATION,
  WAIT_FOR_ANNOTATION,
  checkPolicies,
  childPolicy,
  onlyFields,
  parsePointer,
  policyOf,
  randomAlphanumeric,
  withGeneratedValues,
  withoutFields,
  type ChildPolicy,
} from '../../../constructs/kit/child-policy';
import { CONFIG_MAP, DEPLOYMENT } from '../../../constructs/kit/api-kind';
import { defineKind } from '../../../constructs/kit/define-kind';
import type { CustomResource, Manifest, ResourceProps } from '../../../constructs/kit/resource';
import { synthesize } from '../../../constructs/kit/synthesize';
import { policyDemoKind, type PolicyDemoSpec } from '../../fixtures/kinds/policy-demo';

const FLUX_SSA = 'kustomize.toolkit.fluxcd.io/ssa';
const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';

/** The message `fn` throws; fails the test when it throws nothing. */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error, got none');
}

const configMap = (scope: Construct, name: string) =>
  new ApiObject(scope, name, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

const deployment = (scope: Construct, name: string) =>
  new ApiObject(scope, name, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 2 },
  });

const secret = (scope: Construct, name: string) =>
  new ApiObject(scope, name, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque' });

/** The manifest `kind`/`name` of the chart, as `chart.toJson()` renders it. */
function rendered(chart: Chart, kind: string, name: string): Manifest {
  const found = (chart.toJson() as Manifest[]).find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`${kind} ${name} is not rendered`);
  return found;
}

/** A manifest with `annotations`, as a construct author might write them by hand. */
const annotated = (kind: string, name: string, annotations: Record<string, string>): Manifest => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  metadata: { name, annotations },
});

describe('childPolicy', () => {
  let chart: Chart;
  beforeEach(() => {
    chart = Testing.chart();
  });

  describe('writes the policy as annotations, ours and Flux’s', () => {
    it('create-only: reconstruct.dev/create-only and Flux’s ssa: IfNotPresent', () => {
      childPolicy(configMap(chart, 'settings'), { createOnly: true });
      expect(rendered(chart, 'ConfigMap', 'settings').metadata.annotations).toEqual({
        [CREATE_ONLY_ANNOTATION]: 'true',
        [FLUX_SSA]: 'IfNotPresent',
      });
    });

    it('retain: reconstruct.dev/retain and Flux’s prune: disabled', () => {
      childPolicy(configMap(chart, 'settings'), { retain: true });
      expect(rendered(chart, 'ConfigMap', 'settings').metadata.annotations).toEqual({
        [RETAIN_ANNOTATION]: 'true',
        [FLUX_PRUNE]: 'disabled',
      });
    });

    it('on a cdk8s-plus construct, on the ApiObject it renders', () => {
      const cm = new kplus.ConfigMap(chart, 'plus', {
        metadata: { name: 'plus-settings' },
        data: { a: 'b' },
      });
      childPolicy(cm, { retain: true });
      const manifest = rendered(chart, 'ConfigMap', 'plus-settings');
      expect(manifest.metadata.annotations).toEqual({
        [RETAIN_ANNOTATION]: 'true',
        [FLUX_PRUNE]: 'disabled',
      });
      expect(manifest.data).toEqual({ a: 'b' });
    });

    it('generate: <pointer>=alphanumeric(<length>), and implies create-only; no value in the manifest', () => {
      childPolicy(secret(chart, 'db'), { generate: { '/stringData/password': { length: 16 } } });
      const manifest = rendered(chart, 'Secret', 'db');
      expect(manifest.metadata.annotations).toEqual({
        [GENERATE_ANNOTATION]: '/stringData/password=alphanumeric(16)',
        [CREATE_ONLY_ANNOTATION]: 'true',
        [FLUX_SSA]: 'IfNotPresent',
      });
      expect(manifest.stringData).toBeUndefined();
    });

    it('generate: several values, comma-separated, at the lengths 1 and 1024', () => {
      childPolicy(secret(chart, 'db'), {
        createOnly: true,
        generate: { '/stringData/password': { length: 1024 }, '/stringData/pin': { length: 1 } },
      });
      expect(rendered(chart, 'Secret', 'db').metadata.annotations?.[GENERATE_ANNOTATION]).toBe(
        '/stringData/password=alphanumeric(1024),/stringData/pin=alphanumeric(1)',
      );
    });

    it('ignoreFields: the pointers, comma-separated, escapes kept; nothing else', () => {
      childPolicy(deployment(chart, 'web'), { ignoreFields: ['/spec/replicas', '/metadata/labels/a~1b'] });
      expect(rendered(chart, 'Deployment', 'web').metadata.annotations).toEqual({
        [IGNORE_FIELDS_ANNOTATION]: '/spec/replicas,/metadata/labels/a~1b',
      });
    });

    it('waitFor: Kind/name of each sibling, an ApiObject or a cdk8s-plus construct', () => {
      const db = deployment(chart, 'db');
      const plus = new kplus.ConfigMap(chart, 'plus', { metadata: { name: 'plus-settings' } });
      childPolicy(configMap(chart, 'after'), { waitFor: [db, plus] });
      expect(rendered(chart, 'ConfigMap', 'after').metadata.annotations).toEqual({
        [WAIT_FOR_ANNOTATION]: 'Deployment/db,ConfigMap/plus-settings',
      });
    });

    it('an empty policy, or createOnly: false alone, writes nothing', () => {
      childPolicy(configMap(chart, 'a'), {});
      childPolicy(configMap(chart, 'b'), { createOnly: false, retain: false, ignoreFields: [], waitFor: [] });
      expect(rendered(chart, 'ConfigMap', 'a').metadata.annotations).toBeUndefined();
      expect(rendered(chart, 'ConfigMap', 'b').metadata.annotations).toBeUndefined();
    });

    it("replace: ours and Flux's force", () => {
      childPolicy(configMap(chart, 'job'), { replace: true });
      expect(rendered(chart, 'ConfigMap', 'job').metadata.annotations).toEqual({
        [REPLACE_ANNOTATION]: 'true',
        'kustomize.toolkit.fluxcd.io/force': 'Enabled',
      });
    });

    it('calls add up, and a later waitFor replaces an earlier one', () => {
      const child = configMap(chart, 'after');
      const first = deployment(chart, 'first');
      const second = deployment(chart, 'second');
      childPolicy(child, { createOnly: true, waitFor: [first] });
      childPolicy(child, { retain: true, waitFor: [second] });
      expect(rendered(chart, 'ConfigMap', 'after').metadata.annotations).toEqual({
        [CREATE_ONLY_ANNOTATION]: 'true',
        [FLUX_SSA]: 'IfNotPresent',
        [RETAIN_ANNOTATION]: 'true',
        [FLUX_PRUNE]: 'disabled',
        [WAIT_FOR_ANNOTATION]: 'Deployment/second',
      });
    });

    it('what it writes, policyOf reads back', () => {
      const db = deployment(chart, 'db');
      childPolicy(secret(chart, 'creds'), {
        retain: true,
        generate: { '/stringData/pass~1word': { length: 12 } },
        ignoreFields: ['/metadata/labels/x~0y'],
        waitFor: [db],
        replace: true,
      });
      expect(policyOf(rendered(chart, 'Secret', 'creds'))).toEqual({
        createOnly: true,
        retain: true,
        replace: true,
        ignoreFields: [['metadata', 'labels', 'x~y']],
        waitFor: [{ kind: 'Deployment', name: 'db' }],
        generate: [{ path: ['stringData', 'pass/word'], length: 12 }],
      });
    });
  });

  describe('throws for a policy that cannot work, naming the child', () => {
    const generate = (length: number): ChildPolicy => ({ generate: { '/stringData/password': { length } } });
    it.each<[string, ChildPolicy, string]>([
      [
        'a pointer without its leading slash',
        { ignoreFields: ['spec/replicas'] },
        '"spec/replicas" is not a JSON pointer to a field: it must start with "/", as in /spec/replicas',
      ],
      [
        'the pointer to the whole object',
        { ignoreFields: ['/'] },
        '"/" is not a JSON pointer to a field: it must start with "/", as in /spec/replicas',
      ],
      [
        'a ~ escape other than ~0 and ~1',
        { ignoreFields: ['/spec/a~2b'] },
        '"/spec/a~2b" is not a valid JSON pointer',
      ],
      ['a ~ at the end', { ignoreFields: ['/spec/a~'] }, '"/spec/a~" is not a valid JSON pointer'],
      [
        'a pointer with a comma',
        { ignoreFields: ['/data/a,b'] },
        'ignoreFields /data/a,b: "," cannot be in the pointer',
      ],
      [
        'a malformed generate pointer',
        { generate: { password: { length: 16 } } },
        '"password" is not a JSON pointer to a field: it must start with "/", as in /spec/replicas',
      ],
      [
        'generate with createOnly: false',
        { createOnly: false, generate: { '/stringData/password': { length: 16 } } },
        'generate needs createOnly: a value generated again on every apply would change each time',
      ],
      [
        'length 0',
        generate(0),
        'generate /stringData/password: length must be an integer from 1 to 1024, not 0',
      ],
      [
        'length 1025',
        generate(1025),
        'generate /stringData/password: length must be an integer from 1 to 1024, not 1025',
      ],
      [
        'length 1.5',
        generate(1.5),
        'generate /stringData/password: length must be an integer from 1 to 1024, not 1.5',
      ],
      [
        'a generate pointer with =',
        { generate: { '/stringData/a=b': { length: 4 } } },
        'generate /stringData/a=b: "," and "=" cannot be in the pointer',
      ],
    ])('%s', (_, policy, message) => {
      const chart = Testing.chart();
      const child = secret(chart, 'db');
      expect(errorOf(() => childPolicy(child, policy))).toBe(`childPolicy(Secret db): ${message}`);
    });

    it('waiting for itself, as an ApiObject or through its cdk8s-plus construct', () => {
      const chart = Testing.chart();
      const child = configMap(chart, 'self');
      expect(errorOf(() => childPolicy(child, { waitFor: [child] }))).toBe(
        'childPolicy(ConfigMap self): a child cannot wait for itself',
      );
      const plus = new kplus.ConfigMap(chart, 'plus', { metadata: { name: 'plus-settings' } });
      expect(errorOf(() => childPolicy(plus, { waitFor: [ApiObject.of(plus)] }))).toBe(
        'childPolicy(ConfigMap plus-settings): a child cannot wait for itself',
      );
    });
  });
});

describe('policyOf', () => {
  it('is no policy for a child without annotations or without ours', () => {
    const none = {
      createOnly: false,
      retain: false,
      replace: false,
      ignoreFields: [],
      waitFor: [],
      generate: [],
    };
    expect(policyOf({ kind: 'ConfigMap', metadata: { name: 'a' } })).toEqual(none);
    expect(policyOf(annotated('ConfigMap', 'a', { 'example.com/other': 'true' }))).toEqual(none);
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

describe('parsePointer', () => {
  it.each<[string, string[]]>([
    ['/spec/replicas', ['spec', 'replicas']],
    ['/metadata/labels/a~1b', ['metadata', 'labels', 'a/b']],
    ['/a~0b', ['a~b']],
    // ~01 is "~1" (RFC 6901 decodes ~1 before ~0), not "/".
    ['/~01', ['~1']],
    ['/0', ['0']],
  ])('%s', (pointer, segments) => {
    expect(parsePointer(pointer)).toEqual(segments);
  });

  it.each(['', 'spec', '/', '/a//b', '/a/', '/a~2', '/a~'])('refuses %j', (pointer) => {
    expect(() => parsePointer(pointer)).toThrow(`"${pointer}"`);
  });
});

/** A Deployment with a namespace, labels and a list of containers. */
const webDeployment = (): Manifest => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels: { 'a/b': 'x', app: 'web' }, annotations: { n: 'o' } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: { spec: { containers: [{ name: 'main', image: 'nginx' }] } },
  },
});

describe('withoutFields', () => {
  it('removes the fields, leaving the input untouched', () => {
    const input = webDeployment();
    const out = withoutFields(input, [
      ['spec', 'replicas'],
      ['metadata', 'labels', 'a/b'],
    ]);
    expect(out).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' }, annotations: { n: 'o' } },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { spec: { containers: [{ name: 'main', image: 'nginx' }] } },
      },
    });
    expect(input).toEqual(webDeployment());
  });

  it('leaves the child as it is for fields it does not have', () => {
    expect(
      withoutFields(webDeployment(), [
        ['spec', 'nothing', 'here'],
        ['status', 'x'],
      ]),
    ).toEqual(webDeployment());
    const input = webDeployment();
    expect(withoutFields(input, [])).toBe(input);
  });

  it.each([
    [['spec', 'template', 'spec', 'containers', '0', 'image'], '/spec/template/spec/containers/0/image'],
    [['spec', 'template', 'spec', 'containers', '0'], '/spec/template/spec/containers/0'],
  ])('throws for a path crossing a list: %j', (path, pointer) => {
    expect(() => withoutFields(webDeployment(), [path])).toThrow(
      `${pointer} goes through a list at "containers": only object fields can be named`,
    );
  });
});

describe('onlyFields', () => {
  it('keeps apiVersion, kind, name, namespace and the fields', () => {
    expect(
      onlyFields(webDeployment(), [
        ['spec', 'replicas'],
        ['metadata', 'labels', 'a/b'],
        ['spec', 'paused'],
      ]),
    ).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', labels: { 'a/b': 'x' } },
      spec: { replicas: 3 },
    });
  });

  it('has no namespace key for a child without one, and copies the values', () => {
    const input = webDeployment();
    delete input.metadata.namespace;
    const out = onlyFields(input, [['spec', 'selector']]);
    expect(out).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } } },
    });
    (out?.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels.app = 'changed';
    expect(input.spec).toMatchObject({ selector: { matchLabels: { app: 'web' } } });
  });

  it('is undefined when none of the fields is set', () => {
    expect(onlyFields(webDeployment(), [['spec', 'paused']])).toBeUndefined();
    expect(onlyFields(webDeployment(), [])).toBeUndefined();
  });
});

describe('withGeneratedValues', () => {
  const secretWith = (generate: string, extra: object = {}): Manifest => ({
    ...annotated('Secret', 'db', { [CREATE_ONLY_ANNOTATION]: 'true', [GENERATE_ANNOTATION]: generate }),
    type: 'Opaque',
    ...extra,
  });
  const stringData = (m: Manifest) => m.stringData as Record<string, string>;

  it('fills /stringData/password with 16 characters of [A-Za-z0-9], leaving the input untouched', () => {
    const input = secretWith('/stringData/password=alphanumeric(16)');
    const before = structuredClone(input);
    const out = withGeneratedValues(input);
    expect(stringData(out).password).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(input).toEqual(before);
    expect(out).toEqual({ ...before, stringData: { password: stringData(out).password } });
  });

  it('gives a fresh value at each call', () => {
    const input = secretWith('/stringData/password=alphanumeric(16)');
    expect(stringData(withGeneratedValues(input)).password).not.toBe(
      stringData(withGeneratedValues(input)).password,
    );
  });

  it('keeps the other values and fills every generated one', () => {
    const out = withGeneratedValues(
      secretWith('/stringData/password=alphanumeric(8),/stringData/pin=alphanumeric(4)', {
        stringData: { user: 'admin' },
      }),
    );
    expect(stringData(out)).toEqual({
      user: 'admin',
      password: expect.stringMatching(/^[A-Za-z0-9]{8}$/) as unknown,
      pin: expect.stringMatching(/^[A-Za-z0-9]{4}$/) as unknown,
    });
  });

  it('returns a child without generated values as it is', () => {
    const child = webDeployment();
    expect(withGeneratedValues(child)).toBe(child);
  });
});

describe('randomAlphanumeric', () => {
  it.each([0, 1, 16, 1024])('length %i: that many characters of [A-Za-z0-9]', (length) => {
    expect(randomAlphanumeric(length)).toMatch(new RegExp(`^[A-Za-z0-9]{${length}}$`));
  });

  it('uses every one of the 62 characters', () => {
    expect(new Set(randomAlphanumeric(20_000)).size).toBe(62);
  });
});

describe('synthesize with child policies', () => {
  const UID = '0b9d7e4c-5a2f-4c1e-9f3a-7d6b5c4e3a21';
  const demo = (spec: PolicyDemoSpec): CustomResource<PolicyDemoSpec> => ({
    apiVersion: 'policies.example.com/v1',
    kind: 'PolicyDemo',
    metadata: { name: 'demo', namespace: 'ns' },
    spec,
  });
  const find = (children: Manifest[], kind: string, name: string) => {
    const child = children.find((c) => c.kind === kind && c.metadata.name === name);
    if (!child) throw new Error(`no ${kind} ${name}`);
    return child;
  };

  it('gives a retained child the owner uid as an annotation instead of an ownerReference', () => {
    const children = synthesize(policyDemoKind, demo({ data: true }), { owner: { uid: UID } });
    const retained = find(children, 'ConfigMap', 'demo-data');
    expect(retained.metadata.ownerReferences).toBeUndefined();
    expect(retained.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBe(UID);
    expect(retained.metadata.annotations?.[RETAIN_ANNOTATION]).toBe('true');

    const sibling = find(children, 'ConfigMap', 'demo-scratch');
    expect(sibling.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'policies.example.com/v1',
        kind: 'PolicyDemo',
        name: 'demo',
        uid: UID,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(sibling.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBeUndefined();
  });

  it('offline (no owner), gives the retained child neither', () => {
    const retained = find(synthesize(policyDemoKind, demo({ data: true })), 'ConfigMap', 'demo-data');
    expect(retained.metadata.ownerReferences).toBeUndefined();
    expect(retained.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBeUndefined();
  });

  /** A kind whose construct makes its ConfigMap wait for `target(scope, name)`. */
  const waitingKind = (target: (scope: Construct, name: string, config: ApiObject) => Construct) => {
    class Waiting extends Construct {
      constructor(scope: Construct, id: string, { name }: ResourceProps<object>) {
        super(scope, id);
        const config = configMap(this, `${name}-config`);
        childPolicy(config, { waitFor: [target(this, name, config)] });
      }
    }
    return defineKind<object>({
      apiVersion: 'waits.example.com/v1',
      kind: 'Waiting',
      plural: 'waitings',
      schema: { description: 'Waits.', spec: { type: 'object', properties: {} } },
      construct: Waiting,
      children: [CONFIG_MAP, DEPLOYMENT],
    });
  };
  const waiting: CustomResource<object> = {
    apiVersion: 'waits.example.com/v1',
    kind: 'Waiting',
    metadata: { name: 'w', namespace: 'ns' },
    spec: {},
  };

  it('renders a child that waits for a rendered sibling', () => {
    const kind = waitingKind((scope, name) => deployment(scope, `${name}-db`));
    const config = find(synthesize(kind, waiting), 'ConfigMap', 'w-config');
    expect(config.metadata.annotations?.[WAIT_FOR_ANNOTATION]).toBe('Deployment/w-db');
  });

  it('throws for a child that waits for a sibling that is not rendered', () => {
    // The Deployment belongs to another chart: the construct waits for something it does not render.
    const kind = waitingKind((_, name) => deployment(new Chart(new App(), 'elsewhere'), `${name}-db`));
    expect(errorOf(() => synthesize(kind, waiting))).toBe(
      "ConfigMap/w-config waits for Deployment/w-db, which is not among the resource's children",
    );
  });

  it('throws for siblings that wait for each other', () => {
    const kind = waitingKind((scope, name, config) => {
      const db = deployment(scope, `${name}-db`);
      childPolicy(db, { waitFor: [config] });
      return db;
    });
    expect(errorOf(() => synthesize(kind, waiting))).toBe(
      'children wait for each other in a cycle: ConfigMap/w-config -> Deployment/w-db -> ConfigMap/w-config',
    );
  });
});
