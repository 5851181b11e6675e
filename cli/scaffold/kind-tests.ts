/**
 * The tests of one scaffolded kind, as the new project's files: a snapshot and construct test, in-memory
 * reconcile tests (`cdk8s-reconstruct/testing`), and an in-cluster test on the project's cluster helpers.
 */
import { sampleName } from './layout';
import type { KindNames } from './names';

export function constructTest(n: KindNames): string {
  return `/**
 * A ${n.kind}'s children as \`reconstruct synth\` and the controller render them (the kit's \`synthesize\`):
 * a snapshot (the first run writes it to __snapshots__/; commit it, and a change to the children then
 * shows in review), and what a user would check by hand.
 */
import { synthesize } from 'cdk8s-reconstruct';
import { ${n.variable}Kind, ${n.variable}Schema, type ${n.kind}Spec } from '../../src/${n.folder}';

interface Manifest {
  kind: string;
  metadata: { name: string };
  spec?: any;
}

/**
 * Through the kit, not a bare \`Testing.chart()\`: the kit names each resource's chart after it, so what
 * cdk8s-plus derives from construct paths (the \`cdk8s.io/metadata.addr\` label a Service selects by) is
 * the resource's own, as in the cluster; and it adds its labels and refuses what the controller refuses.
 */
function render(spec: ${n.kind}Spec, name = 'shop'): Manifest[] {
  const resource = { apiVersion: ${n.variable}Kind.apiVersion, kind: ${n.variable}Kind.kind, metadata: { name }, spec };
  return synthesize(${n.variable}Kind, resource) as Manifest[];
}

function find(manifests: Manifest[], kind: string): Manifest {
  const found = manifests.find((m) => m.kind === kind);
  if (!found) throw new Error(\`no \${kind} in \${manifests.map((m) => m.kind).join(', ')}\`);
  return found;
}

const defaults = ${n.variable}Schema.spec.properties ?? {};

it('renders a Deployment and a Service named after the resource', () => {
  const manifests = render({ replicas: 2 });
  expect(manifests.map((m) => \`\${m.kind}/\${m.metadata.name}\`)).toEqual(['Deployment/shop', 'Service/shop']);
  expect(manifests).toMatchSnapshot();
});

it("fills in the schema's defaults", () => {
  const deployment = find(render({}), 'Deployment');
  const container = deployment.spec.template.spec.containers[0];
  expect(deployment.spec.replicas).toBe(defaults.replicas.default);
  expect(container.image).toBe(defaults.image.default);
  expect(container.ports).toEqual([{ name: 'http', containerPort: defaults.port.default }]);
});

it("selects this resource's pods, and no other resource's", () => {
  const shop = render({});
  const pods = find(shop, 'Deployment').spec.template.metadata.labels;
  expect(pods).toMatchObject({ 'app.kubernetes.io/instance': 'shop' });
  expect(find(shop, 'Deployment').spec.selector.matchLabels).toEqual(pods);
  expect(find(shop, 'Service').spec.selector).toEqual(pods);
  const blog = render({}, 'blog');
  expect(find(blog, 'Service').spec.selector).not.toEqual(pods);
});

it('serves spec.port', () => {
  const service = find(render({ port: 9000 }), 'Service');
  expect(service.spec.ports).toEqual([{ name: 'http', port: 9000, targetPort: 'http' }]);
});

it('refuses what the API server would refuse, naming the field', () => {
  expect(() => render({ replicas: -1 })).toThrow(/spec\\.replicas/);
  expect(() => render({}, 'Shop')).toThrow(/metadata\\.name/);
});
`;
}

export function reconcileTest(n: KindNames): string {
  return `/**
 * One reconcile of a ${n.kind} at a time, by the controller's own reconciler, against an in-memory cluster
 * (\`cdk8s-reconstruct/testing\`): the exact writes and the status, in milliseconds. The in-cluster test
 * (${n.folder}.cluster.test.ts) runs the same kind against a real API server.
 */
import { DEPLOYMENT } from 'cdk8s-reconstruct';
import { InMemoryCluster } from 'cdk8s-reconstruct/testing';
import { ${n.variable}Kind } from '../../src/${n.folder}';

const NS = 'default';
let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster([${n.variable}Kind]);
});

/** The writes since the last call, as \`verb Kind/name\`. */
const writes = () =>
  cluster
    .takeWrites()
    .map((w) => \`\${w.verb} \${w.kind}/\${w.name}\`)
    .sort();

/** What kube-controller-manager would write once \`replicas\` pods are available. */
const rolledOut = (replicas: number, generation = 1) =>
  cluster.patch(DEPLOYMENT, NS, 'shop', {
    status: { observedGeneration: generation, replicas, updatedReplicas: replicas, availableReplicas: replicas },
  });

it('creates the Deployment and the Service, then reports Ready once the pods are available', async () => {
  cluster.putResource(${n.variable}Kind, 'shop', { replicas: 2 }, NS);
  await cluster.reconcile(${n.variable}Kind, NS, 'shop');
  expect(writes()).toEqual(['apply Deployment/shop', 'apply Service/shop', 'status ${n.kind}/shop']);
  // Said at once, from what the applies answered: the Deployment has no pods yet.
  expect(cluster.ready(${n.variable}Kind, NS, 'shop')).toMatchObject({ status: 'False', reason: 'Progressing' });

  rolledOut(2);
  await cluster.reconcile(${n.variable}Kind, NS, 'shop');
  expect(cluster.ready(${n.variable}Kind, NS, 'shop')).toMatchObject({ status: 'True', reason: 'Ready' });
  expect(cluster.any(${n.variable}Kind, NS, 'shop')?.status).toMatchObject({ availableReplicas: 2 });

  // Converged: another reconcile writes nothing.
  writes();
  await cluster.reconcile(${n.variable}Kind, NS, 'shop');
  expect(writes()).toEqual([]);
});

it('scales the Deployment when spec.replicas changes, and leaves the Service alone', async () => {
  cluster.putResource(${n.variable}Kind, 'shop', { replicas: 2 }, NS);
  await cluster.reconcile(${n.variable}Kind, NS, 'shop');
  writes();
  cluster.setSpec(${n.variable}Kind, NS, 'shop', { replicas: 3 });
  await cluster.reconcile(${n.variable}Kind, NS, 'shop');
  // The status says which generation it describes: a new spec is a new generation.
  expect(writes()).toEqual(['apply Deployment/shop', 'status ${n.kind}/shop']);
  expect((cluster.any(DEPLOYMENT, NS, 'shop') as { spec?: { replicas?: number } }).spec?.replicas).toBe(3);
});

it('is refused at admission when the API server would refuse it', () => {
  expect(() => cluster.putResource(${n.variable}Kind, 'shop', { replicas: -1 }, NS)).toThrow(/spec\\.replicas/);
});
`;
}

export function clusterTest(n: KindNames): string {
  return `/**
 * A ${n.kind} in a real control plane, reconciled by \`reconstruct controller --kinds src/kinds.ts\` as a
 * child process: the sample applied, its children made and owned by it, Ready=True, then deleted.
 *
 *   npm run test:cluster    # reconstruct cluster run -- jest --selectProjects cluster --runInBand
 */
import { join } from 'path';
import {
  PROJECT,
  checkCluster,
  getJson,
  kubectl,
  readyCondition,
  startController,
  waitFor,
  type Controller,
} from '../support/cluster';

jest.setTimeout(180_000);

const SAMPLE = join(PROJECT, 'samples/${n.folder}.yaml');
const NAME = '${sampleName(n)}';
const RESOURCE = '${n.plural}.${n.group}';

let namespace: string;
let controller: Controller | undefined;

beforeAll(async () => {
  checkCluster();
  namespace = \`${n.folder.slice(0, 40)}-\${Date.now().toString(36)}\`;
  kubectl(['create', 'namespace', namespace]);
  controller = await startController();
  kubectl(['apply', '-n', namespace, '-f', SAMPLE]);
});

afterAll(async () => {
  await controller?.stop();
  if (namespace) kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const resource = () => getJson([RESOURCE, NAME, '-n', namespace]);
const child = (kind: string) => getJson([kind, NAME, '-n', namespace]);
const state = () => ({ status: resource()?.status, controllerLogs: controller?.logs().slice(-30) });

it('applies the Deployment and the Service, owned by the ${n.kind}, and becomes Ready', async () => {
  const { uid } = resource().metadata;
  const children = await waitFor(
    'the Deployment and the Service',
    () => {
      const found = { deployment: child('deployment'), service: child('service') };
      return found.deployment && found.service && found;
    },
    state,
  );
  for (const object of [children.deployment, children.service]) {
    expect(object.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: '${n.kind}', name: NAME, uid, controller: true }),
    ]);
  }
  const ready = await waitFor('Ready=True', () => readyCondition(resource())?.status === 'True', state);
  expect(ready).toBe(true);
  await waitFor('status.availableReplicas 2', () => resource()?.status?.availableReplicas === 2, state);
});

it('goes when deleted: the controller holds no finalizer on it', () => {
  // Its children go with it: they are owned by it (above), and the garbage collector deletes them, once
  // it has noticed the new CRD (which may take it half a minute in a new cluster).
  kubectl(['delete', RESOURCE, NAME, '-n', namespace, '--wait=true', '--timeout=60s']);
  expect(resource()).toBeUndefined();
});
`;
}
