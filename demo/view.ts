/**
 * The demo's live view, computed from what kubectl reads: for each custom resource its Ready condition,
 * its status fields and its children, each marked done or not. Pure: a snapshot in, lines out.
 *
 * The children shown are the ones the resource should have (synthesized here with the function the
 * controller uses), so a child that does not exist yet shows up as missing rather than not at all.
 */
import { KindRegistry, builtinKinds, synthesize, type CustomResource, type Manifest } from '../constructs';
import { memberLabel, nodePoolMembership } from '../constructs/node-pool/node-pool';

const registry = new KindRegistry(builtinKinds);

/** An object as kubectl prints it with `-o json`, reduced to what the view reads. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    ownerReferences?: { uid: string; controller?: boolean }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
  handler?: string;
}

/** A resource the demo applied, by identity. */
export interface Applied {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export interface Snapshot {
  /** The live custom resources (any of them; the view picks the applied ones). */
  resources: KubeObject[];
  /** Live objects of the child kinds. */
  children: KubeObject[];
  nodes: KubeObject[];
}

interface ResourceView {
  /** `Kind namespace/name`. */
  title: string;
  lines: string[];
  done: boolean;
  /** Why it is not done, for the footer and the timeout message. */
  waitingFor?: string;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

interface Row {
  done: boolean;
  what: string;
  state: string;
}

const same = (a: { kind: string; metadata: { name: string; namespace?: string } }, b: Applied | Manifest) => {
  const name = 'metadata' in b ? b.metadata.name : b.name;
  const namespace = 'metadata' in b ? b.metadata.namespace : b.namespace;
  return a.kind === b.kind && a.metadata.name === name && (a.metadata.namespace ?? '') === (namespace ?? '');
};

const num = (value: unknown) => (typeof value === 'number' ? value : 0);

/** A status field, short: lists show their first items, maps as key=value. */
function formatValue(value: unknown): string {
  if (Array.isArray(value)) {
    const shown = value.slice(0, 3).map(formatValue);
    if (value.length > 3) shown.push(`+${value.length - 3} more`);
    return `[${shown.join(', ')}]`;
  }
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${formatValue(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/** One child's state in a few words, and whether it is where it should be. */
function childState(live: KubeObject): { done: boolean; state: string } {
  switch (live.kind) {
    case 'Deployment': {
      const replicas = typeof live.spec?.replicas === 'number' ? live.spec.replicas : 1;
      const available = num(live.status?.availableReplicas);
      const updated = num(live.status?.updatedReplicas);
      const observed = num(live.status?.observedGeneration) >= (live.metadata.generation ?? 0);
      const done = observed && available >= replicas && updated >= replicas;
      return { done, state: `${available}/${replicas} available${done ? '' : ', rolling out'}` };
    }
    case 'StatefulSet': {
      const replicas = typeof live.spec?.replicas === 'number' ? live.spec.replicas : 1;
      const ready = num(live.status?.readyReplicas);
      const observed = num(live.status?.observedGeneration) >= (live.metadata.generation ?? 0);
      const done =
        observed &&
        ready >= replicas &&
        num(live.status?.updatedReplicas) >= replicas &&
        live.status?.currentRevision === live.status?.updateRevision;
      return { done, state: `${ready}/${replicas} ready${done ? '' : ', rolling out'}` };
    }
    case 'Service': {
      const ports = ((live.spec?.ports ?? []) as { port: number; protocol?: string }[])
        .map((p) => `${p.port}/${p.protocol ?? 'TCP'}`)
        .join(',');
      const type = typeof live.spec?.type === 'string' ? live.spec.type : 'ClusterIP';
      const ip = typeof live.spec?.clusterIP === 'string' ? live.spec.clusterIP : '';
      return { done: true, state: `${type} ${ip} ${ports}`.replace(/ +/g, ' ').trim() };
    }
    case 'ConfigMap': {
      const keys = Object.keys(live.data ?? {});
      return { done: true, state: `${keys.length} key(s): ${keys.join(', ')}` };
    }
    case 'RuntimeClass':
      return { done: true, state: `handler ${live.handler ?? '?'}` };
    default:
      return { done: true, state: 'exists' };
  }
}

function childRows(resource: KubeObject, children: KubeObject[]): { rows: Row[]; error?: string } {
  let desired: Manifest[];
  try {
    const cr = resource as unknown as CustomResource;
    const kind = registry.get(cr.apiVersion, cr.kind);
    if (!kind) return { rows: [], error: `no kind ${cr.apiVersion} ${cr.kind}` };
    desired = synthesize(kind, cr, { admitted: true });
  } catch (err) {
    return { rows: [], error: (err as Error).message };
  }
  const rows: Row[] = desired.map((want) => {
    const live = children.find((c) => same(c, want) && !c.metadata.deletionTimestamp);
    const what = `${want.kind} ${want.metadata.name}`;
    if (!live) return { done: false, what, state: 'not created yet' };
    return { what, ...childState(live) };
  });
  // What the resource owns and no longer wants: the controller prunes it.
  for (const obj of children) {
    const owned = (obj.metadata.ownerReferences ?? []).some(
      (r) => r.controller && r.uid === resource.metadata.uid,
    );
    if (owned && !desired.some((want) => same(obj, want))) {
      rows.push({ done: false, what: `${obj.kind} ${obj.metadata.name}`, state: 'not wanted, to be pruned' });
    }
  }
  return { rows };
}

/** A NodePool's member nodes, with the pool's labels and taints as they are on each. */
function memberRows(pool: KubeObject, nodes: KubeObject[]): Row[] {
  let want: ReturnType<typeof nodePoolMembership>;
  try {
    want = nodePoolMembership(pool.spec ?? {});
  } catch {
    return [];
  }
  const label = memberLabel(pool.metadata.name);
  const members = nodes.filter((n) => n.metadata.labels?.[label] !== undefined);
  if (members.length === 0) return [{ done: false, what: 'Node', state: `none labelled ${label}` }];
  return members.map((node) => {
    const labels = node.metadata.labels ?? {};
    const taints = (node.spec?.taints ?? []) as { key: string; value?: string; effect: string }[];
    const labelText = Object.keys(want.labels).map((k) =>
      k in labels ? `${k}=${labels[k]}` : `${k} missing`,
    );
    const taintText = taints.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`);
    const done =
      Object.entries(want.labels).every(([k, v]) => labels[k] === v) &&
      want.taints.every((w) =>
        taints.some((t) => t.key === w.key && (t.value ?? '') === w.value && t.effect === w.effect),
      );
    const state = `labels ${labelText.join(' ') || '-'}  taints ${taintText.join(' ') || '-'}`;
    return { done, what: `Node ${node.metadata.name}`, state };
  });
}

const mark = (done: boolean) => (done ? '✓' : '…');

/** The view of one applied resource. */
function resourceView(applied: Applied, snapshot: Snapshot): ResourceView {
  const title = `${applied.kind} ${applied.namespace ? `${applied.namespace}/` : ''}${applied.name}`;
  const live = snapshot.resources.find((r) => same(r, applied));
  if (!live) {
    return { title, lines: [`${mark(false)} ${title}  not found`], done: false, waitingFor: 'not found' };
  }
  const status = live.status ?? {};
  const ready = ((status.conditions ?? []) as Condition[]).find((c) => c.type === 'Ready');
  const generation = live.metadata.generation ?? 0;
  const current = num(ready?.observedGeneration ?? status.observedGeneration) >= generation;
  const readyText = ready
    ? `Ready=${ready.status} ${ready.reason ?? ''}${ready.message ? `: ${ready.message}` : ''}`
    : 'no Ready condition yet';

  const fields = Object.entries(status)
    .filter(([key]) => key !== 'conditions' && key !== 'observedGeneration')
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  const { rows, error } = childRows(live, snapshot.children);
  if (live.kind === 'NodePool') rows.push(...memberRows(live, snapshot.nodes));

  const deleting = live.metadata.deletionTimestamp !== undefined;
  const conditionDone = ready?.status === 'True' && current && !deleting;
  const done = conditionDone && !error && rows.every((r) => r.done);
  const width = Math.max(0, ...rows.map((r) => r.what.length));
  const lines = [
    `${mark(done)} ${title}  ${deleting ? 'being deleted; ' : ''}${readyText}${ready && !current ? ' (previous generation)' : ''}`,
    `    status   ${fields.join('  ') || '-'}`,
    ...(error ? [`    cannot synthesize: ${error}`] : []),
    ...rows.map((r) => `    ${mark(r.done)} ${r.what.padEnd(width)}  ${r.state}`),
  ];
  let waitingFor: string | undefined;
  if (!done) {
    const child = rows.find((r) => !r.done);
    waitingFor = deleting
      ? 'being deleted'
      : !conditionDone
        ? readyText
        : child
          ? `${child.what}: ${child.state}`
          : (error ?? 'status');
  }
  return { title, lines, done, waitingFor };
}

/** Every applied resource's view, in the order applied. */
export function render(applied: Applied[], snapshot: Snapshot): { lines: string[]; views: ResourceView[] } {
  const views = applied.map((a) => resourceView(a, snapshot));
  const lines = views.flatMap((v) => [...v.lines, '']);
  return { lines, views };
}
