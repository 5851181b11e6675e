/**
 * Names longer than the API server takes once composed: a resource name the CRD admits must not make a
 * child the API server refuses. Refused at synthesis (offline and in the controller) naming the field,
 * and at admission by `maxNameLength`.
 */
import { synthesize, type Manifest } from '../../../constructs/kit';
import { checkChildNames } from '../../../constructs/kit/child-names';
import { renderResources } from '../../../synth/render';
import { exporterKind, exporter as resource } from '../../fixtures/kinds/exporter';
import { specError } from '../manifests';

describe('a child name the API server would refuse', () => {
  it('is refused at synthesis, naming metadata.name and the child, with its length and the limit', () => {
    const name = 'e'.repeat(50);
    const error = specError(() => synthesize(exporterKind(), resource(name)));
    expect(error.field).toBe('metadata.name');
    expect(error.detail).toBe(
      `"${name}" makes Service name "${name}-metrics-exporter" 67 characters; the API server accepts at most 63`,
    );
  });

  it('takes every name the API server takes: a Service of 63, a dotted ConfigMap, a Role with a colon', () => {
    const children = synthesize(exporterKind(), resource('e'.repeat(46)));
    expect(children.map((c) => c.metadata.name.length)).toEqual([63, 62, 55]);
  });

  it('says what a Service name must look like, and names spec when the name does not come from metadata.name', () => {
    const error = specError(() => synthesize(exporterKind(), resource('web', { serviceName: '9metrics' })));
    expect([error.field, error.detail]).toEqual([
      'spec',
      'the spec makes Service name "9metrics" not accepted: the API server accepts a DNS-1035 label: ' +
        'lower-case letters, digits and "-", starting with a letter',
    ]);
  });

  it('refuses a label value over 63 characters, naming the label and the child', () => {
    const owner = `web-${'o'.repeat(60)}`;
    const error = specError(() => synthesize(exporterKind(), resource('web', { owner })));
    expect(error.field).toBe('metadata.name');
    expect(error.detail).toBe(
      `"web" makes label example.com/owner of ConfigMap "web.exporter-config" "${owner}" 64 characters; ` +
        'the API server accepts at most 63',
    );
  });

  it('is a problem of the resource offline, and the others render', () => {
    const { problems, rendered } = renderResources([resource('e'.repeat(50)), resource('web')], {
      kinds: [exporterKind()],
    });
    expect(rendered.map((r) => r.resource.metadata.name)).toEqual(['web']);
    expect(problems).toEqual([
      expect.objectContaining({
        field: 'metadata.name',
        message: expect.stringContaining('makes Service name') as string,
      }),
    ]);
  });
});

describe('a name that becomes a label value', () => {
  const child = (apiVersion: string, kind: string, name: string): Manifest => ({
    apiVersion,
    kind,
    metadata: { name },
  });
  const detail = (children: Manifest[]) =>
    specError(() => checkChildNames({ metadata: { name: 'web' } }, children)).detail;

  it("refuses a Job over 63 characters: its name is its pods' job-name label", () => {
    expect(() =>
      checkChildNames({ metadata: { name: 'web' } }, [child('batch/v1', 'Job', 'j'.repeat(63))]),
    ).not.toThrow();
    expect(detail([child('batch/v1', 'Job', `${'j'.repeat(60)}-web`)])).toBe(
      `"web" makes Job name "${'j'.repeat(60)}-web" 64 characters; the API server accepts at most 63`,
    );
  });

  it('takes the names the API server takes of a StatefulSet (a DNS label) and a PodDisruptionBudget (a path segment)', () => {
    expect(detail([child('apps/v1', 'StatefulSet', 's'.repeat(64))])).toBe(
      `the spec makes StatefulSet name "${'s'.repeat(64)}" 64 characters; the API server accepts at most 63`,
    );
    expect(() =>
      checkChildNames({ metadata: { name: 'web' } }, [
        child('policy/v1', 'PodDisruptionBudget', `A_b:${'p'.repeat(300)}`),
      ]),
    ).not.toThrow();
  });

  it('refuses a CronJob over 52 characters: its Jobs are named after it', () => {
    expect(() =>
      checkChildNames({ metadata: { name: 'web' } }, [child('batch/v1', 'CronJob', 'c'.repeat(52))]),
    ).not.toThrow();
    expect(detail([child('batch/v1', 'CronJob', 'c'.repeat(53))])).toBe(
      `the spec makes CronJob name "${'c'.repeat(53)}" 53 characters; the API server accepts at most 52`,
    );
  });
});

describe('maxNameLength', () => {
  it('puts a rule on the CRD that the API server reports on metadata.name', () => {
    const rules = exporterKind(46).crd.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'];
    expect(rules?.[0]).toEqual({
      rule: 'self.metadata.name.size() <= 46',
      fieldPath: '.metadata.name',
      message: 'must be at most 46 characters: the names of its children are made from it',
    });
  });

  it('refuses a longer name offline, as the API server does at admission, before synthesis', () => {
    const { problems } = renderResources([resource('e'.repeat(47))], { kinds: [exporterKind(46)] });
    expect(problems.map((p) => `${p.field ?? ''}: ${p.message}`)).toEqual([
      'metadata.name: Invalid value: must be at most 46 characters: the names of its children are made from it',
    ]);
    expect(specError(() => synthesize(exporterKind(46), resource('e'.repeat(47)))).field).toBe(
      'metadata.name',
    );
  });

  it("names a field in every offline problem: not the API server's note that the rules were skipped", () => {
    // A type error skips the CEL rules, name length included; the API server adds a note on no field.
    const bad = { ...resource('e'.repeat(47)), spec: { owner: 7 } };
    const { problems } = renderResources([bad], { kinds: [exporterKind(46)] });
    expect(problems.map((p) => `${p.field ?? ''}: ${p.message}`)).toEqual([
      'spec.owner: Invalid value: "integer": spec.owner in body must be of type string: "integer"',
    ]);
  });

  it('must be from 1 to 63', () => {
    expect(() => exporterKind(64)).toThrow('maxNameLength 64 must be an integer from 1 to 63');
    expect(() => exporterKind(2.5)).toThrow('maxNameLength 2.5 must be an integer from 1 to 63');
  });
});
