/** `childPolicy`: a construct's declaration of a child's policy, written as annotations on the child. */
import { ApiObject, App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import {
  CREATE_ONLY_ANNOTATION,
  GENERATE_ANNOTATION,
  IGNORE_FIELDS_ANNOTATION,
  REPLACE_ANNOTATION,
  RETAIN_ANNOTATION,
  WAIT_FOR_ANNOTATION,
} from '../../../constructs/kit/child-annotations';
import { childPolicy, type ChildPolicy } from '../../../constructs/kit/child-policy';
import { policyOf } from '../../../constructs/kit/policy-of';
import { configMap, deployment, errorOf, rendered, secret } from './child-policy-fixtures';

const FLUX_SSA = 'kustomize.toolkit.fluxcd.io/ssa';
const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';

describe('childPolicy', () => {
  let chart: Chart;
  beforeEach(() => {
    chart = new Chart(new App(), 'test');
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
      const chart = new Chart(new App(), 'test');
      const child = secret(chart, 'db');
      expect(errorOf(() => childPolicy(child, policy))).toBe(`childPolicy(Secret db): ${message}`);
    });

    it('waiting for itself, as an ApiObject or through its cdk8s-plus construct', () => {
      const chart = new Chart(new App(), 'test');
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
