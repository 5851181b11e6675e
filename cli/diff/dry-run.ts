/**
 * What the controller would change for a resource, changing nothing: the resource is server-side applied
 * as `kubectl apply --server-side` would, then the controller's own reconciler runs once against a snapshot
 * of the cluster with a writer whose every write is a dry run (`dryRun=All`) and is recorded. The plan is
 * therefore the controller's: the same policies, ownership checks and prunes, each write as the API server
 * would store it (defaults, admission), and nothing else.
 */
import {
  LABEL_MANAGED_BY,
  LABEL_PART_OF,
  MANAGER,
  applySetId,
  isWriteOnly,
  synthesize,
  type ApiKind,
  type ClusterView,
  type CustomResource,
  type Kind,
  type KubeObject,
  type LabelMatch,
  type Manifest,
} from '../../constructs/kit';
import { kindKey } from '../../constructs/kit/api-kind';
import { KubeWriter, type Writer } from '../../controller/kube/writer';
import type { EventSink } from '../../controller/kube/events';
import type { KubeClient } from '../../controller/kube/client';
import { isForbidden } from '../../controller/kube/errors';
import type { KubeRequest } from '../../controller/kube/http';
import { resourcePath } from '../../controller/kube/paths';
import { createLogger } from '../../controller/log';
import { mergePatched } from '../../controller/kube/merge-patch';
import { objectKey } from '../../controller/kube/object-key';
import { Reconciler } from '../../controller/reconcile/reconciler';
import { DryRunExternal } from '../../controller/external/dry-run';
import { SecretReads } from '../../controller/external/secrets';

/** One object the controller would change: as it is, and as it would be (undefined: deleted, or new). */
export interface PlannedChange {
  readonly type: ApiKind & { kind: string };
  readonly namespace?: string;
  readonly name: string;
  readonly before?: KubeObject;
  readonly after?: KubeObject;
  /** Deleted to be created anew (an immutable field changed, the `replace` policy): not a prune. */
  readonly replaced?: boolean;
}

/**
 * A client whose writes are dry runs: the API server validates, defaults and answers, and stores nothing.
 * A delete's options in the body replace those of the query, so there the body says it too.
 */
export function dryRunClient(client: KubeClient): KubeClient {
  const dry = (req: KubeRequest): KubeRequest => {
    if (req.method === 'GET') return req;
    const body = req.body as { kind?: string } | undefined;
    return {
      ...req,
      query: { ...req.query, dryRun: 'All' },
      ...(body?.kind === 'DeleteOptions' ? { body: { ...body, dryRun: ['All'] } } : {}),
    };
  };
  return {
    request: <T>(req: KubeRequest) => client.request<T>(dry(req)),
    watch: () => {
      throw new Error('a dry run does not watch');
    },
  };
}

type Recorded = {
  type: ApiKind & { kind?: string };
  namespace?: string;
  name: string;
  after?: KubeObject;
};

/**
 * The controller's writer, each write a dry run, each answer kept. Status writes are not sent (a diff does
 * not show status). A patch of the resource itself (a finalizer) is applied to `resource` here: the
 * resource may not exist yet, its creation being part of what is shown.
 */
class RecordingWriter implements Writer {
  readonly writes: Recorded[] = [];
  /** The last status the reconciler would write for the resource (not sent). */
  status?: Record<string, unknown>;
  private readonly server: KubeWriter;

  constructor(
    client: KubeClient,
    readonly fieldManager: string,
    private readonly resource: () => KubeObject,
    private readonly isResource: (type: ApiKind, name: string) => boolean,
  ) {
    this.server = new KubeWriter(client, fieldManager);
  }

  read<T = Manifest>(type: ApiKind, namespace: string | undefined, name: string): Promise<T | undefined> {
    return this.server.read<T>(type, namespace, name);
  }

  applyStatus(_type: ApiKind, _resource: unknown, status: Record<string, unknown>): Promise<unknown> {
    this.status = status;
    return Promise.resolve({});
  }

  async apply(type: ApiKind, body: Manifest, fieldManager?: string): Promise<Manifest> {
    const after = await this.server.apply(type, body, fieldManager);
    this.record(type, body.metadata.namespace, body.metadata.name, after);
    return after;
  }

  async create(type: ApiKind, namespace: string | undefined, body: unknown): Promise<unknown> {
    const after = (await this.server.create(type, namespace, body)) as KubeObject;
    this.record(type, namespace, after.metadata.name, after);
    return after;
  }

  async mergePatch(type: ApiKind, namespace: string | undefined, name: string, patch: unknown) {
    const local = this.isResource(type, name);
    const { metadata } = (patch ?? {}) as { metadata?: Record<string, unknown> };
    const after = local
      ? (mergePatched(this.resource(), {
          ...(patch as object),
          metadata: { ...metadata, resourceVersion: null },
        }) as KubeObject)
      : ((await this.server.mergePatch(type, namespace, name, patch)) as KubeObject);
    this.record(type, namespace, name, after);
    return after;
  }

  jsonPatch(type: ApiKind, namespace: string | undefined, name: string, ops: unknown[]): Promise<unknown> {
    return this.server.jsonPatch(type, namespace, name, ops);
  }

  async delete(type: ApiKind, namespace: string | undefined, name: string, uid: string) {
    const result = await this.server.delete(type, namespace, name, uid);
    this.record(type, namespace, name, undefined);
    return result;
  }

  private record(type: ApiKind, namespace: string | undefined, name: string, after?: KubeObject) {
    this.writes.push({ type, namespace: type.namespaced ? namespace : undefined, name, after });
  }
}

const ours = (obj: KubeObject) => obj.metadata.labels?.[LABEL_MANAGED_BY] === MANAGER;

/** The cluster as the controller's caches would show it for one resource, read once. */
class Snapshot implements ClusterView {
  private readonly objects = new Map<string, KubeObject[]>();
  /** Child kinds whose get() sees only our objects, as the controller's filtered caches do. */
  private readonly filtered = new Set<string>();
  private readonly foreign = new Set<string>();

  put(type: ApiKind, objects: KubeObject[], filtered = false): void {
    this.objects.set(kindKey(type), [...(this.objects.get(kindKey(type)) ?? []), ...objects]);
    if (filtered) this.filtered.add(kindKey(type));
  }

  putForeign(type: ApiKind, namespace: string | undefined, name: string): void {
    this.foreign.add(objectKey(type, namespace, name));
  }

  replace(type: ApiKind, obj: KubeObject): void {
    const others = (this.objects.get(kindKey(type)) ?? []).filter(
      (o) => o.metadata.name !== obj.metadata.name || o.metadata.namespace !== obj.metadata.namespace,
    );
    this.objects.set(kindKey(type), [...others, obj]);
  }

  get(type: ApiKind, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.list(type, namespace).find((o) => o.metadata.name === name);
  }

  list(type: ApiKind, namespace?: string, match?: LabelMatch): KubeObject[] {
    return (this.objects.get(kindKey(type)) ?? [])
      .filter((o) => !type.namespaced || namespace === undefined || o.metadata.namespace === namespace)
      .filter((o) => !this.filtered.has(kindKey(type)) || ours(o))
      .filter((o) => !match || o.metadata.labels?.[match.label] === match.value);
  }

  exists(type: ApiKind, namespace: string | undefined, name: string): boolean {
    return (
      this.get(type, namespace, name) !== undefined ||
      this.foreign.has(objectKey(type, type.namespaced ? namespace : undefined, name))
    );
  }
}

/**
 * Lists the objects of a type in a namespace a label selector matches: a resource's children (its ApplySet's
 * label) and the objects its kind watches.
 */
export type Lister = (
  type: ApiKind,
  namespace: string | undefined,
  labelSelector?: string,
) => Promise<KubeObject[]>;

/** One LIST, the objects given apiVersion and kind as a single GET gives them. */
export async function listObjects(
  client: KubeClient,
  type: ApiKind,
  namespace: string | undefined,
  labelSelector?: string,
): Promise<KubeObject[]> {
  const list = await client.request<{ items: KubeObject[] }>({
    method: 'GET',
    path: resourcePath(type, type.namespaced ? namespace : undefined),
    query: labelSelector ? { labelSelector } : {},
  });
  // apiVersion and kind first, as a single GET returns them: the diff of an object then keeps its order.
  return list.items.map((o) => ({ apiVersion: type.apiVersion, kind: type.kind, ...o }));
}

/** What applying a resource would change: its objects, and what its kind's external work would do. */
export interface Plan {
  readonly changes: PlannedChange[];
  /**
   * A kind with external work: the change the controller would make outside (`would update DNS record
   * www: ttl: 300 -> 600`), found by its observe alone, or why its observe failed; undefined when none.
   */
  readonly external?: { readonly change?: string; readonly error?: string };
  /**
   * Why the controller would fail the resource (its Ready condition's reason and message: an apply
   * refused, an invalid spec, a child name taken); undefined when it would not.
   */
  readonly failure?: { readonly reason: string; readonly message: string };
}

/** The Ready reasons that mean the controller could not do what the resource asks. */
const FAILURES = new Set(['ApplyFailed', 'InvalidSpec', 'ErrResourceExists', 'Unavailable']);

function failureOf(status: Record<string, unknown> | undefined): Plan['failure'] {
  const conditions = (status?.conditions ?? []) as {
    type: string;
    status: string;
    reason: string;
    message?: string;
  }[];
  const ready = conditions.find((c) => c.type === 'Ready');
  return ready && ready.status === 'False' && FAILURES.has(ready.reason)
    ? { reason: ready.reason, message: ready.message ?? '' }
    : undefined;
}

/**
 * The changes applying `resource` (as read from a file, defaulted) would bring: the resource itself, then
 * each child the controller would create, update or delete, and its external object's. Throws when a dry
 * run is refused (the message is the API server's).
 */
export async function planChanges(
  client: KubeClient,
  definition: Kind,
  resource: CustomResource,
  options: {
    fieldManager?: string;
    userFieldManager?: string;
    /** `resource` is the live object as read from the cluster: it is not applied, its children are planned. */
    live?: boolean;
    /** How the children and the watched objects are listed (default: a LIST each, for this resource). */
    list?: Lister;
  } = {},
): Promise<Plan> {
  const fieldManager = options.fieldManager ?? MANAGER;
  const { name } = resource.metadata;
  const namespace = definition.namespaced ? resource.metadata.namespace : undefined;
  const dry = dryRunClient(client);
  const changes: PlannedChange[] = [];
  const reader = new KubeWriter(client, fieldManager);
  const readObject = (type: ApiKind, ns: string | undefined, n: string) =>
    reader.read<KubeObject>(type, type.namespaced ? ns : undefined, n);
  const list: Lister = options.list ?? ((type, ns, selector) => listObjects(client, type, ns, selector));

  // The resource as `kubectl apply --server-side` would store it: the API server's defaults, a new
  // generation for a spec change, the live status and uid (a new one gets a uid of its own for the run).
  const before = options.live ? resource : await readObject(definition, namespace, name);
  const applied = options.live
    ? resource
    : await new KubeWriter(dry, options.userFieldManager ?? 'kubectl').apply(definition, {
        ...resource,
        metadata: { ...resource.metadata, ...(namespace ? { namespace } : {}) },
      });
  const live = { ...(applied as KubeObject), status: before?.status } as CustomResource;
  changes.push({ type: definition, namespace, name, before, after: live });

  const snapshot = new Snapshot();
  snapshot.put(definition, [live]);
  const partOf = applySetId(live);
  const uid = live.metadata.uid ?? '';
  for (const type of definition.children.filter((t) => !isWriteOnly(t))) {
    snapshot.put(type, await list(type, namespace, `${LABEL_PART_OF}=${partOf}`), true);
  }
  // A desired name taken by an object that is not ours: the reconciler reads it and reports it.
  const desired = new Set<string>();
  for (const child of synthesize(definition, live, { owner: { uid }, admitted: true })) {
    const type = definition.children.find((t) => t.apiVersion === child.apiVersion && t.kind === child.kind);
    if (!type || isWriteOnly(type)) continue;
    const ns = type.namespaced ? (child.metadata.namespace ?? namespace) : undefined;
    desired.add(objectKey(type, ns, child.metadata.name));
    if (snapshot.get(type, ns, child.metadata.name)) continue;
    if (await readObject(type, ns, child.metadata.name)) snapshot.putForeign(type, ns, child.metadata.name);
  }
  for (const watch of definition.watches) {
    snapshot.put(watch.type, await list(watch.type, namespace, watch.labelSelector));
  }

  const log = createLogger({ write: () => {}, level: 'error' });
  const writer = new RecordingWriter(
    dry,
    fieldManager,
    () => snapshot.get(definition, namespace, name) ?? live,
    (type, n) => type === definition && n === name,
  );
  const events: EventSink = { emit: () => {} };
  // External work is observed, never applied or deleted (controller/external/dry-run.ts).
  const external = new DryRunExternal(new SecretReads(reader));
  const reconciler = new Reconciler({ view: snapshot, writer, events, log, external });
  // Three times at most: a kind with finalizers adds its own and the external work's first, and the
  // next reconcile does the work.
  for (let pass = 0; pass < 3; pass++) {
    const seen = writer.writes.length;
    try {
      await reconciler.reconcile(definition, namespace, name);
    } catch (err) {
      // A failed reconcile throws to be retried, once its status says why: that is the plan's failure.
      if (failureOf(writer.status)) break;
      throw err;
    }
    const own = writer.writes
      .slice(seen)
      .find((w) => w.type === definition && w.name === name && w.after !== undefined);
    if (!own?.after) break;
    snapshot.replace(definition, own.after);
    changes[0] = { ...changes[0], after: own.after };
  }

  const shown = new Set<string>([objectKey(definition, namespace, name)]);
  for (const w of writer.writes) {
    const key = objectKey(w.type, w.namespace, w.name);
    if (shown.has(key)) continue; // the first write of an object is the change (a second manager's follows it)
    shown.add(key);
    // As listed before the reconcile (what the dry run changed), else read now.
    const listed = snapshot.get(w.type, w.namespace, w.name);
    const current =
      listed ??
      (await readObject(w.type, w.namespace, w.name).catch((err: unknown) => {
        if (isForbidden(err)) return undefined; // a write-only kind
        throw err;
      }));
    const kind = w.after?.kind ?? current?.kind ?? w.type.kind;
    changes.push({
      type: { ...w.type, kind },
      namespace: w.namespace,
      name: w.name,
      before: current,
      after: w.after,
      ...(w.after === undefined && desired.has(key) ? { replaced: true } : {}),
    });
  }
  const planned = external.planned.get(objectKey(definition, namespace, name));
  const failure = failureOf(writer.status);
  return { changes, ...(planned ? { external: planned } : {}), ...(failure ? { failure } : {}) };
}
