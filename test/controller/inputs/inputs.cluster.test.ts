/**
 * Observed inputs on the local control plane: a WebFront (test/fixtures/kinds/web-front.ts) whose pods get
 * a theme from a ConfigMap of the user's, and whose ConfigMap `<name>-endpoint` carries the address its
 * LoadBalancer Service gets. kwok assigns no load balancer, so the test writes the Service's status as a
 * cloud controller would; the theme's ConfigMap is watched by name, and its changes follow without a list.
 * The controller runs with the install's derived RBAC (a 403 fails the test).
 * The decisions behind it are unit-tested in inputs.test.ts.
 */
import { join } from 'node:path';
import { webFrontKind } from '../../fixtures/kinds/web-front';
import { counter, type RunningController, startController } from '../../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  installCrds,
  kubectl,
  readyCondition,
  waitFor,
} from '../../support/kubectl';

jest.setTimeout(180_000);

const MODULE = join(__dirname, '../../fixtures/kinds/web-front.ts');
let ns: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  installCrds([webFrontKind]);
  ns = createNamespace('inputs');
  controller = await startController(['--kinds', MODULE, '--no-builtin-kinds', '--namespaces', ns]);
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
});

const address = (hostname: string) =>
  kubectl([
    'patch',
    'service',
    'shop',
    '-n',
    ns,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { loadBalancer: { ingress: [{ hostname }] } } }),
  ]);
const theme = () =>
  exists(['deployment', 'shop', '-n', ns])
    ? getJson<{ spec: { template: { spec: { containers: { env: { value: string }[] }[] } } } }>([
        'deployment',
        'shop',
        '-n',
        ns,
      ]).spec.template.spec.containers[0].env[0]?.value
    : undefined;
const lists = async () =>
  counter(await controller!.metrics(), 'reconstruct_api_requests_total', (l) => l.includes('verb="list"'));
const endpoint = () =>
  exists(['configmap', 'shop-endpoint', '-n', ns])
    ? getJson<{ data: { url: string } }>(['configmap', 'shop-endpoint', '-n', ns]).data.url
    : undefined;

it('applies what it can, waits for each input it lacks (said in Ready), and goes on as each is known', async () => {
  applyYaml(
    JSON.stringify({
      apiVersion: webFrontKind.apiVersion,
      kind: 'WebFront',
      metadata: { name: 'shop', namespace: ns },
      spec: { image: 'registry.invalid/web:1', settings: 'shop-settings' },
    }),
  );
  // The first reconciles after the CRD is installed: the API server may not map the kind for up to 30 s.
  await waitFor(() => exists(['service', 'shop', '-n', ns]), { what: 'the Service', timeoutMs: 60_000 });
  await waitFor(() => readyCondition('webfront', 'shop', ns)?.message?.includes('input theme') === true, {
    what: 'Ready naming the missing inputs',
  });
  expect(readyCondition('webfront', 'shop', ns)).toMatchObject({
    status: 'False',
    reason: 'Waiting',
    message:
      'ConfigMap shop-endpoint waits for input host: Service shop has no status.loadBalancer.ingress[0].hostname yet; ' +
      'Deployment shop waits for input theme: ConfigMap shop-settings does not exist yet',
  });
  expect(exists(['deployment', 'shop', '-n', ns])).toBe(false);
  expect(endpoint()).toBeUndefined();

  // The address comes: the Service's status event renders the resource again.
  const addressed = Date.now();
  address('lb-1.example.net');
  await waitFor(() => endpoint() === 'http://lb-1.example.net/', { what: 'the endpoint ConfigMap' });
  const took = (Date.now() - addressed) / 1000;
  console.log(`the endpoint ConfigMap written ${took.toFixed(1)} s after the Service got its address`);
  expect(took).toBeLessThan(10);

  // A new address: the ConfigMap follows.
  address('lb-2.example.net');
  await waitFor(() => endpoint() === 'http://lb-2.example.net/', { what: 'the new address' });

  // The theme's ConfigMap, made by the user: its watch by name (no list of ConfigMaps) renders the resource.
  const listsBefore = await lists();
  const settings = (theme: string) =>
    applyYaml(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'shop-settings', namespace: ns },
        data: { theme },
      }),
    );
  settings('dark');
  await waitFor(() => theme() === 'dark', { what: 'the Deployment with its theme' });
  // A change of it: the Deployment follows within seconds, with no resync and no list.
  const changed = Date.now();
  settings('light');
  await waitFor(() => theme() === 'light', { what: 'the Deployment with the new theme' });
  const followed = (Date.now() - changed) / 1000;
  console.log(`the Deployment followed its ConfigMap input ${followed.toFixed(1)} s after the change`);
  expect(followed).toBeLessThan(10);
  expect(await lists()).toBe(listsBefore);
  await waitFor(() => !readyCondition('webfront', 'shop', ns)?.message?.includes('input'), {
    what: 'Ready no longer waiting for inputs',
  });
});
