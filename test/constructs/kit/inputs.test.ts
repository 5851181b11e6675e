/**
 * Observed inputs in the kit: declared on a kind, given to the construct (a placeholder until known), found
 * in the children that hold them, resolved from objects with one line for each that is missing, and
 * refused where they could never come (a cycle, a child not rendered).
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  CONFIG_MAP,
  KindDefinitionError,
  SECRET,
  SERVICE,
  SpecError,
  defineKind,
  fromChild,
  fromConfigMap,
  fromExternal,
  fromObject,
  fromSecret,
  isKnown,
  pendingChildren,
  resolveInputs,
  synthesize,
  type ApiKind,
  type CustomResource,
  type Input,
  type KubeObject,
  type Manifest,
  type ResourcePropsWithInputs,
} from '../../../index';
import { inputReads } from '../../../constructs/kit/inputs/resolve';
import { markPending } from '../../../constructs/kit/inputs/tokens';
import { webFrontKind, type WebFrontSpec } from '../../fixtures/kinds/web-front';

const front = (name = 'shop'): CustomResource<WebFrontSpec> => ({
  apiVersion: 'web.example.com/v1',
  kind: 'WebFront',
  metadata: { name, namespace: 'web' },
  spec: { image: 'web:1', settings: 'shop-settings' },
});
const idsOf = (children: { kind: string; metadata: { name: string } }[]) =>
  children.map((c) => `${c.kind} ${c.metadata.name}`);

describe('a construct with inputs', () => {
  it('renders every child; those holding an input not known yet wait for it, the others go ahead', () => {
    const children = synthesize(webFrontKind, front(), { inputs: { theme: 'dark' } });
    expect(idsOf(children)).toEqual(['Deployment shop', 'Service shop', 'ConfigMap shop-endpoint']);
    const pending = pendingChildren(webFrontKind, front(), children);
    expect(pending.map((p) => [`${p.child.kind} ${p.child.metadata.name}`, p.inputs])).toEqual([
      ['ConfigMap shop-endpoint', ['host']],
    ]);
    // Offline, the placeholder can be shown for what it is.
    expect(markPending(webFrontKind.inputs, pending[0].child).data).toEqual({ url: 'http://<input:host>/' });
  });

  it('renders the known values where the construct puts them, and nothing waits', () => {
    const children = synthesize(webFrontKind, front(), {
      inputs: { theme: 'dark', host: 'shop.example.net' },
    });
    expect(pendingChildren(webFrontKind, front(), children)).toEqual([]);
    const endpoint = children.find((c) => c.kind === 'ConfigMap');
    expect(endpoint?.data).toEqual({ url: 'http://shop.example.net/' });
    const deployment = children.find((c) => c.kind === 'Deployment') as Manifest & {
      spec: { template: { spec: { containers: { env: unknown[] }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0].env).toEqual([{ name: 'THEME', value: 'dark' }]);
  });

  it('gives a number input a number placeholder, which isKnown tells from a value', () => {
    let seen: number[] = [];
    class Scaled extends Construct {
      constructor(
        scope: Construct,
        id: string,
        props: ResourcePropsWithInputs<object, { replicas: number }>,
      ) {
        super(scope, id);
        seen.push(props.inputs.replicas);
        new ApiObject(this, 'cm', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: props.name },
          data: { n: '1' },
        });
        // The number turned into text: still found.
        new ApiObject(this, 'text', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${props.name}-text` },
          data: { replicas: `${props.inputs.replicas} replicas` },
        });
        new ApiObject(this, 'svc', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: props.name },
          spec: { ports: [{ port: props.inputs.replicas }] },
        });
      }
    }
    const kind = defineKind({
      apiVersion: 'scale.example.com/v1',
      kind: 'Scaled',
      plural: 'scaleds',
      schema: { description: 'x', spec: { type: 'object' } },
      children: [CONFIG_MAP, SERVICE],
      inputs: { replicas: fromChild(CONFIG_MAP, (r) => r.metadata.name, 'data.n', { as: 'number' }) },
      construct: Scaled,
    });
    const resource = { apiVersion: kind.apiVersion, kind: 'Scaled', metadata: { name: 'a' }, spec: {} };
    const pending = pendingChildren(kind, resource, synthesize(kind, resource));
    expect(pending.map((p) => `${p.child.kind} ${p.child.metadata.name}`)).toEqual([
      'ConfigMap a-text',
      'Service a',
    ]);
    expect(markPending(kind.inputs, pending[0].child).data).toEqual({
      replicas: '<input:replicas> replicas',
    });
    expect(isKnown(seen[0])).toBe(false);
    expect(markPending(kind.inputs, pending[1].child).spec).toEqual({
      ports: [{ port: '<input:replicas>' }],
    });
    seen = [];
    synthesize(kind, resource, { inputs: { replicas: 3 } });
    expect(seen).toEqual([3]);
    expect(isKnown(3)).toBe(true);
    expect(isKnown('a string')).toBe(true);
  });
});

describe('inputs that could never come', () => {
  const kindOf = (
    inputs: Record<string, Input<string>>,
    render: (name: string, i: Record<string, string>) => object[],
  ) =>
    defineKind({
      apiVersion: 'loop.example.com/v1',
      kind: 'Loop',
      plural: 'loops',
      schema: { description: 'x', spec: { type: 'object' } },
      children: [CONFIG_MAP, SERVICE],
      inputs,
      construct: class extends Construct {
        constructor(
          scope: Construct,
          id: string,
          props: ResourcePropsWithInputs<object, Record<string, string>>,
        ) {
          super(scope, id);
          render(props.name, props.inputs).forEach((o, i) => new ApiObject(this, `o${i}`, o as never));
        }
      },
    });
  const resource = {
    apiVersion: 'loop.example.com/v1',
    kind: 'Loop',
    metadata: { name: 'a', namespace: 'x' },
    spec: {},
  };

  it('refuses children that wait for each other’s inputs, naming the cycle', () => {
    const kind = kindOf(
      {
        port: fromChild(CONFIG_MAP, 'a-config', 'data.port'),
        address: fromChild(SERVICE, 'a', 'spec.clusterIP'),
      },
      (name, inputs) => [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${name}-config` },
          data: { ip: inputs.address },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name },
          spec: { ports: [{ name: inputs.port, port: 80 }] },
        },
      ],
    );
    expect(() => synthesize(kind, resource)).toThrow(
      new SpecError(
        'inputs',
        "children wait for each other's inputs in a cycle: ConfigMap a-config -> Service a -> ConfigMap a-config",
      ),
    );
  });

  it('refuses a wait for a child the construct does not render', () => {
    const kind = kindOf({ address: fromChild(SERVICE, 'a', 'spec.clusterIP') }, (name, inputs) => [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { ip: inputs.address } },
    ]);
    expect(() => synthesize(kind, resource)).toThrow(
      'inputs.address: ConfigMap a waits for input address, read from Service a, which the construct does not render',
    );
  });
});

describe('resolving inputs', () => {
  const objects = new Map<string, KubeObject>();
  const put = (type: ApiKind, namespace: string, name: string, rest: object) =>
    objects.set(`${type.kind}/${namespace}/${name}`, {
      apiVersion: type.apiVersion,
      kind: type.kind,
      metadata: { name, namespace },
      ...rest,
    });
  const lookup = (type: ApiKind, namespace: string | undefined, name: string) =>
    objects.get(`${type.kind}/${namespace}/${name}`);
  beforeEach(() => objects.clear());

  it('says in one line per input which object or field is missing', () => {
    expect(resolveInputs(webFrontKind.inputs, front(), lookup)).toEqual({
      values: {},
      missing: {
        host: 'Service shop does not exist yet',
        theme: 'ConfigMap shop-settings does not exist yet',
      },
    });
    put(SERVICE, 'web', 'shop', { status: { loadBalancer: {} } });
    put(CONFIG_MAP, 'web', 'shop-settings', { data: { colour: 'red' } });
    expect(resolveInputs(webFrontKind.inputs, front(), lookup).missing).toEqual({
      host: 'Service shop has no status.loadBalancer.ingress[0].hostname yet',
      theme: 'ConfigMap shop-settings has no key theme',
    });
  });

  it('reads the values once the objects say them', () => {
    put(SERVICE, 'web', 'shop', { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } });
    put(CONFIG_MAP, 'web', 'shop-settings', { data: { theme: 'dark' } });
    expect(resolveInputs(webFrontKind.inputs, front(), lookup)).toEqual({
      values: { host: 'lb.example.net', theme: 'dark' },
      missing: {},
    });
    expect(inputReads(webFrontKind.inputs, front())).toEqual([
      { input: 'host', type: SERVICE, namespace: 'web', name: 'shop' },
      { input: 'theme', type: CONFIG_MAP, namespace: 'web', name: 'shop-settings' },
    ]);
  });

  it('decodes a Secret’s key, converts numbers, reads another namespace where declared, and the external observation', () => {
    const DATABASE = {
      apiVersion: 'db.example.com/v1',
      kind: 'Database',
      plural: 'databases',
      namespaced: true,
    };
    const inputs = {
      password: fromSecret<{ secret: string }>({ name: (r) => r.spec.secret, key: 'password' }),
      port: fromObject(DATABASE, { name: 'main', namespace: 'data', path: 'status.port' }, { as: 'number' }),
      endpoint: fromObject(DATABASE, { name: 'main', namespace: 'data', path: 'status' }),
      zone: fromExternal((o: { id: string }) => o.id),
      none: fromConfigMap<{ secret: string; optional?: string }>({ name: (r) => r.spec.optional, key: 'x' }),
    };
    const resource = {
      apiVersion: 'a/v1',
      kind: 'A',
      metadata: { name: 'a', namespace: 'web' },
      spec: { secret: 'db' },
    };
    put(SECRET, 'web', 'db', { data: { password: Buffer.from('s3cret').toString('base64') } });
    put(DATABASE, 'data', 'main', { status: { port: '5432', host: 'db' } });
    expect(resolveInputs(inputs, resource, lookup, { id: 'Z1' })).toEqual({
      values: { password: 's3cret', port: 5432, endpoint: '{"port":"5432","host":"db"}', zone: 'Z1' },
      missing: { none: 'the spec names no ConfigMap' },
    });
    put(DATABASE, 'data', 'main', { status: { port: 'five' } });
    expect(resolveInputs(inputs, resource, lookup).missing).toEqual({
      port: 'Database main status.port is "five", not a number',
      zone: 'the external object is not observed yet',
      none: 'the spec names no ConfigMap',
    });
  });
  it('takes a key’s default when the object exists without the key, and waits for the object itself', () => {
    const inputs = {
      port: fromSecret<{ server: string }>({ name: (r) => r.spec.server, key: 'port', default: '3306' }),
    };
    const resource = {
      apiVersion: 'a/v1',
      kind: 'A',
      metadata: { name: 'a', namespace: 'web' },
      spec: { server: 'db' },
    };
    expect(resolveInputs(inputs, resource, lookup)).toEqual({
      values: {},
      missing: { port: 'Secret db does not exist yet' },
    });
    put(SECRET, 'web', 'db', { data: { host: Buffer.from('db').toString('base64') } });
    expect(resolveInputs(inputs, resource, lookup)).toEqual({ values: { port: '3306' }, missing: {} });
    put(SECRET, 'web', 'db', { data: { port: Buffer.from('3307').toString('base64') } });
    expect(resolveInputs(inputs, resource, lookup)).toEqual({ values: { port: '3307' }, missing: {} });
  });
});

describe('declaring inputs', () => {
  it('names every mistake at definition', () => {
    const define = () =>
      defineKind({
        apiVersion: 'bad.example.com/v1',
        kind: 'Bad',
        plural: 'bads',
        schema: { description: 'x', spec: { type: 'object' } },
        children: [CONFIG_MAP],
        inputs: {
          Host: fromChild(SERVICE, 'a', 'status..x'),
          zone: fromExternal((o: { id: string }) => o.id),
          key: fromConfigMap({ name: 'a', key: '' }),
          elsewhere: fromSecret({
            name: 'a',
            key: 'k',
            namespace: ((r: { spec: { ns: string } }) => r.spec.ns) as never,
          }),
        },
      });
    expect(define).toThrow(KindDefinitionError);
    expect(define).toThrow(
      'inputs.Host: an input\'s name must be lowerCamelCase; inputs.Host: "status..x" is not a field path (as in status.loadBalancer.ingress[0].hostname); ' +
        'inputs.zone reads the external object, but the kind has no external work; inputs.key: which key of the ConfigMap (key); ' +
        "inputs.elsewhere: namespace must be a namespace's name, fixed by the kind (not read from the spec)",
    );
  });
});
