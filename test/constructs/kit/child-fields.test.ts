/** A child's fields by its policy: generated values filled in, fields another actor owns left out or handed over. */
import { CREATE_ONLY_ANNOTATION, GENERATE_ANNOTATION } from '../../../constructs/kit/child-annotations';
import {
  onlyFields,
  randomAlphanumeric,
  withGeneratedValues,
  withoutFields,
} from '../../../constructs/kit/child-fields';
import type { Manifest } from '../../../constructs/kit/resource';
import { annotated } from './child-policy-fixtures';

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
