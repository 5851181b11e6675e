/**
 * Offline admission against the Memcached CRD. Every expected error below is what kube-apiserver v1.36
 * answered to the same object on a server-side dry run (`details.causes`), except where a comment says
 * why ours differs.
 */
import { memcachedKind } from '../../../constructs';
import { validateResource } from '../../../constructs/kit/validate';
import { RULES_NOT_CHECKED, SUBDOMAIN_MSG, errorsOf, resource } from './validate-fixtures';

const { crd: memcachedCrd } = memcachedKind;

describe('Memcached', () => {
  const mc = (spec: unknown, metadata?: unknown) => resource(memcachedCrd, spec, metadata);

  it('admits a valid resource and defaults the image', () => {
    const { object, errors } = validateResource(memcachedCrd, mc({ size: 3 }));
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({ size: 3, image: 'memcached:1.4.36-alpine' });
  });

  it('keeps an image that is set, and defaults one that is null', () => {
    expect(validateResource(memcachedCrd, mc({ size: 1, image: 'memcached:1.6' })).object.spec).toEqual({
      size: 1,
      image: 'memcached:1.6',
    });
    expect(validateResource(memcachedCrd, mc({ size: 1, image: null })).object.spec).toEqual({
      size: 1,
      image: 'memcached:1.4.36-alpine',
    });
  });

  it('rejects a negative size', () => {
    expect(errorsOf(memcachedCrd, mc({ size: -1 }))).toEqual([
      {
        field: 'spec.size',
        message: 'Invalid value: -1: spec.size in body should be greater than or equal to 0',
      },
    ]);
  });

  it('rejects a size that is a string', () => {
    expect(errorsOf(memcachedCrd, mc({ size: 'two' }))).toEqual([
      {
        field: 'spec.size',
        message: 'Invalid value: "string": spec.size in body must be of type integer: "string"',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  it('requires spec.size, and spec itself', () => {
    expect(errorsOf(memcachedCrd, mc({}))).toEqual([
      { field: 'spec.size', message: 'Required value' },
      RULES_NOT_CHECKED,
    ]);
    // A non-nullable field that is null and has no default is dropped, then found missing.
    expect(errorsOf(memcachedCrd, mc({ size: null }))).toEqual([
      { field: 'spec.size', message: 'Required value' },
      RULES_NOT_CHECKED,
    ]);
    const noSpec = mc({});
    delete noSpec.spec;
    expect(errorsOf(memcachedCrd, noSpec)).toEqual([
      { field: 'spec', message: 'Required value' },
      RULES_NOT_CHECKED,
    ]);
  });

  it('reports an unknown field the way strict field validation does, and prunes it', () => {
    const { object, errors } = validateResource(memcachedCrd, mc({ size: 1, replicas: 3 }));
    expect(errors).toEqual([{ field: 'spec.replicas', message: 'unknown field "spec.replicas"' }]);
    expect(object.spec).toEqual({ size: 1, image: 'memcached:1.4.36-alpine' });
  });

  it('rejects a size outside int32 and an empty image', () => {
    // The API server reports the int32 overflow at <nil>; we name the field (same message).
    expect(errorsOf(memcachedCrd, mc({ size: 2 ** 31, image: '' }))).toEqual([
      {
        field: 'spec.size',
        message: 'Invalid value: "": Checked value must be of type integer with format int32 in spec.size',
      },
      {
        field: 'spec.image',
        message: 'Invalid value: "": spec.image in body should be at least 1 chars long',
      },
    ]);
  });

  it('refuses an image with whitespace, which no pod could run, naming spec.image', () => {
    expect(errorsOf(memcachedCrd, mc({ size: 1, image: ' memcached:1.4.36-alpine' }))).toEqual([
      {
        field: 'spec.image',
        message: `Invalid value: " memcached:1.4.36-alpine": spec.image in body should match '^\\S+$'`,
      },
    ]);
  });

  it('validates metadata.name as a DNS subdomain and requires it', () => {
    expect(errorsOf(memcachedCrd, mc({ size: 1 }, { name: 'Bad_Name' }))).toEqual([
      { field: 'metadata.name', message: `Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}` },
    ]);
    expect(errorsOf(memcachedCrd, mc({ size: 1 }, {}))).toEqual([
      { field: 'metadata.name', message: 'Required value: name or generateName is required' },
      RULES_NOT_CHECKED,
    ]);
  });

  it('drops status, as creating through the main resource does with the status subresource on', () => {
    const { object, errors } = validateResource(memcachedCrd, {
      ...mc({ size: 1 }),
      status: { nodes: ['a'] },
    });
    expect(errors).toEqual([]);
    expect(object).not.toHaveProperty('status');
  });
});
