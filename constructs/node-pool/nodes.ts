/**
 * A NodePool's labels and taints on its member nodes. Node taints are an atomic list, so server-side
 * apply cannot share them between managers; instead each pool records on the node, in an annotation,
 * exactly what it set, and a level-based plan computes the patch from the node as it is: the pool's
 * labels and taints on members, and the removal of what it set where it no longer wants it. Other tools'
 * labels and taints, and those another pool also claims, are never removed.
 */
import type { KubeObject } from '../kit';
import type { NodePoolSpec } from './types.generated';

/** Keeps the pool from disappearing before its labels and taints are off the nodes. */
export const POOL_FINALIZER = 'nodes.lailin.xyz/node-cleanup';
const RECORD_PREFIX = 'nodes.lailin.xyz/pool.';

/** A taint of the spec, its value defaulted. */
export type NodePoolTaint = Required<NonNullable<NodePoolSpec['taints']>[number]>;

/** What a pool puts on each member node. */
export interface Membership {
  labels: Record<string, string>;
  taints: NodePoolTaint[];
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/** The annotation on a node recording what `pool` set there. */
export function recordAnnotation(pool: string): string {
  return `${RECORD_PREFIX}${pool}`;
}

/** The pools that recorded something on `node`. */
export function recordingPools(node: KubeObject): string[] {
  return Object.keys(node.metadata.annotations ?? {})
    .filter((k) => k.startsWith(RECORD_PREFIX))
    .map((k) => k.slice(RECORD_PREFIX.length));
}

function parseRecord(text: string | undefined): Membership {
  try {
    const parsed = JSON.parse(text ?? '') as Partial<Membership>;
    return { labels: parsed.labels ?? {}, taints: parsed.taints ?? [] };
  } catch {
    return { labels: {}, taints: [] };
  }
}

const taintKey = (t: { key: string; effect: string }) => `${t.key}\u0000${t.effect}`;

/**
 * The JSON merge patch that brings `node` to what `pool` wants of it (`desired`, or nothing when the node
 * is not a member or the pool is being deleted), or undefined when the node is already there. The patch
 * carries the node's resourceVersion, so it fails rather than overwrite a concurrent change to the taints.
 */
export function planNode(
  node: KubeObject,
  pool: string,
  desired: Membership | undefined,
): object | undefined {
  const annotations = node.metadata.annotations ?? {};
  const labels = node.metadata.labels ?? {};
  const recorded = parseRecord(annotations[recordAnnotation(pool)]);
  const want: Membership = desired ?? { labels: {}, taints: [] };

  const claimedLabels = new Set<string>();
  const claimedTaints = new Set<string>();
  for (const other of recordingPools(node).filter((p) => p !== pool)) {
    const record = parseRecord(annotations[recordAnnotation(other)]);
    Object.keys(record.labels).forEach((k) => claimedLabels.add(k));
    record.taints.forEach((t) => claimedTaints.add(taintKey(t)));
  }

  const labelPatch: Record<string, string | null> = {};
  for (const key of Object.keys(recorded.labels)) {
    if (!(key in want.labels) && !claimedLabels.has(key) && key in labels) labelPatch[key] = null;
  }
  for (const [key, value] of Object.entries(want.labels)) {
    if (labels[key] !== value) labelPatch[key] = value;
  }

  const current = (node.spec as { taints?: Taint[] } | undefined)?.taints ?? [];
  const wanted = new Set(want.taints.map(taintKey));
  const drop = new Set(recorded.taints.map(taintKey).filter((k) => !wanted.has(k) && !claimedTaints.has(k)));
  const taints = current.filter((t) => !drop.has(taintKey(t)));
  for (const t of want.taints) {
    const i = taints.findIndex((c) => taintKey(c) === taintKey(t));
    const taint: Taint = t.value
      ? { key: t.key, value: t.value, effect: t.effect }
      : { key: t.key, effect: t.effect };
    if (i < 0) taints.push(taint);
    else if ((taints[i].value ?? '') !== (t.value ?? '')) taints[i] = taint;
  }
  const taintsChanged = JSON.stringify(taints) !== JSON.stringify(current);

  const empty = Object.keys(want.labels).length === 0 && want.taints.length === 0;
  const record = empty ? undefined : JSON.stringify({ labels: want.labels, taints: want.taints });
  const recordPatch = annotations[recordAnnotation(pool)] === record ? undefined : (record ?? null);

  if (Object.keys(labelPatch).length === 0 && !taintsChanged && recordPatch === undefined) return undefined;
  return {
    metadata: {
      resourceVersion: node.metadata.resourceVersion,
      ...(Object.keys(labelPatch).length > 0 ? { labels: labelPatch } : {}),
      ...(recordPatch !== undefined ? { annotations: { [recordAnnotation(pool)]: recordPatch } } : {}),
    },
    ...(taintsChanged ? { spec: { taints } } : {}),
  };
}
