/**
 * Offline admission against the Balancer CRD. Every expected error below is what kube-apiserver v1.36
 * answered to the same object on a server-side dry run (`details.causes`), except where a comment says
 * why ours differs.
 */
import { balancerKind } from '../../../constructs';
import { validateResource } from '../../../constructs/kit/validate';
import { RULES_NOT_CHECKED, errorsOf, resource, type Obj } from './validate-fixtures';

const { crd: balancerCrd } = balancerKind;

describe('Balancer', () => {
  const bl = (spec: Obj, metadata?: unknown) =>
    resource(
      balancerCrd,
      { ports: [{ name: 'http', port: 80 }], backends: [{ name: 'v1', weight: 1 }], ...spec },
      metadata,
    );
  const backends = (...names: string[]) => names.map((name) => ({ name, weight: 1 }));

  it('admits a valid balancer and defaults every port protocol, the image and the replicas', () => {
    const { object, errors } = validateResource(
      balancerCrd,
      bl({
        ports: [
          { name: 'http', port: 80, targetPort: 'web' },
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 },
        ],
        selector: { app: 'test' },
        backends: [{ name: 'v1', weight: 40, selector: { version: 'v1' } }],
      }),
    );
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({
      ports: [
        { name: 'http', port: 80, targetPort: 'web', protocol: 'TCP' },
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 },
      ],
      selector: { app: 'test' },
      backends: [{ name: 'v1', weight: 40, selector: { version: 'v1' } }],
      image: 'nginx:1.15.9',
      replicas: 1,
    });
  });

  it('requires backends, and rejects an empty list', () => {
    const noBackends = bl({});
    delete (noBackends.spec as Obj).backends;
    expect(errorsOf(balancerCrd, noBackends)).toEqual([
      { field: 'spec.backends', message: 'Required value' },
      RULES_NOT_CHECKED,
    ]);
    expect(errorsOf(balancerCrd, bl({ backends: [] }))).toEqual([
      {
        field: 'spec.backends',
        message: 'Invalid value: 0: spec.backends in body should have at least 1 items',
      },
    ]);
  });

  it('rejects a backend weight of 0', () => {
    expect(errorsOf(balancerCrd, bl({ backends: [{ name: 'a', weight: 0 }] }))).toEqual([
      {
        field: 'spec.backends[0].weight',
        message: 'Invalid value: 0: spec.backends[0].weight in body should be greater than or equal to 1',
      },
    ]);
  });

  it('rejects duplicate backend names and duplicate port names', () => {
    expect(errorsOf(balancerCrd, bl({ backends: backends('a', 'a') }))).toEqual([
      { field: 'spec.backends[1]', message: 'Duplicate value: {"name":"a"}' },
    ]);
    const ports = [
      { name: 'http', port: 80 },
      { name: 'http', port: 81 },
    ];
    expect(errorsOf(balancerCrd, bl({ ports }))).toEqual([
      { field: 'spec.ports[1]', message: 'Duplicate value: {"name":"http"}' },
    ]);
  });

  it('rejects protocol SCTP', () => {
    expect(errorsOf(balancerCrd, bl({ ports: [{ name: 'http', port: 80, protocol: 'SCTP' }] }))).toEqual([
      {
        field: 'spec.ports[0].protocol',
        message: 'Unsupported value: "SCTP": supported values: "TCP", "UDP"',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  it('rejects a name that, with a backend name, is too long for a Service name (root rule, fieldPath)', () => {
    const message =
      'Invalid value: metadata.name and a backend name together must be at most 54 characters: <name>-<backend>-backend is a Service name';
    expect(
      errorsOf(balancerCrd, bl({ backends: backends('x'.repeat(40)) }, { name: 'y'.repeat(15) })),
    ).toEqual([{ field: 'spec.backends', message }]);
    expect(
      errorsOf(balancerCrd, bl({ backends: backends('x'.repeat(40)) }, { name: 'y'.repeat(14) })),
    ).toEqual([]);
  });

  it('runs the CEL rules when the only schema errors do not block them', () => {
    const ports = [
      { name: 'a', port: 1 },
      { name: 'a', port: 70000 },
      { name: '80', port: 2 },
    ];
    expect(errorsOf(balancerCrd, bl({ ports, backends: [{ name: 'b', weight: 0 }] }))).toEqual([
      {
        field: 'spec.ports[1].port',
        message: 'Invalid value: 70000: spec.ports[1].port in body should be less than or equal to 65535',
      },
      {
        field: 'spec.backends[0].weight',
        message: 'Invalid value: 0: spec.backends[0].weight in body should be greater than or equal to 1',
      },
      { field: 'spec.ports[1]', message: 'Duplicate value: {"name":"a"}' },
      {
        field: 'spec.ports[2].name',
        message:
          'Invalid value: "80": must contain at least one letter (a-z) and no "--" (an IANA service name)',
      },
    ]);
  });

  it('checks int-or-string, maxItems and maxLength', () => {
    const many = Array.from({ length: 33 }, (_, i) => ({ name: `p${i}`, port: 80 + i }));
    expect(errorsOf(balancerCrd, bl({ ports: many }))).toEqual([
      { field: 'spec.ports', message: 'Too many: 33: must have at most 32 items' },
      RULES_NOT_CHECKED,
    ]);
    expect(
      errorsOf(balancerCrd, bl({ ports: [{ name: 'a'.repeat(16), port: 80, targetPort: true }] })),
    ).toEqual([
      { field: 'spec.ports[0].name', message: 'Too long: may not be more than 15 bytes' },
      {
        field: 'spec.ports[0].targetPort',
        message:
          'Invalid value: "boolean": spec.ports[0].targetPort in body must be of type integer,string: "boolean"',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  it('blocks the root rule when metadata.name is missing, as the API server does', () => {
    expect(errorsOf(balancerCrd, bl({}, {}))).toEqual([
      { field: 'metadata.name', message: 'Required value: name or generateName is required' },
      RULES_NOT_CHECKED,
    ]);
  });
});
