/**
 * Offline admission against the four CRDs. Every expected error below is what kube-apiserver v1.36
 * answered to the same object on a server-side dry run (`details.causes`), except where a comment says
 * why ours differs.
 */
import {
  balancerKind,
  builtinKinds,
  databaseManagerKind,
  memcachedKind,
  nodePoolKind,
  type CustomResourceDefinition,
  type JSONSchemaProps,
} from '../../../constructs';
import { ruleSyntaxError } from '../../../constructs/kit/validate/cel';
import { validateResource } from '../../../constructs/kit/validate';
import type { FieldError } from '../../../constructs/kit/validate';

type Obj = Record<string, unknown>;

const { crd: memcachedCrd } = memcachedKind;
const { crd: nodePoolCrd } = nodePoolKind;
const { crd: databaseManagerCrd } = databaseManagerKind;
const { crd: balancerCrd } = balancerKind;
const crds = builtinKinds.map((k) => k.crd);

function resource(crd: CustomResourceDefinition, spec: unknown, metadata: unknown = { name: 'sample' }): Obj {
  const version = crd.spec.versions[0]?.name ?? '';
  return { apiVersion: `${crd.spec.group}/${version}`, kind: crd.spec.names.kind, metadata, spec };
}

function errorsOf(crd: CustomResourceDefinition, obj: unknown): FieldError[] {
  return validateResource(crd, obj).errors;
}

/** What the API server adds when an error stops it from running the CEL rules. */
const RULES_NOT_CHECKED: FieldError = {
  field: '',
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

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

describe('NodePool', () => {
  const np = (spec: unknown, metadata?: unknown) => resource(nodePoolCrd, spec, metadata);
  const reservedLabels = (key: string) => ({
    field: 'spec.labels',
    message: `Invalid value: label keys under kubernetes.io or k8s.io are reserved for Kubernetes: ${key}`,
  });

  it('admits a valid pool and defaults the handler and taint values', () => {
    const { object, errors } = validateResource(
      nodePoolCrd,
      np({ labels: { 'node-pool.lailin.xyz/a': '1' }, taints: [{ key: 'dedicated', effect: 'NoSchedule' }] }),
    );
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({
      labels: { 'node-pool.lailin.xyz/a': '1' },
      taints: [{ key: 'dedicated', effect: 'NoSchedule', value: '' }],
      handler: 'runc',
    });
  });

  it('drops metadata.namespace silently, as the API server does for a cluster-scoped kind', () => {
    const { object, errors } = validateResource(nodePoolCrd, np({}, { name: 'p', namespace: 'default' }));
    expect(errors).toEqual([]);
    expect(object.metadata).toEqual({ name: 'p' });
  });

  it('rejects label keys under kubernetes.io and k8s.io', () => {
    expect(errorsOf(nodePoolCrd, np({ labels: { 'kubernetes.io/foo': 'x' } }))).toEqual([
      reservedLabels('kubernetes.io/foo'),
    ]);
    expect(errorsOf(nodePoolCrd, np({ labels: { 'node.k8s.io/x': 'x' } }))).toEqual([
      reservedLabels('node.k8s.io/x'),
    ]);
  });

  it('rejects taint keys under kubernetes.io', () => {
    expect(
      errorsOf(nodePoolCrd, np({ taints: [{ key: 'node.kubernetes.io/foo', effect: 'NoSchedule' }] })),
    ).toEqual([
      {
        field: 'spec.taints[0].key',
        message:
          'Invalid value: "node.kubernetes.io/foo": taint keys under kubernetes.io or k8s.io are reserved for Kubernetes',
      },
    ]);
  });

  it('rejects an unknown taint effect, and then skips the CEL rules as the API server does', () => {
    expect(errorsOf(nodePoolCrd, np({ taints: [{ key: 'k', effect: 'NoWay' }] }))).toEqual([
      {
        field: 'spec.taints[0].effect',
        message:
          'Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  it('rejects a second taint with the same key and effect, reporting each duplicate once', () => {
    const taints = [
      { key: 'k', effect: 'NoSchedule' },
      { key: 'k', effect: 'NoExecute' },
      { key: 'k', effect: 'NoSchedule', value: 'x' },
      { key: 'k', effect: 'NoSchedule' },
    ];
    expect(errorsOf(nodePoolCrd, np({ taints }))).toEqual([
      { field: 'spec.taints[2]', message: 'Duplicate value: {"effect":"NoSchedule","key":"k"}' },
    ]);
  });

  it('applies the root rule on metadata.name to the whole object', () => {
    expect(errorsOf(nodePoolCrd, np({}, { name: 'x'.repeat(54) }))).toEqual([
      {
        field: '',
        message:
          'Invalid value: metadata.name must be at most 53 characters: it names node-pool-<name> and a node-role label',
      },
    ]);
    expect(errorsOf(nodePoolCrd, np({}, { name: 'x'.repeat(53) }))).toEqual([]);
  });

  it('checks label keys and values with the schema and the key rule', () => {
    expect(errorsOf(nodePoolCrd, np({ labels: { '-bad': 'x', a: 'v'.repeat(64), b: 'bad value' } }))).toEqual(
      [
        // Schema errors name a map value kube-openapi's way (a dot); CEL errors below use field.Path's.
        { field: 'spec.labels.a', message: 'Too long: may not be more than 63 bytes' },
        {
          field: 'spec.labels.b',
          message:
            'Invalid value: "bad value": spec.labels.b in body should match \'^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$\'',
        },
        RULES_NOT_CHECKED,
      ],
    );
    expect(errorsOf(nodePoolCrd, np({ labels: { '-bad': 'x' } }))).toEqual([
      {
        field: 'spec.labels',
        message:
          'Invalid value: keys must be qualified names (an optional DNS subdomain prefix and "/", then a name)',
      },
    ]);
  });

  it('rejects a handler that is not a DNS label, and unknown fields inside list items', () => {
    expect(
      errorsOf(nodePoolCrd, np({ handler: 'Bad', taints: [{ key: 'k', effect: 'NoSchedule', bar: 1 }] })),
    ).toEqual([
      { field: 'spec.taints[0].bar', message: 'unknown field "spec.taints[0].bar"' },
      {
        field: 'spec.handler',
        message:
          'Invalid value: "Bad": spec.handler in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
      },
    ]);
  });
});

describe('DatabaseManager', () => {
  const dm = (spec: unknown) => resource(databaseManagerCrd, spec);

  it('admits an empty spec and defaults dbtype and replicas', () => {
    const { object, errors } = validateResource(databaseManagerCrd, dm({}));
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({ dbtype: 'mysql', replicas: 1 });
  });

  it('defaults inside a nested object that is present', () => {
    const { object, errors } = validateResource(
      databaseManagerCrd,
      dm({ rootPasswordSecret: { name: 'root' } }),
    );
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({
      dbtype: 'mysql',
      replicas: 1,
      rootPasswordSecret: { name: 'root', key: 'password' },
    });
  });

  it('rejects dbtype postgres, and says the CEL rules were not checked', () => {
    expect(errorsOf(databaseManagerCrd, dm({ dbtype: 'postgres' }))).toEqual([
      {
        field: 'spec.dbtype',
        message: 'Unsupported value: "postgres": supported values: "mysql", "mariadb"',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  it('rejects 11 and 0 replicas', () => {
    expect(errorsOf(databaseManagerCrd, dm({ replicas: 11 }))).toEqual([
      {
        field: 'spec.replicas',
        message: 'Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      },
    ]);
    expect(errorsOf(databaseManagerCrd, dm({ replicas: 0 }))).toEqual([
      {
        field: 'spec.replicas',
        message: 'Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      },
    ]);
  });

  it('rejects a deploymentName that is not a DNS label', () => {
    expect(errorsOf(databaseManagerCrd, dm({ deploymentName: 'Bad_Name' }))).toEqual([
      {
        field: 'spec.deploymentName',
        message:
          'Invalid value: "Bad_Name": spec.deploymentName in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
      },
    ]);
  });

  it('requires the secret name once rootPasswordSecret is given', () => {
    expect(errorsOf(databaseManagerCrd, dm({ rootPasswordSecret: {} }))).toEqual([
      { field: 'spec.rootPasswordSecret.name', message: 'Required value' },
      RULES_NOT_CHECKED,
    ]);
  });
});

describe('Balancer', () => {
  const bl = (spec: Obj, metadata?: unknown) =>
    resource(
      balancerCrd,
      { ports: [{ name: 'http', port: 80 }], backends: [{ name: 'v1', weight: 1 }], ...spec },
      metadata,
    );
  const backends = (...names: string[]) => names.map((name) => ({ name, weight: 1 }));

  it('admits a valid balancer and defaults every port protocol and the image', () => {
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

describe('validateResource', () => {
  it('never mutates its input', () => {
    const input = resource(balancerCrd, {
      ports: [{ name: 'http', port: 80 }],
      backends: [{ name: 'v1', weight: 1, extra: true }],
    });
    const before = structuredClone(input);
    const { object } = validateResource(balancerCrd, input);
    expect(input).toEqual(before);
    expect(object).not.toBe(input);
    expect((object.spec as Obj).ports).not.toBe((input.spec as Obj).ports);
  });

  it('reports a wrong kind and apiVersion and nothing else', () => {
    const obj = { apiVersion: 'cache.example.com/v1', kind: 'Memcache', metadata: {}, spec: {} };
    expect(errorsOf(memcachedCrd, obj)).toEqual([
      { field: 'kind', message: 'Invalid value: "Memcache": must be Memcached' },
      {
        field: 'apiVersion',
        message: 'Invalid value: "cache.example.com/v1": must be cache.example.com/v1alpha1',
      },
    ]);
  });

  it('rejects what is not an object', () => {
    expect(errorsOf(memcachedCrd, ['x'])).toEqual([
      { field: '', message: 'Invalid value: must be a Kubernetes object' },
    ]);
  });

  it('returns the same errors in the same order every time', () => {
    const obj = resource(balancerCrd, {
      ports: [{ name: 'http', port: 0, protocol: 'SCTP', zz: 1, aa: 2 }],
      backends: [{ name: 'B', weight: 0 }],
      selector: { 'a/b/c': 'x', k: 'v'.repeat(64) },
    });
    const first = errorsOf(balancerCrd, obj);
    expect(first.map((e) => e.field)).toEqual([
      'spec.ports[0].aa',
      'spec.ports[0].zz',
      'spec.ports[0].protocol',
      'spec.ports[0].port',
      'spec.selector.k',
      'spec.backends[0].name',
      'spec.backends[0].weight',
      '',
    ]);
    expect(errorsOf(balancerCrd, obj)).toEqual(first);
  });
});

describe('the CRDs', () => {
  function rules(s: JSONSchemaProps | undefined): string[] {
    if (!s) return [];
    return [
      ...(s['x-kubernetes-validations'] ?? []).map((r) => r.rule),
      ...Object.values(s.properties ?? {}).flatMap(rules),
      ...rules(s.items),
      ...rules(typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined),
    ];
  }

  it.each(crds.map((crd) => [crd.spec.names.kind, crd] as const))(
    'every CEL rule of %s parses',
    (_kind, crd) => {
      const all = crd.spec.versions.flatMap((v) => rules(v.schema.openAPIV3Schema));
      expect(all.map((rule) => [rule, ruleSyntaxError(rule)])).toEqual(all.map((rule) => [rule, undefined]));
    },
  );
});

describe('every kind', () => {
  it('rejects a name longer than 63 characters, a label value on every child', () => {
    const long = resource(databaseManagerCrd, { deploymentName: 'db' }, { name: 'd'.repeat(64) });
    expect(errorsOf(databaseManagerCrd, long)).toEqual([
      {
        field: '',
        message: `Invalid value: metadata.name must be at most 63 characters: it is a label value on every child`,
      },
    ]);
  });
});

describe('minProperties', () => {
  const crd = structuredClone(memcachedCrd);
  crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.pages = {
    type: 'object',
    minProperties: 1,
    additionalProperties: { type: 'string' },
  };

  it('rejects an object with fewer properties, in the API server words', () => {
    expect(errorsOf(crd, resource(crd, { size: 1, pages: {} }))).toEqual([
      {
        field: 'spec.pages',
        message: 'Invalid value: 0: spec.pages in body should have at least 1 properties',
      },
    ]);
    expect(errorsOf(crd, resource(crd, { size: 1, pages: { 'index.html': 'x' } }))).toEqual([]);
  });
});

/**
 * Updates: `validateResource(crd, object, { old })`. The expected errors are what kube-apiserver v1.36.3
 * answered to a server-side dry-run update (PUT) of the same object over the stored `old`, except where
 * a comment says why ours differs or that the API server would refuse the CRD. The stored objects that
 * break the CRD (for ratcheting) were created before the rules, enum and list type were added.
 */
describe('update validation (transition rules, messageExpression, ratcheting)', () => {
  const str = (extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'string', maxLength: 63, ...extra });
  /** `a` >= `b` for `major.minor.patch` strings, as the MySQL Cluster kind compares versions. */
  const atLeast = (a: string, b: string): string => {
    const part = (v: string, i: number) => `int(${v}.split('.')[${i}])`;
    return (
      `${part(a, 0)} > ${part(b, 0)} || (${part(a, 0)} == ${part(b, 0)} && ` +
      `(${part(a, 1)} > ${part(b, 1)} || (${part(a, 1)} == ${part(b, 1)} && ${part(a, 2)} >= ${part(b, 2)})))`
    );
  };
  const spec: JSONSchemaProps = {
    type: 'object',
    properties: {
      version: {
        type: 'string',
        maxLength: 20,
        pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$',
        default: '8.0.12',
        'x-kubernetes-validations': [
          { rule: atLeast('self', "'8.0.11'"), message: 'minimum supported MySQL version is 8.0.11' },
          {
            rule: atLeast('self', 'oldSelf'),
            message: 'unsupported downgrade',
            messageExpression: "'unsupported downgrade from ' + oldSelf + ' to ' + self",
          },
        ],
      },
      database: {
        type: 'object',
        properties: {
          engine: {
            type: 'object',
            properties: {
              name: str({
                'x-kubernetes-validations': [
                  { rule: 'self == oldSelf', message: 'engine name is immutable' },
                ],
              }),
            },
          },
        },
      },
      limits: {
        type: 'object',
        maxProperties: 8,
        additionalProperties: {
          type: 'integer',
          'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'limits may not be lowered' }],
        },
      },
      members: {
        type: 'array',
        maxItems: 8,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: str(), role: str() },
          'x-kubernetes-validations': [
            {
              rule: 'self.role == oldSelf.role',
              messageExpression:
                "'role of ' + self.name + ' changed from ' + oldSelf.role + ' to ' + self.role",
            },
          ],
        },
      },
      ports: {
        type: 'array',
        maxItems: 8,
        items: { type: 'integer' },
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'ports are immutable' }],
      },
      tier: str({
        'x-kubernetes-validations': [
          {
            rule: '!oldSelf.hasValue() || oldSelf.value() == self',
            optionalOldSelf: true,
            message: 'tier is immutable',
          },
        ],
      }),
      label: str({
        'x-kubernetes-validations': [
          { rule: "self.startsWith('w-')", messageExpression: "'label ' + self + ' must start with w-'" },
        ],
      }),
      color: { type: 'string', enum: ['red', 'blue'] },
      tags: {
        type: 'array',
        maxItems: 8,
        'x-kubernetes-list-type': 'set',
        items: str({ 'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'bad tag' }] }),
      },
      blank: str({
        'x-kubernetes-validations': [
          { rule: "self != 'x'", message: 'blank must not be x', messageExpression: "' '" },
        ],
      }),
      multiline: str({
        'x-kubernetes-validations': [
          { rule: "self != 'x'", message: 'multiline must not be x', messageExpression: "'one\\ntwo'" },
        ],
      }),
      detail: {
        type: 'object',
        properties: { mode: str(), note: str() },
        'x-kubernetes-validations': [
          { rule: "self.mode != 'x'", messageExpression: "'mode x: ' + self.note" },
        ],
      },
    },
  };
  const widgetCrd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.test.reconstruct.dev' },
    spec: {
      group: 'test.reconstruct.dev',
      scope: 'Namespaced',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec, status: { type: 'object', properties: { phase: str() } } },
            },
          },
        },
      ],
    },
  };
  const widget = (s: unknown, extra: Obj = {}): Obj => ({ ...resource(widgetCrd, s), ...extra });
  /** The errors of updating a Widget whose stored spec is `before` to one with spec `after`. */
  const update = (before: unknown, after: unknown, crd = widgetCrd): FieldError[] =>
    validateResource(crd, resource(crd, after), { old: resource(crd, before) }).errors;
  const v = { version: '8.0.12' };

  describe('transition rules', () => {
    it('compare with the stored value, and report the messageExpression', () => {
      expect(update({ version: '8.0.12' }, { version: '8.0.13' })).toEqual([]);
      expect(update({ version: '8.0.13' }, { version: '8.0.12' })).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.12": unsupported downgrade from 8.0.13 to 8.0.12',
        },
      ]);
      expect(update({ version: '8.0.13' }, { version: '8.0.10' })).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.10": minimum supported MySQL version is 8.0.11',
        },
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.10": unsupported downgrade from 8.0.13 to 8.0.10',
        },
      ]);
    });

    it('are skipped on create, with or without options', () => {
      expect(validateResource(widgetCrd, widget({ version: '8.0.12' })).errors).toEqual([]);
      expect(validateResource(widgetCrd, widget({ version: '8.0.12' }), {}).errors).toEqual([]);
      expect(validateResource(widgetCrd, widget({ version: '8.0.10' })).errors).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.10": minimum supported MySQL version is 8.0.11',
        },
      ]);
    });

    it('see both objects defaulted: a version left out becomes the default, then compares', () => {
      expect(update({ version: '8.0.13' }, {})).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.12": unsupported downgrade from 8.0.13 to 8.0.12',
        },
      ]);
      // Not a case the API server can meet (what it stores is defaulted already), nor one it reports.
      expect(update({ replicas: 3 }, { version: '8.0.11' })).toEqual([
        {
          field: 'spec.version',
          message: 'Invalid value: "8.0.11": unsupported downgrade from 8.0.12 to 8.0.11',
        },
      ]);
    });

    it('report evaluation errors like other rules, in cel-go words', () => {
      const pattern = "spec.version in body should match '^[0-9]+\\.[0-9]+\\.[0-9]+$'";
      expect(update({ version: '8.0.13' }, { version: '8.0' })).toEqual([
        { field: 'spec.version', message: `Invalid value: "8.0": ${pattern}` },
        {
          field: 'spec.version',
          message:
            'Invalid value: "string": index out of bounds: 2 evaluating rule: minimum supported MySQL version is 8.0.11',
        },
        {
          field: 'spec.version',
          message: 'Invalid value: "string": index out of bounds: 2 evaluating rule: unsupported downgrade',
        },
      ]);
      expect(update({ version: '8.0.13' }, { version: '8.0.x' })).toEqual([
        { field: 'spec.version', message: `Invalid value: "8.0.x": ${pattern}` },
        {
          field: 'spec.version',
          message:
            "Invalid value: \"string\": type conversion error from 'string' to 'int' evaluating rule: minimum supported MySQL version is 8.0.11",
        },
        {
          field: 'spec.version',
          message:
            "Invalid value: \"string\": type conversion error from 'string' to 'int' evaluating rule: unsupported downgrade",
        },
      ]);
      expect(
        update({ ...v, members: [{ name: 'a' }] }, { ...v, members: [{ name: 'a', role: 'x' }] }),
      ).toEqual([
        {
          field: 'spec.members[0]',
          message: 'Invalid value: "object": no such key: role evaluating rule: self.role == oldSelf.role',
        },
      ]);
    });

    it('correlate nested object properties by name, and are skipped where the stored object has none', () => {
      const engine = (name: string) => ({ ...v, database: { engine: { name } } });
      expect(update(engine('inno'), engine('myisam'))).toEqual([
        { field: 'spec.database.engine.name', message: 'Invalid value: "myisam": engine name is immutable' },
      ]);
      expect(update(engine('inno'), engine('inno'))).toEqual([]);
      expect(update({ ...v, database: {} }, engine('myisam'))).toEqual([]);
      expect(update(v, engine('myisam'))).toEqual([]);
    });

    it('correlate map values by key', () => {
      expect(
        update({ ...v, limits: { cpu: 4, mem: 8 } }, { ...v, limits: { cpu: 2, mem: 16, disk: 1 } }),
      ).toEqual([{ field: 'spec.limits[cpu]', message: 'Invalid value: 2: limits may not be lowered' }]);
    });

    it('correlate the items of a list-type map by their keys, not their index', () => {
      const before = {
        ...v,
        members: [
          { name: 'a', role: 'primary' },
          { name: 'b', role: 'replica' },
        ],
      };
      const after = {
        ...v,
        members: [
          { name: 'b', role: 'replica' },
          { name: 'c', role: 'x' },
          { name: 'a', role: 'replica' },
        ],
      };
      expect(update(before, after)).toEqual([
        { field: 'spec.members[2]', message: 'Invalid value: role of a changed from primary to replica' },
      ]);
    });

    it('run on an atomic list as a whole, but never on its items', () => {
      expect(update({ ...v, ports: [1, 2] }, { ...v, ports: [2, 1] })).toEqual([
        { field: 'spec.ports', message: 'Invalid value: ports are immutable' },
      ]);
      expect(update({ ...v, ports: [1, 2] }, { ...v, ports: [1, 2] })).toEqual([]);
      // The API server refuses this CRD ("oldSelf cannot be used on the uncorrelatable portion of the
      // schema"); were it stored, such a rule could never run, and here it does not.
      const crd = structuredClone(widgetCrd);
      const ports = crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.ports;
      ports['x-kubernetes-validations'] = [];
      ports.items = { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] };
      expect(update({ ...v, ports: [1, 2] }, { ...v, ports: [3, 4] }, crd)).toEqual([]);
    });

    it('are skipped with optionalOldSelf, which @bufbuild/cel cannot evaluate (the API server can)', () => {
      expect(validateResource(widgetCrd, widget({ ...v, tier: 'gold' })).errors).toEqual([]);
      // The API server: spec.tier: Invalid value: "silver": tier is immutable
      expect(update({ ...v, tier: 'gold' }, { ...v, tier: 'silver' })).toEqual([]);
    });

    it('are the rules with the identifier oldSelf, even as a loop variable, as cel-go sees them', () => {
      const crd = structuredClone(widgetCrd);
      const label = crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.label;
      label['x-kubernetes-validations'] = [
        { rule: "'oldSelf' == self", message: 'not a literal' },
        // The API server skips this one on create too: cel-go's checker records the loop variable as a
        // reference to oldSelf.
        { rule: "[self].all(oldSelf, oldSelf == 'y')", message: 'a loop variable' },
        { rule: "[self].all(x, x == 'z')", messageExpression: "[self].map(oldSelf, oldSelf + '!')[0]" },
      ];
      expect(validateResource(crd, resource(crd, { ...v, label: 'x' })).errors).toEqual([
        { field: 'spec.label', message: 'Invalid value: "x": not a literal' },
        { field: 'spec.label', message: 'Invalid value: "x": x!' },
      ]);
    });
  });

  describe('messageExpression', () => {
    it('gives the message when the rule fails', () => {
      expect(validateResource(widgetCrd, widget({ ...v, label: 'x' })).errors).toEqual([
        { field: 'spec.label', message: 'Invalid value: "x": label x must start with w-' },
      ]);
      expect(validateResource(widgetCrd, widget({ ...v, detail: { mode: 'x', note: 'n' } })).errors).toEqual([
        { field: 'spec.detail', message: 'Invalid value: mode x: n' },
      ]);
    });

    it('falls back to message when blank or on several lines', () => {
      expect(validateResource(widgetCrd, widget({ ...v, blank: 'x', multiline: 'x' })).errors).toEqual([
        { field: 'spec.blank', message: 'Invalid value: "x": blank must not be x' },
        { field: 'spec.multiline', message: 'Invalid value: "x": multiline must not be x' },
      ]);
    });

    it('falls back to the failed rule when it fails and there is no message', () => {
      expect(validateResource(widgetCrd, widget({ ...v, detail: { mode: 'x' } })).errors).toEqual([
        { field: 'spec.detail', message: "Invalid value: failed rule: self.mode != 'x'" },
      ]);
    });

    it('falls back when it gives no string or does not parse (the API server refuses such a CRD)', () => {
      const crd = structuredClone(widgetCrd);
      const label = crd.spec.versions[0].schema.openAPIV3Schema.properties!.spec.properties!.label;
      label['x-kubernetes-validations'] = [
        { rule: "self != 'x'", message: 'not a string', messageExpression: 'size(self)' },
        { rule: "self != 'x'", messageExpression: "'unclosed" },
      ];
      expect(validateResource(crd, resource(crd, { ...v, label: 'x' })).errors).toEqual([
        { field: 'spec.label', message: 'Invalid value: "x": not a string' },
        { field: 'spec.label', message: `Invalid value: "x": failed rule: self != 'x'` },
      ]);
    });
  });

  describe('ratcheting', () => {
    it('drops rule errors in values the update leaves as they were', () => {
      expect(update({ ...v, label: 'bad' }, { version: '8.0.13', label: 'bad' })).toEqual([]);
      expect(update({ ...v, label: 'bad' }, { ...v, label: 'bad2' })).toEqual([
        { field: 'spec.label', message: 'Invalid value: "bad2": label bad2 must start with w-' },
      ]);
    });

    it('drops them under an unchanged list whose items do not correlate', () => {
      expect(update({ ...v, tags: ['bad', 'c'] }, { version: '8.0.13', tags: ['bad', 'c'] })).toEqual([]);
      expect(update({ ...v, tags: ['bad', 'c'] }, { ...v, tags: ['bad', 'd'] })).toEqual([
        { field: 'spec.tags[0]', message: 'Invalid value: "bad": bad tag' },
      ]);
    });

    it('drops schema errors in unchanged values, so they block no rule', () => {
      expect(update({ ...v, color: 'green' }, { version: '8.0.13', color: 'green' })).toEqual([]);
      expect(update({ ...v, color: 'green' }, { ...v, color: 'pink' })).toEqual([
        { field: 'spec.color', message: 'Unsupported value: "pink": supported values: "red", "blue"' },
        RULES_NOT_CHECKED,
      ]);
    });

    it('checks list types only when the stored object passes them', () => {
      expect(update({ ...v, tags: ['a', 'a'] }, { ...v, tags: ['b', 'b'] })).toEqual([]);
      expect(update({ ...v, tags: ['a'] }, { ...v, tags: ['b', 'b'] })).toEqual([
        { field: 'spec.tags[1]', message: 'Duplicate value: "b"' },
      ]);
    });
  });

  it('keeps the stored status, and never mutates either object', () => {
    const old = widget({ version: '8.0.13', extra: 1 }, { status: { phase: 'Ready' } });
    const next = widget({ version: '8.0.13' }, { status: { phase: 'Mine' } });
    const before = structuredClone([old, next]);
    const { object, errors } = validateResource(widgetCrd, next, { old });
    expect(errors).toEqual([]);
    expect(object.status).toEqual({ phase: 'Ready' });
    expect(object.status).not.toBe(old.status);
    expect([old, next]).toEqual(before);
    // With no stored status, the update's own is dropped.
    expect(validateResource(widgetCrd, next, { old: widget(v) }).object.status).toBeUndefined();
  });

  it('treats an old value that is not an object as no old object', () => {
    expect(validateResource(widgetCrd, widget({ version: '8.0.1' }), { old: 'x' }).errors).toEqual([
      { field: 'spec.version', message: 'Invalid value: "8.0.1": minimum supported MySQL version is 8.0.11' },
    ]);
  });
});

describe('the CEL library', () => {
  it('loads on the first rule evaluated, not with the kinds nor for a resource the API server admitted', () => {
    let loaded = 0;
    jest.isolateModules(() => {
      jest.doMock('@bufbuild/cel', () => {
        loaded++;
        return jest.requireActual<object>('@bufbuild/cel');
      });
      /* eslint-disable @typescript-eslint/no-require-imports -- modules of the isolated registry */
      const kit = require('../../../constructs') as typeof import('../../../constructs');
      const validate =
        require('../../../constructs/kit/validate') as typeof import('../../../constructs/kit/validate');
      /* eslint-enable @typescript-eslint/no-require-imports */
      const balancer = (name: string) =>
        resource(
          kit.balancerKind.crd,
          {
            ports: [{ name: 'http', port: 80 }],
            backends: [{ name: 'v1', weight: 1 }],
            selector: { app: 'web' },
          },
          { name, namespace: 'default' },
        );
      // What the controller does with each resource: synthesize it as admitted (Balancer has CEL rules).
      const children = kit.synthesize(kit.balancerKind, balancer('front') as never, {
        owner: { uid: 'u' },
        admitted: true,
      });
      expect(children.length).toBeGreaterThan(0);
      expect(loaded).toBe(0);
      // The offline renderer validates: the root rule needs CEL, and refuses a name too long for it.
      const { errors } = validate.validateResource(kit.balancerKind.crd, balancer('b'.repeat(60)));
      expect(loaded).toBe(1);
      expect(errors.map((e) => e.field)).toContain('spec.backends');
    });
  });
});
