/**
 * Why a workload's pods are not ready, in the pods' own words: the scheduler's message, an image that
 * cannot be pulled, a crash loop with its last exit code, a Failed pod's reason; for what the pod's
 * status does not say (a failing probe, a volume that does not mount), its newest Warning event. One line,
 * for the Ready condition's message and `reconstruct tree`. Pure: the controller and the CLI read the pods
 * (controller/reconcile/pod-reasons.ts, cli/tree/walk.ts) and this says what they show.
 */
import { kindKey, type ApiKind } from './api-kind';
import type { KubeObject } from './cluster-view';
import type { LabelSelector } from './selectors';

/** The child kinds whose pods can say why they are not ready: they select them by `spec.selector`. */
const POD_OWNERS = new Set([
  'apps/v1/Deployment',
  'apps/v1/ReplicaSet',
  'apps/v1/StatefulSet',
  'apps/v1/DaemonSet',
  'batch/v1/Job',
]);

export const ownsPods = (type: Pick<ApiKind, 'apiVersion' | 'kind'>): boolean =>
  POD_OWNERS.has(kindKey(type));

/** The child kinds that can say why they are stuck: by their pods, a pod by itself, a claim by its events. */
export const saysWhyStuck = (type: Pick<ApiKind, 'apiVersion' | 'kind'>): boolean =>
  ownsPods(type) || ['v1/Pod', 'v1/PersistentVolumeClaim'].includes(kindKey(type));

/** The pods' selector of a workload (`spec.selector`), or undefined when it has none. */
export function podSelectorOf(workload: KubeObject): LabelSelector | undefined {
  const selector = (workload.spec as { selector?: LabelSelector } | undefined)?.selector;
  const empty = !selector?.matchLabels && !selector?.matchExpressions?.length;
  return selector && !empty ? selector : undefined;
}

/** A selector in the syntax of a list's `labelSelector` parameter. */
export function selectorQuery(selector: LabelSelector): string {
  const terms = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    if (operator === 'In') terms.push(`${key} in (${values.join(',')})`);
    else if (operator === 'NotIn') terms.push(`${key} notin (${values.join(',')})`);
    else if (operator === 'Exists') terms.push(key);
    else if (operator === 'DoesNotExist') terms.push(`!${key}`);
  }
  return terms.join(',');
}

/** What blocks the pods of a workload, the worst first found. */
export interface PodTrouble {
  /** The pod the reason and message are read from. */
  readonly pod: string;
  /** The pods' own reason: `Unschedulable`, `ImagePullBackOff`, `CrashLoopBackOff`, `Evicted`, ... */
  readonly reason: string;
  readonly message: string;
  /** How many pods have this reason (the named one included). */
  readonly count: number;
  /**
   * Nothing in the pod's status says why it is not ready: its newest Warning event may (a probe failing, a
   * volume that does not mount), and the reader asks for it (withEvent), or it is on its way.
   */
  readonly needsEvent?: boolean;
}

interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: object;
  terminated?: { exitCode?: number; reason?: string; message?: string };
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

interface PodStatus {
  phase?: string;
  reason?: string;
  message?: string;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
}

/** Container waiting reasons that are a failure, not a step of starting (ContainerCreating, PodInitializing). */
const FAILING_WAIT = new Set([
  'CrashLoopBackOff',
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PreStartHookError',
  'PostStartHookError',
]);

/** How bad a trouble is, to pick the one to show: lower is worse. */
type Found = { rank: number; reason: string; message: string; needsEvent?: boolean };

const exit = (t: NonNullable<ContainerState['terminated']>): string =>
  `exit code ${t.exitCode ?? '?'}${t.reason ? ` (${t.reason})` : ''}`;

function containerTrouble(c: ContainerStatus): Found | undefined {
  const waiting = c.state?.waiting;
  if (waiting?.reason && FAILING_WAIT.has(waiting.reason)) {
    const last = c.lastState?.terminated;
    const message =
      waiting.reason === 'CrashLoopBackOff' && last
        ? `container ${c.name} last ended with ${exit(last)}, ${c.restartCount ?? 0} restarts`
        : `container ${c.name}: ${waiting.message || waiting.reason}`;
    return { rank: 1, reason: waiting.reason, message };
  }
  const ended = c.state?.terminated;
  if (ended && ended.exitCode !== 0) {
    return {
      rank: 2,
      reason: ended.reason || 'Error',
      message: `container ${c.name} ended with ${exit(ended)}`,
    };
  }
  return undefined;
}

/** Why one pod is not ready, or undefined when it is ready or only on its way (being created, started). */
function troubleOf(pod: KubeObject): Found | undefined {
  if (pod.metadata.deletionTimestamp) return undefined;
  const status = (pod.status ?? {}) as PodStatus;
  if (status.phase === 'Succeeded') return undefined;
  if (status.phase === 'Failed') {
    return { rank: 0, reason: status.reason || 'Failed', message: status.message || 'the pod failed' };
  }
  for (const c of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const found = containerTrouble(c);
    if (found) return found;
  }
  const conditions = status.conditions ?? [];
  const scheduled = conditions.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return {
      rank: 3,
      reason: scheduled.reason || 'Unschedulable',
      message: scheduled.message || 'not scheduled',
    };
  }
  if (conditions.find((c) => c.type === 'Ready')?.status === 'True') return undefined;
  // Scheduled and not ready, and its status says no more: its events may (a failing probe, a volume that
  // does not mount, a sandbox that cannot be made), or it is on its way.
  if (!scheduled) return undefined; // not looked at by the scheduler yet
  return { rank: 4, reason: 'NotReady', message: 'not ready', needsEvent: true };
}

/**
 * The worst trouble among a workload's pods (the first pod by name among those that share it), with how
 * many pods share its reason; undefined when no pod says anything (all ready, or on their way).
 */
export function podTrouble(pods: readonly KubeObject[]): PodTrouble | undefined {
  let worst: { pod: string; found: Found } | undefined;
  const counts = new Map<string, number>();
  const sorted = [...pods].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  for (const pod of sorted) {
    const found = troubleOf(pod);
    if (!found) continue;
    counts.set(found.reason, (counts.get(found.reason) ?? 0) + 1);
    if (!worst || found.rank < worst.found.rank) worst = { pod: pod.metadata.name, found };
  }
  if (!worst) return undefined;
  const { reason, message, needsEvent } = worst.found;
  return {
    pod: worst.pod,
    reason,
    message,
    count: counts.get(reason) ?? 1,
    ...(needsEvent ? { needsEvent } : {}),
  };
}

interface EventLike {
  type?: string;
  reason?: string;
  message?: string;
  lastTimestamp?: string;
  eventTime?: string;
  metadata: { creationTimestamp?: string };
}

const eventTime = (e: EventLike): string =>
  e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? '';

/** The newest Warning event of an object, from the events about it (any order); else, with `any`, the newest. */
export function newestEvent(
  events: readonly KubeObject[],
  any = false,
): { reason: string; message: string } | undefined {
  const all = (events as unknown as EventLike[]).filter((e) => e.message);
  const warnings = all.filter((e) => e.type === 'Warning');
  const pick = warnings.length > 0 ? warnings : any ? all : [];
  if (pick.length === 0) return undefined;
  const newest = pick.reduce((a, b) => (eventTime(b) >= eventTime(a) ? b : a));
  return { reason: newest.reason || newest.type || 'Event', message: newest.message ?? '' };
}

/**
 * A pod's trouble told by its newest Warning event, when its status said nothing more (needsEvent); with
 * no Warning, nothing: the pod is on its way (its containers being created, started).
 */
export function withEvent(trouble: PodTrouble, events: readonly KubeObject[]): PodTrouble | undefined {
  if (!trouble.needsEvent) return trouble;
  const warning = newestEvent(events);
  return warning && { pod: trouble.pod, reason: warning.reason, message: warning.message, count: 1 };
}

/** The longest message shown: a scheduler's can run to several hundred characters. */
export const TROUBLE_MESSAGE_MAX = 200;

/** One line, at most `max` characters, cut at a word where one is near. */
export function oneLine(text: string, max = TROUBLE_MESSAGE_MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.75 ? cut.slice(0, space) : cut}…`;
}

/** How the trouble reads after a child's readiness: `pod web-0 (and 2 more): Unschedulable: 0/3 nodes ...`. */
export function troubleLine(t: PodTrouble): string {
  const more = t.count > 1 ? ` (and ${t.count - 1} more)` : '';
  return `pod ${t.pod}${more}: ${t.reason}: ${oneLine(t.message)}`;
}
