/**
 * One resource as a tree, read from the cluster: its conditions and each child the construct wants, with
 * whether it is ready and why not (the same kstatus rules as the Ready rollup), plus the children it made
 * earlier that are still there but no longer wanted (the next reconcile prunes them).
 */
import {
  LABEL_MANAGED_BY,
  LABEL_PART_OF,
  LEASE,
  MANAGER,
  applySetId,
  childReadiness,
  isWriteOnly,
  synthesize,
  type ApiKind,
  type CustomResource,
  type Kind,
  type KubeObject,
  SpecError,
} from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { isForbidden, isNotFound } from '../../controller/kube/errors';
import { kubeLiveReads } from '../../controller/kube/live-reads';
import { resourcePath } from '../../controller/kube/paths';
import { whyStuck } from '../../controller/reconcile/troubles';
import { drainLabel, shardLabel } from '../../controller/sharding/members';
import { HashRing } from '../../controller/sharding/ring';
import { RECORD_LABEL, readRecord, type RingRecord } from '../../controller/sharding/ring-record';
import { saysWhyStuck } from '../../constructs/kit/pod-trouble';

interface TreeChild {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** `Ready`; `NotReady` with the reason; `Unknown` for a child the controller may not read; `Stale`. */
  readonly state: 'Ready' | 'NotReady' | 'Unknown' | 'Stale';
  readonly reason: string;
  readonly message: string;
}

/** The member of a sharded controller that holds a resource (docs/SCALING.md, Dynamic shards). */
export interface Shard {
  readonly ring: string;
  readonly member: string;
  /** Where the member was read: the resource's shard label, or the ring's record and the resource's uid. */
  readonly path: 'labels' | 'ranges';
  /**
   * labels: the member is letting go of the resource (its drain label), which then moves to another.
   * ranges: the ring's members are changing, and the member shown holds the resource once they have settled.
   */
  readonly moving?: boolean;
}

/** A ring's record, as its leader publishes it for the ranges read path, and the hash ring it makes. */
export interface Ring {
  readonly name: string;
  readonly record: RingRecord;
  readonly hashRing: HashRing;
}

export interface Tree {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly generation?: number;
  readonly observedGeneration?: number;
  /** The revision of the kind its children run (`status.lastAppliedRevision`), for a kind that declares one. */
  readonly revision?: string;
  /** Set while the resource is being deleted: since when, and the finalizers that still hold it. */
  readonly deletion?: { readonly since: string; readonly finalizers: readonly string[] };
  readonly conditions: readonly { type: string; status: string; reason?: string; message?: string }[];
  /** The member of a sharded controller that holds the resource; undefined when none is known. */
  readonly shard?: Shard;
  readonly children: readonly TreeChild[];
}

async function get(client: KubeClient, path: string): Promise<KubeObject | undefined> {
  try {
    return await client.request<KubeObject>({ method: 'GET', path });
  } catch (err) {
    if (isNotFound(err) || isForbidden(err)) return undefined;
    throw err;
  }
}

/** Why a child is stuck, or undefined when the pods and events say nothing or may not be read. */
async function stuck(client: KubeClient, type: ApiKind, live: KubeObject, namespace: string) {
  try {
    return await whyStuck(kubeLiveReads(client), type, live, namespace);
  } catch (err) {
    if (isForbidden(err)) return undefined;
    throw err;
  }
}

/**
 * The resources of a kind: one by name, or all of a namespace (all namespaces when undefined), those a
 * label selector matches when one is given.
 */
export async function readResources(
  client: KubeClient,
  definition: Kind,
  namespace: string | undefined,
  name?: string,
  { labelSelector }: { labelSelector?: string } = {},
): Promise<CustomResource[]> {
  const ns = definition.namespaced ? namespace : undefined;
  if (name) {
    const one = await get(client, resourcePath(definition, ns, name));
    return one ? [one as CustomResource] : [];
  }
  const list = await client.request<{ items: CustomResource[] }>({
    method: 'GET',
    path: resourcePath(definition, ns),
    query: labelSelector ? { labelSelector } : {},
  });
  return list.items.map((o) => ({ ...o, apiVersion: definition.apiVersion, kind: definition.kind }));
}

/**
 * The rings of the cluster whose leaders publish a record (the ranges read path), sorted by name. Read once
 * per command: every resource's member comes from the same records. None for a user who may not list Leases.
 */
export async function readRings(client: KubeClient): Promise<Ring[]> {
  let list: { items: KubeObject[] };
  try {
    list = await client.request<{ items: KubeObject[] }>({
      method: 'GET',
      path: resourcePath(LEASE),
      query: { labelSelector: RECORD_LABEL },
    });
  } catch (err) {
    if (isForbidden(err) || isNotFound(err)) return [];
    throw err;
  }
  const rings: Ring[] = [];
  for (const lease of list.items) {
    const name = lease.metadata.labels?.[RECORD_LABEL];
    const record = readRecord(lease.metadata.annotations);
    if (name && record) rings.push({ name, record, hashRing: new HashRing(record.members) });
  }
  return rings.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The member that holds a resource: its shard label's, written by the ring's leader (the labels read path);
 * without one, the member the ring gives its uid, from the first ring with members (the ranges read path,
 * which labels nothing; a cluster rarely runs more than one ring).
 */
export function shardOf(resource: CustomResource, rings: readonly Ring[]): Shard | undefined {
  const labels = resource.metadata.labels ?? {};
  const prefix = shardLabel('');
  const key = Object.keys(labels)
    .sort()
    .find((k) => k.startsWith(prefix) && k.length > prefix.length && labels[k]);
  if (key) {
    const ring = key.slice(prefix.length);
    return { ring, member: labels[key], path: 'labels', moving: drainLabel(ring) in labels };
  }
  const { uid } = resource.metadata;
  const ring = rings.find((r) => r.record.members.length > 0);
  const member = ring && uid ? ring.hashRing.memberFor(uid) : undefined;
  if (!ring || !member) return undefined;
  return { ring: ring.name, member, path: 'ranges', moving: ring.record.settled < ring.record.generation };
}

/**
 * The tree of one resource as the cluster has it now. `rings`: from readRings, for the member that holds it
 * on the ranges read path (default: none, the labels read path only).
 */
export async function treeOf(
  client: KubeClient,
  definition: Kind,
  resource: CustomResource,
  rings: readonly Ring[] = [],
): Promise<Tree> {
  const { namespace, name, uid, generation, deletionTimestamp, finalizers } = resource.metadata;
  const status = (resource.status ?? {}) as {
    observedGeneration?: number;
    conditions?: Tree['conditions'];
    createdChildren?: { kind: string; name: string }[];
    lastAppliedRevision?: string;
  };
  const children: TreeChild[] = [];
  const wanted = new Set<string>();
  let desired: ReturnType<typeof synthesize> = [];
  try {
    desired = synthesize(definition, resource, { owner: { uid: uid ?? '' }, admitted: true });
  } catch (err) {
    if (!(err instanceof SpecError)) throw err; // the Ready condition says why
  }
  for (const child of desired) {
    const type = definition.children.find((t) => t.apiVersion === child.apiVersion && t.kind === child.kind);
    if (!type) continue;
    const ns = type.namespaced ? (child.metadata.namespace ?? namespace) : undefined;
    const base = {
      apiVersion: child.apiVersion,
      kind: child.kind,
      ...(ns ? { namespace: ns } : {}),
      name: child.metadata.name,
    };
    wanted.add(`${child.apiVersion}/${child.kind}/${ns ?? ''}/${child.metadata.name}`);
    if (isWriteOnly(type)) {
      const made = status.createdChildren?.some(
        (c) => c.kind === child.kind && c.name === child.metadata.name,
      );
      children.push({
        ...base,
        state: 'Unknown',
        reason: made ? 'Created' : 'NotCreated',
        message: made ? 'created by the controller, which may not read it' : 'not created yet',
      });
      continue;
    }
    const live = await get(client, resourcePath(type, ns, child.metadata.name));
    const readiness = childReadiness(child, live);
    const label = `${child.kind} ${child.metadata.name}`;
    const ours = !live || live.metadata.labels?.[LABEL_MANAGED_BY] === MANAGER;
    // childReadiness names the child first; the tree shows it on the same line already.
    let message = readiness.message.slice(readiness.message.startsWith(`${label}: `) ? label.length + 2 : 0);
    // Not ready: why, in its pods' own words (or its events), when they say.
    const why =
      live && ns && ours && !readiness.ready && saysWhyStuck(type)
        ? await stuck(client, type, live, ns)
        : undefined;
    if (why) message = `${message}; ${why}`;
    children.push({
      ...base,
      state: readiness.ready && ours ? 'Ready' : 'NotReady',
      reason: ours ? readiness.reason : 'ErrResourceExists',
      message: ours ? message : 'exists and is not managed by this resource',
    });
  }
  // Children made earlier and still there, no longer wanted: the next reconcile prunes them.
  const selector = `${LABEL_PART_OF}=${applySetId(resource)}`;
  for (const type of definition.children.filter((t) => !isWriteOnly(t))) {
    const list = await client
      .request<{ items: KubeObject[] }>({
        method: 'GET',
        path: resourcePath(type, type.namespaced ? namespace : undefined),
        query: { labelSelector: selector },
      })
      .catch((err: unknown) => {
        if (isForbidden(err)) return { items: [] };
        throw err;
      });
    for (const obj of list.items) {
      const ns = type.namespaced ? obj.metadata.namespace : undefined;
      if (wanted.has(`${type.apiVersion}/${type.kind}/${ns ?? ''}/${obj.metadata.name}`)) continue;
      children.push({
        apiVersion: type.apiVersion,
        kind: type.kind,
        ...(ns ? { namespace: ns } : {}),
        name: obj.metadata.name,
        state: 'Stale',
        reason: 'NotWanted',
        message: 'no longer rendered: the next reconcile prunes it (or releases it, if retained)',
      });
    }
  }
  const shard = shardOf(resource, rings);
  return {
    apiVersion: definition.apiVersion,
    kind: definition.kind,
    ...(namespace ? { namespace } : {}),
    name,
    ...(generation !== undefined ? { generation } : {}),
    ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    ...(status.lastAppliedRevision !== undefined ? { revision: status.lastAppliedRevision } : {}),
    ...(deletionTimestamp ? { deletion: { since: deletionTimestamp, finalizers: finalizers ?? [] } } : {}),
    conditions: status.conditions ?? [],
    ...(shard ? { shard } : {}),
    children,
  };
}
