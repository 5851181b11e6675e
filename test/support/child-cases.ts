/**
 * The children test/synth/child-validation.cluster.test.ts sends to the API server: a valid child of each
 * kind with random choices (`validChild`), and mutations of it (`Mutation`): harmless ones (`VALID`),
 * ones driven by the kind's schema at a random place (`schemaMutations`) and ones aimed at the checks of
 * the API server's Go validation (`TARGETED`). Each mutation says what it did, for the test's report.
 */
import type { ApiKind, Manifest } from '../../constructs/kit';
import { isObject, type Json, type JsonObject } from '../../constructs/kit/defaults';
import type { JSONSchemaProps } from '../../constructs/kit/schema';

export type Random = () => number;
export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

function podSpec(random: Random, restartPolicy?: string): JsonObject {
  const container: JsonObject = {
    name: pick(random, ['app', 'web', 'worker']),
    image: 'nginx:1.27',
    ports: [{ containerPort: 1 + Math.floor(random() * 65535), name: 'http' }],
    env: Array.from({ length: Math.floor(random() * 3) }, (_, i) => ({ name: `VAR_${i}`, value: String(i) })),
    resources: {
      requests: {
        cpu: pick(random, ['100m', '0.5', 1, '2']),
        memory: pick(random, ['64Mi', '1G', '128974848']),
      },
    },
  };
  if (random() < 0.5) container.imagePullPolicy = pick(random, ['Always', 'IfNotPresent', 'Never']);
  return { containers: [container], ...(restartPolicy ? { restartPolicy } : {}) };
}

/**
 * A valid child of `kind`, with random choices where the API server takes many, for a resource named
 * `owner`.
 */
export function validChild(random: Random, kind: ApiKind, name: string, ns: string, owner: string): Manifest {
  const app = pick(random, ['shop', 'blog', 'a.b-c_d']);
  // The owner's name in the pods' labels, as the kit asks of a selector (synthesize's checkSelectors).
  const labels = { app, 'example.com/owner': owner };
  const selector = { matchLabels: labels };
  const template = (restartPolicy?: string) => ({
    metadata: { labels },
    spec: podSpec(random, restartPolicy),
  });
  const specs: Record<string, () => JsonObject> = {
    ConfigMap: () => ({ data: { 'app.conf': 'x', '.hidden': 'y' } }),
    Secret: () => ({ type: 'Opaque', stringData: { password: 'x' } }),
    Service: () => ({
      spec: {
        selector: labels,
        type: pick(random, ['ClusterIP', 'NodePort']),
        ports: [
          { name: 'http', port: 1 + Math.floor(random() * 65535), targetPort: pick(random, [8080, 'http']) },
        ],
      },
    }),
    ServiceAccount: () => ({}),
    PersistentVolumeClaim: () => ({
      spec: {
        accessModes: [pick(random, ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'])],
        resources: { requests: { storage: pick(random, ['1Gi', '500M', 1073741824]) } },
      },
    }),
    Deployment: () => ({
      spec: {
        replicas: Math.floor(random() * 5),
        selector,
        template: template(),
        strategy: { type: 'RollingUpdate' },
      },
    }),
    StatefulSet: () => ({
      spec: {
        serviceName: name,
        selector,
        template: template(),
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    }),
    DaemonSet: () => ({ spec: { selector, template: template() } }),
    Job: () => ({
      spec: {
        backoffLimit: Math.floor(random() * 6),
        template: template(pick(random, ['Never', 'OnFailure'])),
      },
    }),
    CronJob: () => ({
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: template(pick(random, ['Never', 'OnFailure'])) } },
      },
    }),
    Ingress: () => ({
      spec: {
        rules: [
          {
            host: 'docs.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: pick(random, ['Prefix', 'Exact']),
                  backend: { service: { name, port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    }),
    NetworkPolicy: () => ({ spec: { podSelector: selector, policyTypes: ['Ingress'] } }),
    PodDisruptionBudget: () => ({ spec: { selector, minAvailable: pick(random, [1, '50%']) } }),
    HorizontalPodAutoscaler: () => ({
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas: 1,
        maxReplicas: 3,
      },
    }),
    Role: () => ({ rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }),
    RoleBinding: () => ({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
    }),
  };
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name },
    ...specs[kind.kind](),
  };
}

/** Every place in `value` below its root's `metadata`, with its schema: where a mutation may go. */
function places(
  value: unknown,
  s: JSONSchemaProps,
  path: (string | number)[] = [],
): [(string | number)[], unknown, JSONSchemaProps][] {
  const here: [(string | number)[], unknown, JSONSchemaProps][] = path.length > 0 ? [[path, value, s]] : [];
  if (Array.isArray(value) && s.items) {
    const items = s.items;
    return [...here, ...value.flatMap((v, i) => places(v, items, [...path, i]))];
  }
  if (!isObject(value)) return here;
  return [
    ...here,
    ...Object.entries(value).flatMap(([k, v]) => {
      if (path.length === 0 && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) return [];
      const prop =
        s.properties?.[k] ??
        (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      return prop ? places(v, prop, [...path, k]) : [];
    }),
  ];
}

function setAt(root: object, path: (string | number)[], value: Json | undefined): void {
  let node = root as Record<string | number, Json>;
  for (const part of path.slice(0, -1)) node = node[part] as Record<string | number, Json>;
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
}

/** A value of the wrong type for schema `s`. */
function wrongType(random: Random, s: JSONSchemaProps): Json {
  if (s['x-kubernetes-int-or-string'] || s.format === 'quantity')
    return pick(random, [true, { a: 1 }, ['1']]);
  switch (s.type) {
    case 'string':
      return pick(random, [12345, true, { a: 'b' }]);
    case 'integer':
      return pick(random, ['seven', true, 1.5]);
    case 'number':
      return pick(random, ['seven', true]);
    case 'boolean':
      return pick(random, ['yes', 1]);
    case 'array':
      return pick(random, [{ a: 1 }, 'x']);
    default:
      return pick(random, ['x', [1]]);
  }
}

export type Mutation = (random: Random, child: Manifest) => string | undefined;

/** Mutations by the child's schema, at a random place; undefined when the child has no place for it. */
export function schemaMutations(schema: JSONSchemaProps): Mutation[] {
  const at = (child: Manifest, want: (value: unknown, s: JSONSchemaProps) => boolean, random: Random) => {
    const found = places(child, schema).filter(([, v, s]) => want(v, s));
    return found.length === 0 ? undefined : pick(random, found);
  };
  const where = (path: (string | number)[]) => path.join('.');
  return [
    (random, child) => {
      const place = at(
        child,
        (v, s) => v !== null && (s.type !== undefined || s.format === 'quantity'),
        random,
      );
      if (!place) return undefined;
      const value = wrongType(random, place[2]);
      setAt(child, place[0], value);
      return `wrong type at ${where(place[0])}: ${JSON.stringify(value)}`;
    },
    (random, child) => {
      const place = at(child, (v, s) => isObject(v) && (s.required ?? []).some((r) => r in v), random);
      if (!place) return undefined;
      const field = pick(
        random,
        (place[2].required ?? []).filter((r) => r in (place[1] as JsonObject)),
      );
      setAt(child, [...place[0], field], undefined);
      return `required ${where([...place[0], field])} removed`;
    },
    (random, child) => {
      const place = at(child, (v, s) => typeof v === 'string' && (s.enum?.length ?? 0) > 0, random);
      if (!place) return undefined;
      setAt(child, place[0], 'Bogus');
      return `${where(place[0])} outside its enum`;
    },
    (random, child) => {
      const place = at(
        child,
        (v, s) => isObject(v) && !!s.properties && !s['x-kubernetes-preserve-unknown-fields'],
        random,
      );
      if (!place) return undefined;
      setAt(child, [...place[0], 'bogusField'], 1);
      return `unknown field ${where([...place[0], 'bogusField'])}`;
    },
    (random, child) => {
      const place = at(child, (v, s) => typeof v === 'number' && s.format === 'int32', random);
      if (!place) return undefined;
      setAt(child, place[0], 3_000_000_000);
      return `${where(place[0])} over int32`;
    },
    (random, child) => {
      const place = at(
        child,
        (v, s) =>
          isObject(v) && (s.required ?? []).some((r) => typeof v[r] === 'string' || Array.isArray(v[r])),
        random,
      );
      if (!place) return undefined;
      const object = place[1] as JsonObject;
      const field = pick(
        random,
        (place[2].required ?? []).filter((r) => typeof object[r] === 'string' || Array.isArray(object[r])),
      );
      setAt(child, [...place[0], field], typeof object[field] === 'string' ? '' : []);
      return `required ${where([...place[0], field])} empty`;
    },
  ];
}

/** The pod template of a child, if it has one. */
function templateOf(child: Manifest): JsonObject | undefined {
  const spec = child.spec as JsonObject | undefined;
  const template =
    child.kind === 'CronJob'
      ? ((spec?.jobTemplate as JsonObject)?.spec as JsonObject)?.template
      : spec?.template;
  return isObject(template) ? template : undefined;
}

/** Mutations aimed at what Go's validation checks and the schema does not say. */
export const TARGETED: Mutation[] = [
  (random, child) => {
    const max =
      child.kind === 'Service' ? 63 : child.kind === 'Job' ? 63 : child.kind === 'CronJob' ? 52 : 253;
    const length = max + 1 + Math.floor(random() * 3) - (random() < 0.5 ? 1 : 0);
    child.metadata.name = 'n'.repeat(length);
    return `name of ${length} characters`;
  },
  (random, child) => {
    if (child.kind !== 'Job' && child.kind !== 'CronJob') return undefined;
    const base = 'm'.repeat(child.kind === 'Job' ? 56 : 45);
    child.metadata.name = `${base}-${pick(random, ['migrate', 'mig', 'migra'])}`;
    return `${child.kind} name of ${child.metadata.name.length} characters`;
  },
  (random, child) => {
    if (child.kind !== 'PersistentVolumeClaim') return undefined;
    const spec = child.spec as JsonObject;
    const variant = pick(random, ['requests {}', 'storage 0', 'no accessModes']);
    if (variant === 'requests {}') spec.resources = { requests: {} };
    else if (variant === 'storage 0') spec.resources = { requests: { storage: '0' } };
    else spec.accessModes = [];
    return variant;
  },
  (random, child) => {
    const template = templateOf(child);
    if (!template || child.kind === 'Job' || child.kind === 'CronJob') return undefined;
    template.metadata = { labels: { app: pick(random, ['other', 'x']) } };
    return 'template labels the selector misses';
  },
  (random, child) => {
    const template = templateOf(child);
    if (!template) return undefined;
    const labels = (template.metadata as JsonObject).labels as JsonObject;
    if (random() < 0.5) labels['a b'] = 'x';
    else labels.long = 'l'.repeat(64);
    return 'a bad template label';
  },
  (random, child) => {
    const template = templateOf(child);
    if (!template) return undefined;
    const containers = (template.spec as JsonObject).containers as JsonObject[];
    const variant = pick(random, ['App_1', 'duplicate', 'init duplicate']);
    if (variant === 'App_1') containers[0].name = 'App_1';
    else if (variant === 'duplicate') containers.push({ ...containers[0], ports: [] });
    else
      (template.spec as JsonObject).initContainers = [
        { name: containers[0].name as string, image: 'busybox' },
      ];
    return `container name: ${variant}`;
  },
  (random, child) => {
    const template = templateOf(child);
    if (!template) return undefined;
    const policy = pick(random, ['Always', 'OnFailure', 'Never']);
    (template.spec as JsonObject).restartPolicy = policy;
    return `restartPolicy ${policy}`;
  },
  (random, child) => {
    const template = templateOf(child);
    const container = template && ((template.spec as JsonObject).containers as JsonObject[])[0];
    if (container) {
      const variant = pick(random, ['port 0', 'port 70000', 'quantity']);
      if (variant === 'quantity')
        container.resources = { limits: { memory: pick(random, ['lots', '1Gb', '--1']) } };
      else container.ports = [{ containerPort: variant === 'port 0' ? 0 : 70000 }];
      return `container ${variant}`;
    }
    if (child.kind === 'Service') {
      const ports = (child.spec as JsonObject).ports as JsonObject[];
      ports[0].port = pick(random, [0, 70000]);
      return `service port ${String(ports[0].port)}`;
    }
    if (child.kind === 'ConfigMap') {
      child.data = { [pick(random, ['a/b', 'a b', '..'])]: 'x' };
      return 'bad ConfigMap key';
    }
    return undefined;
  },
  (random, child) => {
    const spec = child.spec as JsonObject | undefined;
    if (!spec || !isObject(spec.selector) || child.kind === 'Service') return undefined;
    spec.selector = random() < 0.5 ? {} : { matchLabels: {} };
    return 'empty selector';
  },
];

/** Harmless variations: the API server takes them, and so must the renderer. */
export const VALID: Mutation[] = [
  (random, child) => {
    child.metadata.labels = { tier: pick(random, ['web', 'db', '']), 'example.com/team': 'a' };
    return 'labels';
  },
  (random, child) => {
    child.metadata.annotations = { 'example.com/note': pick(random, ['', 'x'.repeat(1000), 'yes']) };
    return 'annotations';
  },
  (_, child) => {
    child.metadata.name = 'v'.repeat(
      child.kind === 'Service' || child.kind === 'Job' ? 63 : child.kind === 'CronJob' ? 52 : 200,
    );
    return 'longest name';
  },
];
