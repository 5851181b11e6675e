/**
 * Selectors that cannot cross resources, on the local control plane: two resources of a kind written as
 * cdk8s-plus invites (test/fixtures/kinds/web-app.ts) in one namespace, reconciled by the controller
 * (`reconstruct controller --kinds`). Each Service's endpoints are its own resource's pods only, and a
 * Deployment an autoscaler targets is created with the spec's replicas and left to the autoscaler after.
 */
import { join } from 'node:path';
import { cacheClusterKind, webAppKind, type WebAppSpec } from '../fixtures/kinds/web-app';
import { type RunningController, startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  installCrds,
  kubectl,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

const MODULE = join(__dirname, '../fixtures/kinds/web-app.ts');

let ns: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  installCrds([webAppKind, cacheClusterKind]);
  ns = createNamespace('selectors');
  controller = await startController(['--kinds', MODULE, '--no-builtin-kinds', '--namespaces', ns]);
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

const apply = (kind: string, name: string, spec: object) =>
  applyYaml(
    JSON.stringify({ apiVersion: webAppKind.apiVersion, kind, metadata: { name, namespace: ns }, spec }),
  );

interface EndpointSlices {
  items: { endpoints?: { targetRef?: { kind: string; name: string } }[] }[];
}
/** The pods behind a Service, as its EndpointSlices list them. */
const endpointPods = (service: string) =>
  getJson<EndpointSlices>(['endpointslices', '-n', ns, '-l', `kubernetes.io/service-name=${service}`])
    .items.flatMap((slice) => slice.endpoints ?? [])
    .map((e) => e.targetRef?.name ?? '?')
    .sort();
/** The pods a workload owns, through its ReplicaSet or directly, by name. */
const podsOf = (prefix: string) =>
  getJson<{ items: { metadata: { name: string } }[] }>(['pods', '-n', ns])
    .items.map((p) => p.metadata.name)
    .filter((name) => name.startsWith(`${prefix}-`))
    .sort();

it("sends each WebApp's Service to its own pods only, with two WebApps in one namespace", async () => {
  const spec: WebAppSpec = { image: 'nginx:1.27', replicas: 2 };
  apply('WebApp', 'docs', spec);
  apply('WebApp', 'blog', spec);
  // The first test after the CRD is installed: the API server may not map the kind for up to 30 s.
  await waitFor(() => endpointPods('docs').length === 2 && endpointPods('blog').length === 2, {
    what: 'two endpoints behind each Service',
    timeoutMs: 120_000,
  });
  expect(podsOf('docs')).toHaveLength(2);
  expect(endpointPods('docs')).toEqual(podsOf('docs'));
  expect(endpointPods('blog')).toEqual(podsOf('blog'));
});

it("gives each CacheCluster's headless Service its own members only", async () => {
  apply('CacheCluster', 'alpha', { replicas: 2 });
  apply('CacheCluster', 'beta', { replicas: 1 });
  const serviceOf = (name: string) =>
    getJson<{ spec: { serviceName: string } }>(['statefulset', name, '-n', ns]).spec.serviceName;
  await waitFor(
    () => {
      try {
        return endpointPods(serviceOf('alpha')).length === 2 && endpointPods(serviceOf('beta')).length === 1;
      } catch {
        return false;
      }
    },
    { what: 'the members behind each headless Service', timeoutMs: 120_000 },
  );
  expect(endpointPods(serviceOf('alpha'))).toEqual(['alpha-0', 'alpha-1']);
  expect(endpointPods(serviceOf('beta'))).toEqual(['beta-0']);
});

it('creates an autoscaled Deployment with the spec replicas, then leaves them to the autoscaler', async () => {
  apply('WebApp', 'shop', { image: 'nginx:1.27', replicas: 3, maxReplicas: 6 });
  const replicas = () =>
    getJson<{ spec: { replicas: number } }>(['deployment', 'shop', '-n', ns]).spec.replicas;
  await waitFor(
    () => {
      try {
        return replicas() === 3;
      } catch {
        return false;
      }
    },
    { what: 'the Deployment with 3 replicas' },
  );
  expect(getJson<{ spec: { maxReplicas: number } }>(['hpa', 'shop', '-n', ns]).spec.maxReplicas).toBe(6);
  // What the autoscaler would do, then a spec change that rolls the Deployment.
  kubectl(['scale', 'deployment', 'shop', '-n', ns, '--replicas', '5']);
  apply('WebApp', 'shop', { image: 'nginx:1.28', replicas: 3, maxReplicas: 6 });
  const image = () =>
    getJson<{ spec: { template: { spec: { containers: { image: string }[] } } } }>([
      'deployment',
      'shop',
      '-n',
      ns,
    ]).spec.template.spec.containers[0].image;
  await waitFor(() => image() === 'nginx:1.28', { what: 'the new image' });
  expect(replicas()).toBe(5);
});
