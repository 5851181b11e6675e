/**
 * What a kind is: the options `defineKind` takes (the kind author's reference, in their JSDoc) and the kind
 * it returns, which the renderer, the controller, the install manifests and the tests take.
 */
import type { Construct } from 'constructs';
import type { ApiKind } from './api-kind';
import type { ClusterView, ExtraWatch, Readiness, SyncStep } from './cluster-view';
import type { ExternalWork, KindExternal } from './external';
import type { Inputs, InputValue, InputValues } from './inputs/declare';
import type { KindPermission } from './permission';
import type { CustomResource, Manifest, ResourceProps, ResourcePropsWithInputs } from './resource';
import type { CustomResourceDefinition } from './schema';
import type { KindSchema } from './kind-schema';
import type { KindVersion, VersionInfo } from './versions';

/** The category every kind's CRD carries: `kubectl get reconstruct` lists the resources of every kind. */
export const KIND_CATEGORY = 'reconstruct';

/**
 * The construct of a kind: a cdk8s construct class that adds a resource's children to `scope`. A kind with
 * inputs gets them too (`ResourcePropsWithInputs`).
 */
export type KindConstruct<Spec, In extends object = Record<never, never>> = new (
  scope: Construct,
  id: string,
  props: keyof In extends never ? ResourceProps<Spec> : ResourcePropsWithInputs<Spec, In>,
) => Construct;

/** What a kind's status and readiness rules see: the resource, its desired children and the cluster. */
export interface StatusContext<Spec = unknown, Observed = unknown> {
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
  /**
   * A kind with external work (KindOptions.external): what its last observe said of the object, undefined
   * while none has, or when the object does not exist.
   */
  readonly observed?: Observed;
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
 * How a new revision of a kind reaches the resources that run an older one (see KindOptions.revision):
 * oldest first, a few at a time, stopping when the new one fails. A resource whose spec changes, or a new
 * one, moves at once: its user asked. Flags of `reconstruct controller` override these for every kind.
 */
export interface RolloutOptions {
  /**
   * At most this many resources of the kind moved to the new revision and not Ready again yet; the next
   * moves once one becomes Ready.
   * @default 10
   */
  readonly maxInFlight?: number;
  /**
   * The rollout stops (no more resources move) while this many resources moved to the new revision are
   * not Ready `progressDeadlineSeconds` after they moved. It goes on by itself once fewer are.
   * @default 3
   */
  readonly failureThreshold?: number;
  /**
   * How long a moved resource may take to become Ready again before it counts as failed.
   * @default 600 - a Deployment's own progress deadline
   */
  readonly progressDeadlineSeconds?: number;
}

/**
 * What `defineKind` takes. `Spec` is the spec as users write it (`<Kind>Spec`); `Stored` is the spec as the
 * API server stores it, with the schema's defaults filled in (`<Kind>SpecWithDefaults`): what `status`,
 * `ready` and `sync` see, since they run on resources read from the cluster.
 */
export interface KindOptions<
  Spec,
  Status extends object = object,
  Stored = Spec,
  Observed = unknown,
  Desired = unknown,
  I extends Inputs = Inputs,
> {
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
  /**
   * The construct that synthesizes a resource's children.
   * @default - none, for a kind with no children (`children: []`): its resources render nothing
   */
  readonly construct?: KindConstruct<Spec, Inputs extends I ? any : InputValues<I>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- inputs not inferred (defineKind<Spec>): unchecked
  /**
   * What the construct reads besides the spec, by name (`fromChild`, `fromObject`, `fromConfigMap`,
   * `fromSecret`, `fromExternal`): it gets each as `props.inputs.<name>`, the value once known and a
   * placeholder until then. A child that holds a placeholder waits (Ready=False names the input and the
   * object); the others are applied. The controller reads exactly these objects, and re-renders the
   * resource when one changes; `reconstruct synth --inputs FILE` renders with given values.
   * @default - none: the construct reads only the spec
   */
  readonly inputs?: I;
  /**
   * Every kind of object the construct may produce: what pruning lists, the controller watches and RBAC
   * grants; empty for a kind whose work is all outside Kubernetes (`external`), which then costs no child
   * caches and no child RBAC. A child of a kind not listed here is refused by `synthesize`, naming it: a problem offline,
   * Ready=False (`InvalidSpec`) in the controller. A kind wrapped
   * in `writeOnly` (`writeOnly(SECRET)`) is created but never read: see WriteOnlyKind.
   */
  readonly children: readonly ApiKind[];
  /** The kind's own status fields, beside `observedGeneration` and `conditions`. */
  status?(context: StatusContext<Stored, Observed>): Status;
  /**
   * A Ready rule of the kind's own, naming what blocks it. `children` is the rollup of the children's
   * readiness by the rules of each kind (kstatus: a Deployment's replicas available, a Job complete, a PVC
   * bound, ...): the first one not ready; while children wait for siblings (`waitFor`), it is the wait
   * chain instead (reason `Waiting`, also in `context.waiting`). The rule may say more, or say why in the
   * kind's own words (MySQL's `Upgrading`, `Migrating`), but not make the resource Ready while a child is
   * not: then the rollup stands.
   * @default - the children's rollup: Ready when every child is
   */
  ready?(context: StatusContext<Stored, Observed>, children: Readiness): Readiness;
  /** Objects to watch besides the resources and their children; their events reconcile what they name. */
  readonly watches?: readonly ExtraWatch[];
  /** Work on objects that are not children, undone before deletion (see KindSync). */
  readonly sync?: KindSync<Stored>;
  /**
   * An object outside Kubernetes that each resource keeps (a provider's record, a database's user), made
   * by async handlers the controller runs beside its reconciles (see KindExternal). Ready waits for it;
   * the resource is held on deletion until it is deleted.
   */
  readonly external?: KindExternal<Stored, Observed, Desired, Status>;
  /**
   * What the kind's work needs beyond the derived rules: a sync's patches on what it watches (`{ type:
   * NODE, verbs: ['patch'] }`), `bind` on a ClusterRole a child RoleBinding names (see KindPermission).
   * @default - none: the resources, their status and finalizers, the children, and list and watch of the watches
   */
  readonly permissions?: readonly KindPermission[];
  /**
   * The revision of this definition: a name you change when a release of the kind changes the children
   * of resources whose spec did not change (a new image default, a field on every Deployment), as a
   * chart's version. The controller then moves the resources to it at a bounded pace (`rollout`), each
   * resource's `status.lastAppliedRevision` says which it runs, and `kubectl get` shows it. Up to 63
   * characters: letters, digits, `.`, `_`, `-`.
   * @default - none: a new definition reaches every resource at once, as it comes
   */
  readonly revision?: string;
  /** How a new revision reaches the resources (see RolloutOptions). */
  readonly rollout?: RolloutOptions;
  /**
   * The kind's other versions, each with its schema and its conversion to and from this one (see
   * KindVersion). `apiVersion` is the hub: the version the construct, `status`, `ready` and `sync` are
   * written against, and the one the controller reads; the API server converts through the controller's
   * conversion webhook, and `reconstruct synth` takes any of them.
   * @default - one version, `apiVersion`'s
   */
  readonly versions?: readonly KindVersion<Spec, Status>[];
  /**
   * The version the API server stores objects in (after `reconstruct migrate`, every stored object).
   * @default - the hub, `apiVersion`'s version
   */
  readonly storageVersion?: string;
}

/** A kind, as `defineKind` returns it: what the renderer, the controller and `install` take. */
export interface Kind<
  Spec = unknown,
  Status extends object = object,
  Stored = Spec,
  Observed = unknown,
> extends ApiKind {
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
  /** What the construct reads besides the spec (see KindOptions.inputs); empty when nothing. */
  readonly inputs: Inputs;
  readonly watches: readonly ExtraWatch[];
  readonly sync?: KindSync<Stored>;
  /** Its external work with the defaults filled in (see KindOptions.external). */
  readonly external?: ExternalWork<Stored, Observed>;
  /** What the kind's work needs beyond the derived rules (see KindOptions.permissions). */
  readonly permissions: readonly KindPermission[];
  /** The revision of this definition, when it declares one (see KindOptions.revision). */
  readonly revision?: string;
  /** How a new revision reaches the resources, with the defaults filled in. */
  readonly rollout: Required<RolloutOptions>;
  /** Every version, in the CRD's order (the hub is `version`; one of them is stored). */
  readonly versions: readonly VersionInfo[];
  /** The versions besides the hub, as the definition gives them (see KindOptions.versions). */
  readonly otherVersions: readonly KindVersion[];
  /**
   * The resource as `apiVersion` (`<group>/<version>`, any of the kind's) says it, losslessly (see
   * KindVersion); the same object when it already is. Throws naming the resource for another version.
   */
  convert<T extends CustomResource>(resource: T, apiVersion: string): T;
  /**
   * Adds the construct of `resource` to `scope`, with the inputs known so far (placeholders for the rest).
   * Throws SpecError for a spec it cannot synthesize.
   */
  build(
    scope: Construct,
    resource: CustomResource<Spec>,
    inputs?: Readonly<Record<string, InputValue>>,
  ): Construct;
  /** `spec` with the schema's defaults filled in, as the API server would store it. */
  withDefaults(spec: Spec): Stored;
  /** The kind's own status fields. */
  status(context: StatusContext<Stored, Observed>): Status;
  /** Whether the resource is Ready, and what blocks it: the first child not ready, else the kind's rule. */
  ready(context: StatusContext<Stored, Observed>): Readiness;
}
