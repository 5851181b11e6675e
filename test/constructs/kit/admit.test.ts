import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import {
  Memcached,
  admitSpec,
  memcachedKind,
  synthesize,
  type JSONSchemaProps,
  type Manifest,
  type MemcachedSpec,
} from '../../../constructs';
import { specError } from '../manifests';

/** A spec schema with a default, a bound, an enum, a pattern and a CEL rule. */
const SCHEMA: JSONSchemaProps = {
  type: 'object',
  required: ['size'],
  properties: {
    size: { type: 'integer', minimum: 0 },
    tier: { type: 'string', enum: ['gold', 'silver'], default: 'silver' },
    name: { type: 'string', pattern: '^[a-z]+$' },
    ports: {
      type: 'array',
      items: { type: 'integer' },
      'x-kubernetes-validations': [{ rule: 'self.all(p, p > 1024)', message: 'ports must be above 1024' }],
    },
  },
};

/** Records the spec admitSpec returns, so a test can look at it. */
class Probe extends Construct {
  readonly spec: unknown;
  constructor(scope: Construct, spec: unknown) {
    super(scope, 'probe');
    this.spec = admitSpec(this, SCHEMA, spec);
  }
}

const chart = () => new Chart(new App(), 'chart');

describe('admitSpec', () => {
  it('fills in the schema defaults without changing what it was given', () => {
    const given = { size: 1 };
    expect(new Probe(chart(), given).spec).toEqual({ size: 1, tier: 'silver' });
    expect(given).toEqual({ size: 1 });
  });

  it("refuses a spec in the API server's words, naming the first field and listing every problem", () => {
    const error = specError(() => new Probe(chart(), { size: -1, tier: 'bronze', name: 'A' }));
    expect(error.field).toBe('spec.size');
    expect(error.message).toBe(
      'spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0; ' +
        'spec.tier: Unsupported value: "bronze": supported values: "gold", "silver"; ' +
        'spec.name: Invalid value: "A": spec.name in body should match \'^[a-z]+$\'; ' +
        '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; ' +
        'correct the existing errors to complete validation',
    );
  });

  it('runs the CEL rules of the spec', () => {
    expect(specError(() => new Probe(chart(), { size: 1, ports: [80] })).message).toBe(
      'spec.ports: Invalid value: ports must be above 1024',
    );
  });

  it('reports a required field missing and a field the schema does not know', () => {
    const error = specError(() => new Probe(chart(), { replicas: 3 }));
    expect(error.message).toContain('unknown field "spec.replicas"');
    expect(error.message).toContain('spec.size: Required value');
  });

  it('under an admitted chart only fills in defaults: the spec was checked before', () => {
    const admitted = chart();
    admitted.node.setContext('cdk8s-reconstruct:admitted', true);
    expect(new Probe(admitted, { size: -1 }).spec).toEqual({ size: -1, tier: 'silver' });
  });
});

describe('a construct built directly in a cdk8s app', () => {
  it('checks its spec against the kind schema, as kubectl apply would', () => {
    const error = specError(() => new Memcached(chart(), 'cache', { name: 'cache', spec: { size: -2 } }));
    expect(error.message).toBe(
      'spec.size: Invalid value: -2: spec.size in body should be greater than or equal to 0',
    );
  });

  it('synthesize checks it too, unless told the resource was admitted already', () => {
    const resource = {
      apiVersion: memcachedKind.apiVersion,
      kind: memcachedKind.kind,
      metadata: { name: 'cache', namespace: 'default' },
      spec: { size: -2 } as MemcachedSpec,
    };
    expect(specError(() => synthesize(memcachedKind, resource)).field).toBe('spec.size');
    const deployment = synthesize(memcachedKind, resource, { admitted: true }).find(
      (c) => c.kind === 'Deployment',
    ) as Manifest & { spec: { replicas: number } };
    expect(deployment.spec.replicas).toBe(-2);
  });
});
