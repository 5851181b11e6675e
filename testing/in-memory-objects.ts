/**
 * The objects of an in-memory cluster (InMemoryCluster, `cdk8s-reconstruct/testing`), as the API server
 * and the controller's caches hold them, and a writer with the controller's interface that records each
 * write and applies it here.
 *
 * What it models: the controller's caches (get() and list() see a child kind's objects only with our
 * managed-by label, as the filtered child caches do; exists() sees all); server-side apply by field
 * manager (each manager's last applied object is kept and the stored object is their merge, so a field
 * one manager stops applying stays while another applies it, and another actor's update takes the fields
 * it sets from their appliers, and a spec change bumps metadata.generation); create's 409 for a name that
 * exists; a Secret's stringData also in its data, as the API server stores it; delete's uid precondition; the status subresource; admission of a resource by its kind's CRD
 * (putResource, setSpec: schema, defaults and CEL rules, transition rules on an update, with the
 * offline validator); a write-only child kind, which the view refuses to show (the controller has no
 * cache of it); deletion as the API server does it: an object with finalizers gets a
 * metadata.deletionTimestamp (from `clock`; a resource with a generation gets a new one) and stays until
 * a write empties its finalizers, no finalizer can be added to it meanwhile, and an object that goes
 * takes with it, as the garbage collector's background propagation does, every object whose
 * ownerReferences name its uid (each deleted the same way, finalizers and all). What it does not:
 * admission of children, other controllers (a Deployment's status stays what the test puts; a Namespace
 * that goes leaves its objects), foreground and orphan propagation, and watch events (reconcile() is).
 */
import {
  type ClusterView,
  type Kind,
  type KubeObject,
  type LabelMatch,
  type Manifest,
  type ApiKind,
} from '../constructs/kit';
import type { Writer } from '../controller/kube/writer';
import { ApiError } from '../controller/kube/errors';
import { mergePatched } from '../controller/kube/merge-patch';
import { objectKey } from '../controller/kube/object-key';
import { kindKey } from '../constructs/kit/api-kind';
import { metaTime } from '../controller/reconcile/status';
import {
  immutableRefusal,
  mergePatchRefusal,
  notFound,
  jsonPatched,
  refusing,
  unown,
  type JsonPatchOp,
} from './api-server';
import { inChildCache, refuseUnread } from './caches';
import type { Write } from './write';

type Json = Record<string, unknown>;

/**
 * A Secret with its `stringData` also in `data`, in base64, where the API server stores it (what a handler
 * reading a generated password finds). `stringData` stays, for the tests that read what was sent.
 */
function withStringDataStored(obj: KubeObject): KubeObject {
  const { stringData, data } = obj as KubeObject & { stringData?: Record<string, string>; data?: object };
  if (obj.kind !== 'Secret' || obj.apiVersion !== 'v1' || stringData === undefined) return obj;
  const encoded = Object.entries(stringData).map(([k, v]) => [k, Buffer.from(v).toString('base64')]);
  return { ...obj, data: { ...data, ...Object.fromEntries(encoded) } };
}

/** Objects are stored under the controller's objectKey; a cluster-scoped kind ignores the namespace. */
const key = (type: ApiKind, namespace: string | undefined, name: string) =>
  objectKey(type, type.namespaced ? namespace : undefined, name);

interface Stored {
  /** What writers other than server-side apply set (create, merge patches, status). */
  others: Json;
  /** Each field manager's last applied object. */
  applied: Map<string, Json>;
  uid: string;
  resourceVersion: string;
}

export class InMemoryObjects implements ClusterView {
  private readonly stored = new Map<string, Stored>();
  readonly writes: Write[] = [];
  /**
   * The controller's clock, in milliseconds: a test moves it to step through time (a status write held
   * back, a recheck). Starts at the real time.
   */
  clock = Date.now();
  private version = 0;
  private uids = 0;
  private readonly terminating = new Set<string>();

  /**
   * `kinds`: the kinds the controller runs. Objects of their child kinds are seen by get() and list() only
   * with our managed-by label, as the controller's filtered child caches see them; everything else (the
   * custom resources, watched kinds such as pods and nodes) unfiltered.
   */
  constructor(protected readonly kinds: readonly Kind[] = []) {}

  private object(s: Stored): KubeObject {
    let obj: unknown = s.others;
    for (const body of s.applied.values()) obj = mergePatched(obj, body);
    const result = obj as KubeObject;
    result.metadata = { ...result.metadata, uid: s.uid, resourceVersion: s.resourceVersion };
    return result;
  }

  private bump(s: Stored): void {
    s.resourceVersion = String(++this.version);
  }

  /** Puts an object as another actor would (not recorded as our write); returns it as stored. */
  put(type: ApiKind, obj: KubeObject): KubeObject {
    const s: Stored = {
      others: structuredClone(withStringDataStored(obj)),
      applied: new Map(),
      uid: obj.metadata.uid ?? `uid-${++this.uids}`,
      resourceVersion: '',
    };
    this.bump(s);
    this.stored.set(key(type, obj.metadata.namespace, obj.metadata.name), s);
    return this.object(s);
  }

  /** Changes an object as another actor's update would: it takes the fields it sets from their appliers. */
  patch(type: ApiKind, namespace: string | undefined, name: string, patch: Json): void {
    const s = this.stored.get(key(type, namespace, name));
    if (!s) throw new Error(`no ${key(type, namespace, name)}`);
    s.others = mergePatched(s.others, patch) as Json;
    for (const body of s.applied.values()) unown(body, patch);
    this.bump(s);
    this.settle(key(type, namespace, name));
  }

  /**
   * Marks a namespace as being deleted: from now on, creating anything in it is refused as the API
   * server's NamespaceLifecycle admission refuses it (403, cause NamespaceTerminating); updates and
   * deletions still go through.
   */
  terminateNamespace(namespace: string): void {
    this.terminating.add(namespace);
  }

  /** The refusal of a creation in `namespace`, if it is being deleted. */
  private terminatingRefusal(namespace: string | undefined): ApiError | undefined {
    if (namespace === undefined || !this.terminating.has(namespace)) return undefined;
    const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
    const causes = [{ reason: 'NamespaceTerminating', field: 'metadata.namespace' }];
    return new ApiError(403, message, {
      reason: 'Forbidden',
      body: { reason: 'Forbidden', message, details: { causes } },
    });
  }

  /**
   * Deletes an object as the API server does: one with finalizers is marked (deletionTimestamp, and a new
   * generation if it has one) and stays until they are emptied; one without goes, and with it what it owns.
   */
  remove(type: ApiKind, namespace: string | undefined, name: string): void {
    this.deleteStored(key(type, namespace, name));
  }

  private deleteStored(k: string): void {
    const s = this.stored.get(k);
    if (!s) return;
    const { metadata } = this.object(s);
    if ((metadata.finalizers ?? []).length === 0) return this.collect(k, s.uid);
    if (metadata.deletionTimestamp) return;
    const others = s.others as { metadata?: Json };
    others.metadata = {
      ...others.metadata,
      deletionTimestamp: metaTime(new Date(this.clock)),
      ...(metadata.generation !== undefined ? { generation: metadata.generation + 1 } : {}),
    };
    this.bump(s);
  }

  /** Drops the object under `k`, then deletes its dependents: the garbage collector's background propagation. */
  private collect(k: string, uid: string): void {
    this.stored.delete(k);
    for (const [dependent, s] of [...this.stored.entries()]) {
      const refs = this.object(s).metadata.ownerReferences ?? [];
      if (refs.some((ref) => ref.uid === uid)) this.deleteStored(dependent);
    }
  }

  /** An object being deleted goes once a write has emptied its finalizers. */
  private settle(k: string): void {
    const s = this.stored.get(k);
    if (!s) return;
    const { metadata } = this.object(s);
    if (metadata.deletionTimestamp && (metadata.finalizers ?? []).length === 0) this.collect(k, s.uid);
  }

  any(type: ApiKind, namespace: string | undefined, name: string): KubeObject | undefined {
    const s = this.stored.get(key(type, namespace, name));
    return s && this.object(s);
  }

  get(type: ApiKind, namespace: string | undefined, name: string): KubeObject | undefined {
    refuseUnread(this.kinds, type);
    const obj = this.any(type, namespace, name);
    return obj && inChildCache(this.kinds, type, obj) ? obj : undefined;
  }

  list(type: ApiKind, namespace?: string, match?: LabelMatch): KubeObject[] {
    refuseUnread(this.kinds, type);
    const prefix = `${kindKey(type)}/`;
    return [...this.stored.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .map(([, s]) => this.object(s))
      .filter((obj) => inChildCache(this.kinds, type, obj))
      .filter((obj) => !type.namespaced || namespace === undefined || obj.metadata.namespace === namespace)
      .filter((obj) => !match || obj.metadata.labels?.[match.label] === match.value);
  }

  exists(type: ApiKind, namespace: string | undefined, name: string): boolean {
    refuseUnread(this.kinds, type);
    return this.stored.has(key(type, namespace, name));
  }

  /** A writer with the controller's interface, recording each write and applying it here. */
  writer(fieldManager = 'reconstruct'): Writer {
    const writes = this.writes;
    const writer: Writer = {
      fieldManager,
      // What the API server has: the caller says what type it expects, as of the real writer's GET.
      read: <T>(type: ApiKind, namespace: string | undefined, name: string) =>
        Promise.resolve(this.any(type, namespace, name) as T | undefined),
      apply: (type: ApiKind, body: Manifest, manager = fieldManager) => {
        const { namespace, name } = body.metadata;
        writes.push({ verb: 'apply', kind: body.kind, name, fieldManager: manager, body });
        const k = key(type, namespace, name);
        let s = this.stored.get(k);
        if (!s) {
          const refused = this.terminatingRefusal(namespace);
          if (refused) return Promise.reject(refused);
          s = { others: {}, applied: new Map(), uid: `uid-${++this.uids}`, resourceVersion: '' };
          this.stored.set(k, s);
        }
        const previous = this.object(s);
        const before = JSON.stringify(previous.spec);
        const earlier = s.applied.get(manager);
        s.applied.set(manager, structuredClone(body));
        const refusal = immutableRefusal(previous, this.object(s));
        if (refusal) {
          if (earlier) s.applied.set(manager, earlier);
          else s.applied.delete(manager);
          return Promise.reject(refusal);
        }
        // The API server counts spec changes in metadata.generation (status controllers observe it).
        if (JSON.stringify(this.object(s).spec) !== before) {
          const others = s.others as { metadata?: { generation?: number } };
          others.metadata = { ...others.metadata, generation: (this.object(s).metadata.generation ?? 0) + 1 };
        }
        this.bump(s);
        const applied = this.object(s) as Manifest;
        this.settle(k);
        return Promise.resolve(applied);
      },
      create: (type: ApiKind, namespace: string | undefined, body: Manifest) => {
        writes.push({ verb: 'create', kind: body.kind, name: body.metadata.name, body });
        const refused = this.terminatingRefusal(namespace);
        if (refused) return Promise.reject(refused);
        if (this.stored.has(key(type, namespace, body.metadata.name))) {
          return Promise.reject(new ApiError(409, 'already exists', { reason: 'AlreadyExists' }));
        }
        return Promise.resolve(this.put(type, body as KubeObject));
      },
      mergePatch: (type: ApiKind, namespace: string | undefined, name: string, patch: Json) => {
        const obj = this.any(type, namespace, name);
        writes.push({ verb: 'patch', kind: obj?.kind ?? type.kind, name, body: patch });
        const refused = obj ? mergePatchRefusal(type, obj, patch) : notFound();
        if (refused) return Promise.reject(refused);
        this.patch(type, namespace, name, patch);
        return Promise.resolve({});
      },
      // Top-level paths only, as the controller's drift repair writes them.
      jsonPatch: (type: ApiKind, namespace: string | undefined, name: string, ops: JsonPatchOp[]) => {
        const obj = this.any(type, namespace, name);
        writes.push({ verb: 'patch', kind: obj?.kind ?? type.kind, name, body: ops });
        if (!obj) return Promise.reject(notFound());
        const refused = jsonPatched(
          ops,
          (field) => this.any(type, namespace, name)?.[field],
          (p) => this.patch(type, namespace, name, p),
        );
        if (refused) return Promise.reject(refused);
        return Promise.resolve(this.any(type, namespace, name));
      },
      delete: (type: ApiKind, namespace: string | undefined, name: string, uid?: string) => {
        const obj = this.any(type, namespace, name);
        writes.push({ verb: 'delete', kind: obj?.kind ?? type.kind, name });
        if (!obj) return Promise.reject(notFound());
        // The controller deletes with a uid precondition: an object of the same name made since stays.
        if (uid && obj.metadata.uid !== uid) {
          return Promise.reject(new ApiError(409, 'Precondition failed: UID', { reason: 'Conflict' }));
        }
        this.remove(type, namespace, name);
        return Promise.resolve({});
      },
      applyStatus: (type: ApiKind, resource: Manifest, status: Json) => {
        writes.push({ verb: 'status', kind: resource.kind, name: resource.metadata.name, body: status });
        if (!this.any(type, resource.metadata.namespace, resource.metadata.name)) {
          return Promise.reject(notFound());
        }
        this.patch(type, resource.metadata.namespace, resource.metadata.name, { status: null });
        this.patch(type, resource.metadata.namespace, resource.metadata.name, { status });
        return Promise.resolve({});
      },
    };
    return refusing(writer, this.refusals);
  }

  private readonly refusals = new Map<Write['verb'], Error>();

  /**
   * Makes the API server refuse every write of `verb` by the controller from now on with `err` (as an
   * admission webhook, a quota or a broken object would), or accept them again when `err` is undefined.
   */
  refuse(verb: Write['verb'], err: Error | undefined): void {
    if (err) this.refusals.set(verb, err);
    else this.refusals.delete(verb);
  }

  /** The writes recorded since the last call. */
  takeWrites(): Write[] {
    return this.writes.splice(0);
  }
}
