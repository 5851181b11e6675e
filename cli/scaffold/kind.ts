/**
 * The files of one scaffolded kind: `src/<kind>/` (schema, construct, definition, generated types), its CRD,
 * a sample, and its tests (snapshot, in-memory reconcile, in-cluster: ./kind-tests). The kind is small but real: a
 * Deployment and a Service selecting this resource's pods only, a status field and the kit's Ready rollup.
 *
 * The schema is data here, written into `schema.ts` with `tsLiteral` and given to `defineKind` in-process, so
 * the CRD and types.generated.ts come from `reconstruct gen`'s own code (`renderArtifacts`) and
 * `reconstruct gen --check` in the new project agrees with them.
 */
import { Construct } from 'constructs';
import { DEPLOYMENT, SERVICE, defineKind, type KindSchema } from '../../constructs/kit';
import { renderArtifacts } from '../../synth/artifacts';
import { clusterTest, constructTest, reconcileTest } from './kind-tests';
import { CRDS_DIR, TYPES_PATTERN, sampleName } from './layout';
import type { KindNames } from './names';
import { tsLiteral } from './ts-literal';

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
