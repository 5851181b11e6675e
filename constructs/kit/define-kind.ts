/**
 * `defineKind`: everything about one custom-resource kind in one definition — its CRD schema, the
 * construct that synthesizes a resource's children, its status and what Ready means, what else it
 * watches, and its work on other objects (with a finalizer). The renderer, the controller, the install
 * manifests and the tests take a list of such kinds and name none. Over 400 lines: the options' JSDoc is
 * the kind author's reference, and the checks sit beside what they check.
 */
import type { Construct } from 'constructs';
import { isApiKind, isWriteOnly, type ApiKind } from './api-kind';
import { childrenReadiness } from './child-readiness';
import type { ClusterView, ExtraWatch, Readiness, SyncStep } from './cluster-view';
import { withDefaults } from './defaults';
import { permissionProblems, type KindPermission } from './permission';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName } from './names';
import { MAX_NAME_LENGTH, type CustomResource, type Manifest, type ResourceProps } from './resource';
import {
  ageColumn,
  commonStatus,
  createdChildrenSchema,
  readyColumn,
  type CustomResourceDefinition,
  type JSONSchemaProps,
  type PrinterColumn,
  type ValidationRule,
} from './schema';

/** The category every kind's CRD carries: `kubectl get reconstruct` lists the resources of every kind. */
export const KIND_CATEGORY = 'reconstruct';

/** The CRD schema of a kind, from which its CRD YAML and its spec and status types are generated. */
export interface KindSchema {
  /** What a resource of this kind is, for `kubectl explain`. */
  readonly description: string;
  /** The schema of `spec`: an object. Defaults live here, once; the construct reads them. */
  readonly spec: JSONSchemaProps;
  /** The kind's own status fields; `observedGeneration` and `conditions` are added. */
  readonly status?: Record<string, JSONSchemaProps>;
  /** CEL rules on the whole object, for checks that span metadata and spec. */
  readonly rules?: ValidationRule[];
  /** Printer columns; `Ready` and `Age` are added at the end unless given. */
  readonly columns?: PrinterColumn[];
}

/** The construct of a kind: a cdk8s construct class that adds a resource's children to `scope`. */
export type KindConstruct<Spec> = new (scope: Construct, id: string, props: ResourceProps<Spec>) => Construct;

/** What a kind's status and readiness rules see: the resource, its desired children and the cluster. */
export interface StatusContext<Spec = unknown> {
  /** The resource as the API server stores it (schema defaults applied). */
  readonly resource: CustomResource<Spec>;
  /** The children its construct synthesized, as the controller applies them. */
  readonly children: readonly Manifest[];
  /** The controller's caches: the children as they are, and the kind's extra watches. */
  readonly view: ClusterView;
  /**
   * In the controller, when children wait for siblings (the `waitFor` child policy): what they wait for,
   * reason `Waiting` (`Deployment web waits for Job web-migrate: not complete (1 active, 0 succeeded)`).
   * It stands in for the children's rollup that `ready` is given.
   */
  readonly waiting?: Readiness;
}

/**
 * Work on objects that are not children (NodePool's labels and taints on nodes), and what must happen
 * before the resource may go: a plan computed from the world as the caches show it, on every reconcile.
 * The controller adds `finalizer` to every resource of the kind before anything else.
 *
 * While the resource lives (`deleting` false), the controller makes the plan's patches; a wait in the plan
 * makes the resource `Ready=False` with the wait's reason and message.
 *
 * Once it is being deleted (`deleting` true), the plan says what is left to undo, and the finalizer holds
 * the resource until the plan is empty. A reconcile makes the plan's patches, and when the plan has any
 * step (a patch just made, whose effect the next plan sees, or a wait), it keeps the finalizer, writes
 * `Ready=False` with the first wait's reason and the waits' messages (reason `Finalizing`, naming the
 * objects, when it only patched), emits a Warning event with them each time the message changes, and
 * looks again when the objects' watch events come or after a backoff (5 s, doubling to 2 minutes; again
 * from 5 s when the message changes). A reconcile whose plan is empty releases the finalizer, and the
 * resource goes. So a wait is how a kind holds its deletion (`{ reason: 'PodsRunning', message: '2 pods
 * still run in namespace team-a: web-1, web-2' }`), and it must end by itself once the world moves:
 * return it only while what it waits for is there. A plan that throws holds the resource too, as a
 * failed reconcile (an error in the log, a backoff): that is for failures, not for waiting.
 */
export interface KindSync<Spec = unknown> {
  /** A qualified name, e.g. `nodes.example.com/cleanup`. */
  readonly finalizer: string;
  /**
   * The patches that bring the cluster to what the resource wants, or undo them when `deleting`, and what
   * it waits for; empty when there is nothing to do.
   */
  plan(resource: CustomResource<Spec>, view: ClusterView, deleting: boolean): readonly SyncStep[];
}

/**
 * What `defineKind` takes. `Spec` is the spec as users write it (`<Kind>Spec`); `Stored` is the spec as the
 * API server stores it, with the schema's defaults filled in (`<Kind>SpecWithDefaults`): what `status`,
 * `ready` and `sync` see, since they run on resources read from the cluster.
 */
export interface KindOptions<Spec, Status extends object = object, Stored = Spec> {
  /** `<group>/<version>`, e.g. `cache.example.com/v1alpha1`. */
  readonly apiVersion: string;
  /** UpperCamelCase, e.g. `Memcached`. */
  readonly kind: string;
  /** The lower-case plural in API paths and `kubectl get`, e.g. `memcacheds`. */
  readonly plural: string;
  /** @default - the kind in lower case */
  readonly singular?: string;
  /**
   * The name the generated TypeScript types start with (`<typeName>Spec`, `<typeName>Status`), and `{kind}`
   * in `reconstruct gen --types`, in kebab case. For a kind whose name alone says little (`Cluster`).
   * @default - the kind
   */
  readonly typeName?: string;
  /** @default 'Namespaced' */
  readonly scope?: 'Namespaced' | 'Cluster';
  /** Short names for `kubectl get`, e.g. `mc`. */
  readonly shortNames?: string[];
  /** CRD categories besides `reconstruct`, which every kind has. */
  readonly categories?: string[];
  /**
   * The longest `metadata.name` a resource may have, when its children's names add to it: 63 less the
   * longest suffix a child name gets whose kind takes at most 63 characters (a Service `<name>-proxy` is a
   * DNS label: 57). Enforced at admission, by a rule on the CRD naming the field, and offline.
   * @default 63 - the name is the value of the app.kubernetes.io/instance label on every child
   */
  readonly maxNameLength?: number;
  readonly schema: KindSchema;
  /** The construct that synthesizes a resource's children. */
  readonly construct: KindConstruct<Spec>;
  /**
   * Every kind of object the construct may produce: what pruning lists, the controller watches and RBAC
   * grants. A child of a kind not listed here is refused by `synthesize`, naming it: a problem offline,
   * Ready=False (`InvalidSpec`) in the controller. A kind wrapped
   * in `writeOnly` (`writeOnly(SECRET)`) is created but never read: see WriteOnlyKind.
   */
  readonly children: readonly ApiKind[];
  /** The kind's own status fields, beside `observedGeneration` and `conditions`. */
  status?(context: StatusContext<Stored>): Status;
  /**
   * A Ready rule of the kind's own, naming what blocks it. `children` is the rollup of the children's
   * readiness by the rules of each kind (kstatus: a Deployment's replicas available, a Job complete, a PVC
   * bound, ...): the first one not ready; while children wait for siblings (`waitFor`), it is the wait
   * chain instead (reason `Waiting`, also in `context.waiting`). The rule may say more, or say why in the
   * kind's own words (MySQL's `Upgrading`, `Migrating`), but not make the resource Ready while a child is
   * not: then the rollup stands.
   * @default - the children's rollup: Ready when every child is
   */
  ready?(context: StatusContext<Stored>, children: Readiness): Readiness;
  /** Objects to watch besides the resources and their children; their events reconcile what they name. */
  readonly watches?: readonly ExtraWatch[];
  /** Work on objects that are not children, undone before deletion (see KindSync). */
  readonly sync?: KindSync<Stored>;
  /**
   * What the kind's work needs beyond the derived rules: a sync's patches on what it watches (`{ type:
   * NODE, verbs: ['patch'] }`), `bind` on a ClusterRole a child RoleBinding names (see KindPermission).
   * @default - none: the resources, their status and finalizers, the children, and list and watch of the watches
   */
  readonly permissions?: readonly KindPermission[];
}

/** A kind, as `defineKind` returns it: what the renderer, the controller and `install` take. */
export interface Kind<Spec = unknown, Status extends object = object, Stored = Spec> extends ApiKind {
  readonly group: string;
  readonly version: string;
  /** The name the generated types start with (`<typeName>Spec`): the kind unless the definition says. */
  readonly typeName: string;
  /** The CustomResourceDefinition, as `kubectl apply` installs it. */
  readonly crd: CustomResourceDefinition;
  /** The longest `metadata.name` of a resource (see KindOptions.maxNameLength). */
  readonly maxNameLength: number;
  readonly schema: KindSchema;
  readonly children: readonly ApiKind[];
  readonly watches: readonly ExtraWatch[];
  readonly sync?: KindSync<Stored>;
  /** What the kind's work needs beyond the derived rules (see KindOptions.permissions). */
  readonly permissions: readonly KindPermission[];
  /** Adds the construct of `resource` to `scope`. Throws SpecError for a spec it cannot synthesize. */
  build(scope: Construct, resource: CustomResource<Spec>): Construct;
  /** `spec` with the schema's defaults filled in, as the API server would store it. */
  withDefaults(spec: Spec): Stored;
  /** The kind's own status fields. */
  status(context: StatusContext<Stored>): Status;
  /** Whether the resource is Ready, and what blocks it: the first child not ready, else the kind's rule. */
  ready(context: StatusContext<Stored>): Readiness;
}

/** A definition that cannot work, named with what is wrong. */
export class KindDefinitionError extends Error {
  constructor(kind: string, problems: string[]) {
    super(`defineKind(${kind}): ${problems.join('; ')}`);
    this.name = 'KindDefinitionError';
  }
}

/** Every problem of a definition, so one error names all of them. */
function problemsOf(o: KindOptions<unknown, object>): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, message: string) => {
    if (!ok) problems.push(message);
  };
  const [group, version, extra] = String(o.apiVersion ?? '').split('/');
  need(
    extra === undefined && !!group && isDns1123Subdomain(group) && group.includes('.') && !!version,
    `apiVersion "${o.apiVersion ?? ''}" must be <group>/<version> with a DNS subdomain group (e.g. example.com/v1)`,
  );
  if (version)
    need(
      /^v\d+((alpha|beta)\d+)?$/.test(version),
      `version "${version}" must look like v1, v1alpha1, v2beta3`,
    );
  need(
    typeof o.kind === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(o.kind),
    `kind "${o.kind ?? ''}" must be UpperCamelCase`,
  );
  need(
    typeof o.plural === 'string' && isDns1035Label(o.plural),
    `plural "${o.plural ?? ''}" must be a lower-case DNS label`,
  );
  if (o.typeName !== undefined)
    need(/^[A-Z][A-Za-z0-9]*$/.test(o.typeName), `typeName "${o.typeName}" must be UpperCamelCase`);
  if (o.singular !== undefined)
    need(isDns1035Label(o.singular), `singular "${o.singular}" must be a lower-case DNS label`);
  need(
    o.scope === undefined || o.scope === 'Namespaced' || o.scope === 'Cluster',
    `scope must be Namespaced or Cluster`,
  );
  if (o.maxNameLength !== undefined)
    need(
      Number.isInteger(o.maxNameLength) && o.maxNameLength >= 1 && o.maxNameLength <= MAX_NAME_LENGTH,
      `maxNameLength ${o.maxNameLength} must be an integer from 1 to ${MAX_NAME_LENGTH}`,
    );
  need(typeof o.construct === 'function', 'construct is missing: give the construct class');
  if (!o.schema) {
    problems.push('schema is missing: give at least schema.description and schema.spec');
  } else {
    need(
      typeof o.schema.description === 'string' && o.schema.description !== '',
      'schema.description is missing',
    );
    need(o.schema.spec?.type === 'object', 'schema.spec must be an object schema (type: object)');
    for (const name of Object.keys(o.schema.status ?? {})) {
      need(
        !(name in commonStatus) && name !== 'createdChildren',
        `schema.status.${name} is added by the kit; leave it out`,
      );
    }
    for (const column of o.schema.columns ?? []) {
      need(
        column.jsonPath?.startsWith('.') ?? false,
        `schema.columns ${column.name}: jsonPath must start with "."`,
      );
    }
  }
  if (!Array.isArray(o.children) || o.children.length === 0) {
    problems.push(
      'children is missing: list every kind of object the construct produces (e.g. [DEPLOYMENT])',
    );
  } else {
    o.children.forEach((child, i) =>
      need(
        isApiKind(child),
        `children[${i}] must be an ApiKind with apiVersion, kind, plural and namespaced`,
      ),
    );
  }
  (o.watches ?? []).forEach((watch, i) => {
    need(isApiKind(watch?.type), `watches[${i}].type must be an ApiKind`);
    need(
      typeof watch?.owners === 'function',
      `watches[${i}].owners is missing: say which resources an event concerns`,
    );
  });
  if (o.sync) {
    need(
      isQualifiedName(o.sync.finalizer ?? ''),
      `sync.finalizer "${o.sync.finalizer ?? ''}" must be a qualified name`,
    );
    need(typeof o.sync.plan === 'function', 'sync.plan is missing');
  }
  const isList = (v: unknown): v is readonly unknown[] => Array.isArray(v);
  if (o.permissions !== undefined && !isList(o.permissions)) {
    problems.push('permissions must be a list of { type, verbs, resourceNames?, subresource? }');
  }
  (isList(o.permissions) ? o.permissions : []).forEach((p, i) =>
    problems.push(...permissionProblems(p, `permissions[${i}]`)),
  );
  for (const hook of ['status', 'ready'] as const) {
    need(o[hook] === undefined || typeof o[hook] === 'function', `${hook} must be a function`);
  }
  return problems;
}

function columnsOf(columns: PrinterColumn[] = []): PrinterColumn[] {
  const has = (name: string) => columns.some((c) => c.name === name);
  return [...columns, ...(has('Ready') ? [] : [readyColumn]), ...(has('Age') ? [] : [ageColumn])];
}

/** The CEL rule that bounds `metadata.name`, with a message that names the field and says why. */
function nameLengthRule(max: number): ValidationRule {
  return {
    rule: `self.metadata.name.size() <= ${max}`,
    message:
      max === MAX_NAME_LENGTH
        ? `metadata.name must be at most ${max} characters: it is a label value on every child`
        : `metadata.name must be at most ${max} characters: the names of its children are made from it`,
  };
}

function crdOf(o: KindOptions<unknown, object>, group: string, version: string): CustomResourceDefinition {
  const { schema } = o;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${o.plural}.${group}`,
      // Lets the custom resource be an ApplySet parent (KEP-3659): its children are labelled with it.
      labels: { 'applyset.kubernetes.io/is-parent-type': 'true' },
    },
    spec: {
      group,
      scope: o.scope ?? 'Namespaced',
      names: {
        kind: o.kind,
        listKind: `${o.kind}List`,
        plural: o.plural,
        singular: o.singular ?? o.kind.toLowerCase(),
        ...(o.shortNames?.length ? { shortNames: o.shortNames } : {}),
        categories: [KIND_CATEGORY, ...(o.categories ?? []).filter((c) => c !== KIND_CATEGORY)],
      },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: columnsOf(schema.columns),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: schema.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: schema.spec,
                status: {
                  type: 'object',
                  properties: {
                    ...commonStatus,
                    ...(o.children.some(isWriteOnly) ? { createdChildren: createdChildrenSchema } : {}),
                    ...(schema.status ?? {}),
                  },
                },
              },
              'x-kubernetes-validations': [
                nameLengthRule(o.maxNameLength ?? MAX_NAME_LENGTH),
                ...(schema.rules ?? []),
              ],
            },
          },
        },
      ],
    },
  };
}

/**
 * Defines a kind. Throws KindDefinitionError naming every problem of an incomplete or inconsistent
 * definition, so a mistake shows when the module loads, not in a reconcile.
 */
export function defineKind<Spec, Status extends object = object, Stored = Spec>(
  options: KindOptions<Spec, Status, Stored>,
): Kind<Spec, Status, Stored> {
  const problems = problemsOf(options as unknown as KindOptions<unknown, object>);
  if (problems.length > 0) throw new KindDefinitionError(String(options?.kind ?? '<no kind>'), problems);
  const [group, version] = options.apiVersion.split('/');
  const crd = crdOf(options as unknown as KindOptions<unknown, object>, group, version);
  const Ctor = options.construct;
  const specSchema = options.schema.spec;
  return {
    apiVersion: options.apiVersion,
    kind: options.kind,
    plural: options.plural,
    namespaced: crd.spec.scope === 'Namespaced',
    group,
    version,
    typeName: options.typeName ?? options.kind,
    crd,
    maxNameLength: options.maxNameLength ?? MAX_NAME_LENGTH,
    schema: options.schema,
    children: options.children,
    watches: options.watches ?? [],
    ...(options.sync ? { sync: options.sync } : {}),
    permissions: options.permissions ?? [],
    build(scope, resource) {
      return new Ctor(scope, options.kind.toLowerCase(), {
        name: resource.metadata.name,
        spec: (resource.spec ?? {}) as Spec,
      });
    },
    withDefaults: (spec) => withDefaults<Spec, Stored>(specSchema, spec),
    status: (context) => (options.status ? options.status(context) : ({} as Status)),
    ready(context) {
      const namespace = context.resource.metadata.namespace;
      const children =
        context.waiting ?? childrenReadiness(context.children, context.view, options.children, namespace);
      if (!options.ready) return children;
      const own = options.ready(context, children);
      return own.ready && !children.ready ? children : own;
    },
  };
}

/** Whether a value is a kind defined with `defineKind` (for modules loaded with `--kinds`). */
export function isKind(value: unknown): value is Kind {
  if (!isApiKind(value)) return false;
  const k = value as Partial<Kind>;
  return typeof k.build === 'function' && typeof k.crd === 'object';
}
