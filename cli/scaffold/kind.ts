/**
 * The files of one scaffolded kind: `src/<kind>/` (schema, construct, definition, generated types), its CRD,
 * a sample, and its tests (snapshot, in-memory reconcile, in-cluster). The kind is small but real: a
 * Deployment and a Service selecting this resource's pods only, a status field and the kit's Ready rollup.
 *
 * The schema is data here, written into `schema.ts` with `tsLiteral` and given to `defineKind` in-process, so
 * the CRD and types.generated.ts come from `reconstruct gen`'s own code (`renderArtifacts`) and
 * `reconstruct gen --check` in the new project agrees with them.
 */
import { Construct } from 'constructs';
import { DEPLOYMENT, SERVICE, defineKind, type KindSchema } from '../../constructs/kit';
import { renderArtifacts } from '../../synth/artifacts';
import type { KindNames } from './names';
import { tsLiteral } from './ts-literal';

/** Where the kinds' generated types go, as `reconstruct gen --types` takes it. */
export const TYPES_PATTERN = 'src/{kind}/types.generated.ts';
/** The CRD folder, as `reconstruct gen --crds` and `reconstruct cluster up` take it. */
export const CRDS_DIR = 'crds';

/** The scaffolded kind's CRD schema: the defaults live here, once. */
export function kindSchema(n: KindNames): KindSchema {
  return {
    description: `A ${n.kind}: a Deployment of \`replicas\` pods running \`image\`, and a Service in front of them.`,
    spec: {
      type: 'object',
      properties: {
        replicas: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          maximum: 100,
          default: 1,
          description: 'Number of pods.',
        },
        image: {
          type: 'string',
          minLength: 1,
          default: 'nginxinc/nginx-unprivileged:1.27-alpine',
          description: 'Container image of the pods; it listens on `port` as a non-root user.',
        },
        port: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: 65535,
          default: 8080,
          description: 'Port the container listens on, and the Service serves.',
        },
      },
    },
    status: {
      availableReplicas: {
        type: 'integer',
        format: 'int32',
        description: 'Pods that are ready to serve.',
      },
    },
    columns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
    ],
  };
}

function schemaFile(n: KindNames): string {
  return `import type { KindSchema } from 'cdk8s-reconstruct';

/**
 * The CRD schema of ${n.kind}: the source of its CRD YAML (crds/) and its types (types.generated.ts), which
 * \`npm run gen\` writes. Defaults and checks live here, once: the construct reads the spec with \`admitSpec\`.
 */
export const ${n.variable}Schema: KindSchema = ${tsLiteral(kindSchema(n))};
`;
}

function constructFile(n: KindNames): string {
  return `import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { admitSpec, checkServiceName, type ResourceProps } from 'cdk8s-reconstruct';
import { ${n.variable}Schema } from './schema';
import type { ${n.kind}Spec, ${n.kind}SpecWithDefaults } from './types.generated';

export type ${n.kind}Props = ResourceProps<${n.kind}Spec>;

/**
 * A ${n.kind}: a Deployment \`<name>\` of \`spec.replicas\` pods running \`spec.image\`, and a Service
 * \`<name>\` in front of them on \`spec.port\`.
 *
 * The pods are labelled \`app.kubernetes.io/name: ${n.folder}\` and \`app.kubernetes.io/instance: <name>\`,
 * and both the Deployment and the Service select them by these labels: a Service selects the pods of
 * its own resource and no other. The labels are written here, not derived from construct paths, so the
 * children are the same whoever builds the chart.
 *
 * Like every construct of a kind, it is pure: no I/O, clock or randomness; the same name and spec always
 * give the same children.
 */
export class ${n.kind} extends Construct {
  /** \`<name>\`: the pods. */
  readonly deployment: k8s.KubeDeployment;
  /** \`<name>\`: port \`spec.port\` to the pods' port \`http\`. */
  readonly service: k8s.KubeService;

  constructor(scope: Construct, id: string, props: ${n.kind}Props) {
    super(scope, id);
    const { name } = props;
    // The schema's defaults filled in, and the spec checked as the API server would check it.
    const spec = admitSpec<${n.kind}Spec, ${n.kind}SpecWithDefaults>(this, ${n.variable}Schema.spec, props.spec);
    // Only what the schema cannot say: the Service's name is a DNS-1035 label.
    checkServiceName(name, 'metadata.name', 'the Deployment and Service name');
    const podLabels = { 'app.kubernetes.io/name': '${n.folder}', 'app.kubernetes.io/instance': name };

    this.deployment = new k8s.KubeDeployment(this, 'deployment', {
      metadata: { name },
      spec: {
        replicas: spec.replicas,
        selector: { matchLabels: podLabels },
        template: {
          metadata: { labels: podLabels },
          spec: {
            automountServiceAccountToken: false,
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'app',
                image: spec.image,
                ports: [{ name: 'http', containerPort: spec.port }],
                readinessProbe: { httpGet: { path: '/', port: k8s.IntOrString.fromString('http') } },
                resources: {
                  requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('32Mi') },
                  limits: { memory: k8s.Quantity.fromString('64Mi') },
                },
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        },
      },
    });

    this.service = new k8s.KubeService(this, 'service', {
      metadata: { name },
      spec: {
        selector: podLabels,
        ports: [{ name: 'http', port: spec.port, targetPort: k8s.IntOrString.fromString('http') }],
      },
    });
  }
}
`;
}

function definitionFile(n: KindNames): string {
  return `/**
 * ${n.kind} (\`${n.group}/${n.version}\`): a Deployment and a Service in front of it. Ready once every
 * child is (the kit's rollup: the Deployment rolled out, the Service there); \`status.availableReplicas\`
 * counts the pods ready to serve.
 *
 * src/kinds.ts lists this kind: that module is what \`reconstruct ... --kinds src/kinds.ts\` loads.
 */
import { DEPLOYMENT, SERVICE, customResourceClass, defineKind } from 'cdk8s-reconstruct';
import { ${n.kind} } from './${n.folder}';
import { ${n.variable}Schema } from './schema';
import type { ${n.kind}Spec, ${n.kind}SpecWithDefaults, ${n.kind}Status } from './types.generated';

export * from './${n.folder}';
export { ${n.variable}Schema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<${n.kind}Status, 'availableReplicas'>;

export const ${n.variable}Kind = defineKind<${n.kind}Spec, OwnStatus, ${n.kind}SpecWithDefaults>({
  apiVersion: '${n.group}/${n.version}',
  kind: '${n.kind}',
  plural: '${n.plural}',
  schema: ${n.variable}Schema,
  construct: ${n.kind},
  // Every kind of object the construct may make: what the controller watches and prunes, and RBAC grants.
  children: [DEPLOYMENT, SERVICE],
  status({ resource, view }) {
    const { name, namespace } = resource.metadata;
    const deployment = view.get(DEPLOYMENT, namespace, name);
    const available = (deployment?.status as { availableReplicas?: number } | undefined)?.availableReplicas;
    return { availableReplicas: available ?? 0 };
  },
});

/** A ${n.kind} custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class ${n.kind}Resource extends customResourceClass(${n.variable}Kind) {}
`;
}

/** The sample's resource name: kubebuilder's `<kind>-sample`. */
export function sampleName(n: KindNames): string {
  return `${n.folder}-sample`;
}

function sampleFile(n: KindNames): string {
  return `# A ${n.kind} of two pods; image and port take the schema's defaults.
apiVersion: ${n.group}/${n.version}
kind: ${n.kind}
metadata:
  name: ${sampleName(n)}
spec:
  replicas: 2
`;
}

function constructTest(n: KindNames): string {
  return `/**
 * The ${n.kind} construct as cdk8s renders it: a snapshot (the first run writes it to __snapshots__/;
 * commit it, and a change to the children then shows in review), and what a user would check by hand.
 */
import { Testing } from 'cdk8s';
import { ${n.kind}, ${n.variable}Schema, type ${n.kind}Spec } from '../../src/${n.folder}';

interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: any;
}

function render(spec: ${n.kind}Spec, name = 'shop'): Manifest[] {
  const chart = Testing.chart();
  new ${n.kind}(chart, '${n.folder}', { name, spec });
  return Testing.synth(chart) as Manifest[];
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

function reconcileTest(n: KindNames): string {
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
  expect(writes()).toEqual(['apply Deployment/shop', 'apply Service/shop']);

  await cluster.reconcile(${n.variable}Kind, NS, 'shop');
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

function clusterTest(n: KindNames): string {
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

/**
 * The files of kind `n`, by path in the project: the sources, the tests, the sample, and the CRD and types
 * `reconstruct gen` would write for them.
 */
export async function kindFiles(n: KindNames): Promise<Map<string, string>> {
  const src = `src/${n.folder}`;
  const test = `test/${n.folder}`;
  const files = new Map<string, string>([
    [`${src}/schema.ts`, schemaFile(n)],
    [`${src}/${n.folder}.ts`, constructFile(n)],
    [`${src}/index.ts`, definitionFile(n)],
    [`samples/${n.folder}.yaml`, sampleFile(n)],
    [`${test}/${n.folder}.test.ts`, constructTest(n)],
    [`${test}/reconcile.test.ts`, reconcileTest(n)],
    [`${test}/${n.folder}.cluster.test.ts`, clusterTest(n)],
  ]);
  // The definition as index.ts writes it, but for the construct: the CRD and the types do not depend on it.
  const kind = defineKind({
    apiVersion: `${n.group}/${n.version}`,
    kind: n.kind,
    plural: n.plural,
    schema: kindSchema(n),
    construct: class extends Construct {},
    children: [DEPLOYMENT, SERVICE],
    status: () => ({ availableReplicas: 0 }),
  });
  for (const [path, content] of await renderArtifacts([kind], { crds: CRDS_DIR, types: TYPES_PATTERN })) {
    files.set(path, content);
  }
  return files;
}
