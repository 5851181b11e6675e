/**
 * A kind with observed inputs in the controller, on the in-memory cluster: each child that holds an input
 * not known yet waits (not applied, Ready=False naming the input and the object), the others are applied;
 * an input that becomes known, or changes, renders the resource again; a child whose input goes away
 * again is left as it is, not pruned.
 */
import {
  CONFIG_MAP,
  DEPLOYMENT,
  SERVICE,
  defineKind,
  fromSecret,
  type KubeObject,
} from '../../../constructs';
import { Construct } from 'constructs';
import { clusterRules } from '../../../controller/install/permissions';
import { objectKey } from '../../../controller/kube/object-key';
import { Reconciler } from '../../../controller/reconcile/reconciler';
import { memcachedKind } from '../../../constructs';
import { InMemoryCluster } from '../../../testing';
import { webFrontKind } from '../../fixtures/kinds/web-front';

const NS = 'web';
let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster([webFrontKind]);
  cluster.putResource(webFrontKind, 'shop', { image: 'web:1', settings: 'shop-settings' }, NS);
});

const reconcile = () => cluster.reconcile(webFrontKind, NS, 'shop');
const writes = () =>
  cluster
    .takeWrites()
    .filter((w) => w.verb !== 'status' && w.kind !== 'WebFront')
    .map((w) => `${w.verb} ${w.kind}/${w.name}`);
const settings = (theme: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'shop-settings', namespace: NS },
  data: { theme },
});
const envOf = (obj: KubeObject | undefined) =>
  (obj?.spec as { template: { spec: { containers: { env: unknown[] }[] } } }).template.spec.containers[0].env;

it('applies what it can, waits for each input it lacks, and goes on as each becomes known', async () => {
  await reconcile(); // the finalizer of ordered deletion, if any, then the children
  await reconcile();
  expect(cluster.any(SERVICE, NS, 'shop')).toBeDefined();
  expect(cluster.any(DEPLOYMENT, NS, 'shop')).toBeUndefined();
  expect(cluster.any(CONFIG_MAP, NS, 'shop-endpoint')).toBeUndefined();
  expect(cluster.ready(webFrontKind, NS, 'shop')).toMatchObject({
    status: 'False',
    reason: 'Waiting',
    message:
      'ConfigMap shop-endpoint waits for input host: Service shop has no status.loadBalancer.ingress[0].hostname yet; ' +
      'Deployment shop waits for input theme: ConfigMap shop-settings does not exist yet',
  });

  cluster.put(CONFIG_MAP, settings('dark'));
  cluster.takeWrites();
  await reconcile();
  expect(writes()).toEqual(['apply Deployment/shop']);
  expect(envOf(cluster.any(DEPLOYMENT, NS, 'shop'))).toEqual([{ name: 'THEME', value: 'dark' }]);

  cluster.patch(SERVICE, NS, 'shop', {
    status: { loadBalancer: { ingress: [{ hostname: 'lb-1.example.net' }] } },
  });
  await reconcile();
  expect(writes()).toEqual(['apply ConfigMap/shop-endpoint']);
  expect(cluster.any(CONFIG_MAP, NS, 'shop-endpoint')?.data).toEqual({ url: 'http://lb-1.example.net/' });

  // A new address: the ConfigMap follows, nothing else is written.
  cluster.patch(SERVICE, NS, 'shop', {
    status: { loadBalancer: { ingress: [{ hostname: 'lb-2.example.net' }] } },
  });
  await reconcile();
  expect(writes()).toEqual(['apply ConfigMap/shop-endpoint']);
  expect(cluster.any(CONFIG_MAP, NS, 'shop-endpoint')?.data).toEqual({ url: 'http://lb-2.example.net/' });

  // The address gone (the Service recreated, say): the ConfigMap waits, as it was, not pruned.
  cluster.patch(SERVICE, NS, 'shop', { status: { loadBalancer: null } });
  await reconcile();
  expect(writes()).toEqual([]);
  expect(cluster.any(CONFIG_MAP, NS, 'shop-endpoint')?.data).toEqual({ url: 'http://lb-2.example.net/' });
  expect(cluster.ready(webFrontKind, NS, 'shop')?.message).toBe(
    'ConfigMap shop-endpoint waits for input host: Service shop has no status.loadBalancer.ingress[0].hostname yet',
  );
});

it('renders the resource again when a ConfigMap it reads changes, writing only what the value is in', async () => {
  cluster.put(CONFIG_MAP, settings('dark'));
  await reconcile();
  await reconcile();
  cluster.takeWrites();
  cluster.put(CONFIG_MAP, settings('light'));
  await reconcile();
  expect(writes()).toEqual(['apply Deployment/shop']);
  expect(envOf(cluster.any(DEPLOYMENT, NS, 'shop'))).toEqual([{ name: 'THEME', value: 'light' }]);
});

describe('a child its inputs read', () => {
  /** A reconciler of its own, to ask its echoes. */
  const reconcilerOf = (kinds: ConstructorParameters<typeof InMemoryCluster>[0]) => {
    const own = new InMemoryCluster(kinds);
    const now = () => new Date(own.clock);
    const events = { emit: () => undefined };
    const reconciler = new Reconciler({ view: own, writer: own.writer(), events, log: own.log, now });
    return { own, reconciler };
  };
  const version = (c: InMemoryCluster, type: typeof SERVICE, name: string) =>
    c.any(type, NS, name)?.metadata.resourceVersion;

  it('is news, not an echo, when written: its event brings the reconcile that resolves the inputs', async () => {
    const { own, reconciler } = reconcilerOf([webFrontKind, memcachedKind]);
    own.putResource(webFrontKind, 'shop', { image: 'web:1', settings: 'shop-settings' }, NS);
    await reconciler.reconcile(webFrontKind, NS, 'shop');
    await reconciler.reconcile(webFrontKind, NS, 'shop');
    const service = version(own, SERVICE, 'shop');
    expect(service).toBeDefined();
    expect(reconciler.echoes().heard(objectKey(SERVICE, NS, 'shop'), service)).toBe(false);
    // A kind whose inputs read none of its children: its own writes come back as echoes.
    own.putResource(memcachedKind, 'cache', { size: 1 }, NS);
    await reconciler.reconcile(memcachedKind, NS, 'cache');
    const deployment = version(own, DEPLOYMENT, 'cache');
    expect(reconciler.echoes().heard(objectKey(DEPLOYMENT, NS, 'cache'), deployment)).toBe(true);
  });
});

describe('the install of a kind with inputs', () => {
  it('grants a read and a watch of the objects it reads by name (of that name where the kind fixes it), and no list of Secrets', () => {
    const rules = clusterRules([webFrontKind]).filter((r) => r.resources[0] === 'configmaps');
    // The ConfigMaps are its children too (the endpoint): their rules cover the input's read.
    expect(rules).toEqual([
      {
        apiGroups: [''],
        resources: ['configmaps'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
    ]);
    const reader = defineKind({
      apiVersion: 'reader.example.com/v1',
      kind: 'Reader',
      plural: 'readers',
      schema: { description: 'Reads a Secret.', spec: { type: 'object' } },
      children: [SERVICE],
      construct: Construct,
      inputs: {
        password: fromSecret({ name: (r) => r.metadata.name, key: 'password' }),
        token: fromSecret({ name: 'shared-token', key: 'token' }),
      },
    });
    // A Secret the spec names: `get` only (it is read again every 30 s); a fixed one is watched by name:
    // list and watch with `fieldSelector=metadata.name=NAME`, which the API server authorizes for that name.
    expect(clusterRules([reader]).filter((r) => r.resources[0] === 'secrets')).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['shared-token'],
        verbs: ['get', 'list', 'watch'],
      },
    ]);
  });
});
