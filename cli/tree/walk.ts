/**
 * One resource as a tree, read from the cluster: its conditions and each child the construct wants, with
 * whether it is ready and why not (the same kstatus rules as the Ready rollup), plus the children it made
 * earlier that are still there but no longer wanted (the next reconcile prunes them).
 */
import {
  LABEL_MANAGED_BY,
  LABEL_PART_OF,
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

/** The resources of a kind: one by name, or all of a namespace (all namespaces when undefined). */
export async function readResources(
  client: KubeClient,
  definition: Kind,
  namespace: string | undefined,
  name?: string,
): Promise<CustomResource[]> {
  const ns = definition.namespaced ? namespace : undefined;
  if (name) {
    const one = await get(client, resourcePath(definition, ns, name));
    return one ? [one as CustomResource] : [];
  }
  const list = await client.request<{ items: CustomResource[] }>({
    method: 'GET',
    path: resourcePath(definition, ns),
  });
  return list.items.map((o) => ({ ...o, apiVersion: definition.apiVersion, kind: definition.kind }));
}

/** The tree of one resource as the cluster has it now. */
export async function treeOf(client: KubeClient, definition: Kind, resource: CustomResource): Promise<Tree> {
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
    children,
  };
}
