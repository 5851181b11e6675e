/**
 * Balancer's versions on the local control plane, with the built-in kinds' controller serving the
 * conversion webhook (SPEC.md, Balancer "v1beta1"): a v1alpha1 balancer reads as v1beta1 with one replica;
 * a v1beta1 one with three reads as v1alpha1 and, written back so, keeps its three; `kubectl scale` scales
 * the proxy Deployment, and the scale subresource reports the pods and their selector.
 */
import { type RunningController, startController } from '../support/controller';
import { applyYaml, createNamespace, deleteNamespace, getJson, kubectl, waitFor } from '../support/kubectl';

jest.setTimeout(120_000);

const ALPHA = 'balancers.v1alpha1.exposer.hliangzhao.io';
const BETA = 'balancers.v1beta1.exposer.hliangzhao.io';
const spec = {
  ports: [{ name: 'http', port: 80 }],
  selector: { app: 'shop' },
  backends: [{ name: 'a', weight: 1 }],
};

let ns: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  ns = createNamespace('balancer-versions');
  controller = await startController(['--namespaces', ns]);
});
afterAll(async () => {
  await controller?.stop();
  if (ns) deleteNamespace(ns);
});

const balancer = (apiVersion: string, name: string, s: object) =>
  JSON.stringify({ apiVersion, kind: 'Balancer', metadata: { name, namespace: ns }, spec: s });
const specOf = (resource: string, name: string) =>
  getJson<{ spec: Record<string, unknown> }>([resource, name, '-n', ns]).spec;

it('reads a balancer created as v1alpha1 as v1beta1 with one replica', () => {
  applyYaml(balancer('exposer.hliangzhao.io/v1alpha1', 'old', spec));
  expect(specOf(BETA, 'old')).toMatchObject({ ...spec, replicas: 1 });
});

it('keeps replicas: 3 of a v1beta1 balancer read and written back as v1alpha1', () => {
  applyYaml(balancer('exposer.hliangzhao.io/v1beta1', 'new', { ...spec, replicas: 3 }));
  // Read and written back as a user would, again when the controller wrote its status in between.
  for (let attempt = 0; ; attempt++) {
    const asAlpha = getJson<{ spec: Record<string, unknown> }>([ALPHA, 'new', '-n', ns]);
    expect(asAlpha.spec).not.toHaveProperty('replicas');
    const replaced = kubectl(['replace', '-f', '-'], { input: JSON.stringify(asAlpha), allowFail: true });
    if (replaced.code === 0) break;
    expect(replaced.stderr).toMatch(/Conflict/);
    expect(attempt).toBeLessThan(5);
  }
  expect(specOf(BETA, 'new').replicas).toBe(3);
});

it('scales the proxy Deployment with kubectl scale, and reports the pods through the scale subresource', async () => {
  kubectl(['scale', 'balancer', 'old', '-n', ns, '--replicas', '3']);
  await waitFor(
    () => getJson<{ spec: { replicas: number } }>(['deployment', 'oldproxy', '-n', ns]).spec.replicas === 3,
    { what: 'the proxy Deployment to have 3 replicas' },
  );
  const scale = await waitFor(
    () => {
      const s = getJson<{ spec: { replicas: number }; status: { replicas?: number; selector?: string } }>([
        'balancer',
        'old',
        '-n',
        ns,
        '--subresource=scale',
      ]);
      return s.status.replicas === 3 ? s : undefined;
    },
    { what: 'the scale subresource to report 3 replicas', timeoutMs: 60_000 },
  );
  expect(scale.spec.replicas).toBe(3);
  expect(scale.status.selector).toBe('balancer.exposer.hliangzhao.io/balancer-name=old');
});
