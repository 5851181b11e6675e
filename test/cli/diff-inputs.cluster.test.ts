/**
 * `reconstruct diff` of a kind with observed inputs, on the local control plane: the inputs are read from
 * the cluster as the controller reads them, so the plan shows the child that holds a known input with its
 * value, and leaves out (as the controller would not apply it) the child whose input is not known yet.
 */
import { planChanges } from '../../cli/diff/dry-run';
import { loadClient } from '../../controller/kube/client';
import { webFrontKind } from '../fixtures/kinds/web-front';
import { applyYaml, createNamespace, deleteNamespace, installCrds } from '../support/kubectl';

jest.setTimeout(120_000);

let ns: string;
beforeAll(() => {
  installCrds([webFrontKind]);
  ns = createNamespace('diff-inputs');
});
afterAll(() => {
  if (ns) deleteNamespace(ns);
});

const front = () => ({
  apiVersion: webFrontKind.apiVersion,
  kind: 'WebFront',
  metadata: { name: 'shop', namespace: ns },
  spec: { image: 'registry.invalid/web:1', settings: 'shop-settings' },
});
const plan = async () => {
  const { changes } = await planChanges(loadClient({}), webFrontKind, front());
  return changes.map((c) => ({ child: `${c.type.kind}/${c.name}`, after: c.after }));
};
const env = (after: unknown) =>
  (after as { spec: { template: { spec: { containers: { env: unknown[] }[] } } } }).spec.template.spec
    .containers[0].env;

it('reads the live inputs: a known one is in the plan with its value, a child waiting is not', async () => {
  // No settings ConfigMap yet, no address: the Deployment and the endpoint ConfigMap wait.
  expect((await plan()).map((c) => c.child).sort()).toEqual(['Service/shop', 'WebFront/shop']);

  applyYaml(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shop-settings', namespace: ns },
      data: { theme: 'sepia' },
    }),
  );
  const changes = await plan();
  expect(changes.map((c) => c.child).sort()).toEqual(['Deployment/shop', 'Service/shop', 'WebFront/shop']);
  expect(env(changes.find((c) => c.child === 'Deployment/shop')?.after)).toEqual([
    { name: 'THEME', value: 'sepia' },
  ]);
});
