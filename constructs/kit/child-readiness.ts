/**
 * Whether a child is ready, by the rules kstatus (sigs.k8s.io/cli-utils) applies to each kind, and the
 * rollup over a resource's children that names the first one that blocks: "StatefulSet mysql: 1 of 3
 * replicas ready". A kind's Ready condition is this rollup, and then the kind's own rule if it has one.
 */
import { isWriteOnly, kindKey, type ApiKind } from './api-kind';
import type { ClusterView, KubeObject, Readiness } from './cluster-view';
import type { Manifest } from './resource';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface LiveStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  desiredNumberScheduled?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  active?: number;
  succeeded?: number;
  failed?: number;
  phase?: string;
  loadBalancer?: { ingress?: unknown[] };
  conditions?: Condition[];
}

const READY: Readiness = { ready: true, reason: 'Ready', message: '' };

const waiting = (name: string, message: string, reason = 'Progressing'): Readiness => ({
  ready: false,
  reason,
  message: `${name}: ${message}`,
});

function condition(status: LiveStatus, type: string): Condition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** The spec's replicas, as the API server defaults them (1). */
function specReplicas(obj: KubeObject): number {
  return ((obj.spec ?? {}) as { replicas?: number }).replicas ?? 1;
}

type Rule = (name: string, obj: KubeObject, status: LiveStatus) => Readiness;

const deployment: Rule = (name, obj, status) => {
  const want = specReplicas(obj);
  const progressing = condition(status, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return waiting(
      name,
      `progress deadline exceeded${progressing.message ? `: ${progressing.message}` : ''}`,
      'Failed',
    );
  }
  // Pods that cannot be created (a quota, an admission webhook, a missing service account): say why.
  const failure = condition(status, 'ReplicaFailure');
  if (failure?.status === 'True') {
    return waiting(
      name,
      `cannot create pods: ${failure.message || failure.reason || 'ReplicaFailure'}`,
      'Failed',
    );
  }
  if ((status.updatedReplicas ?? 0) < want)
    return waiting(name, `${status.updatedReplicas ?? 0} of ${want} replicas updated`);
  if ((status.replicas ?? 0) > want)
    return waiting(name, `${(status.replicas ?? 0) - want} old replicas still terminating`);
  if ((status.availableReplicas ?? 0) < want)
    return waiting(name, `${status.availableReplicas ?? 0} of ${want} replicas available`);
  return READY;
};

const statefulSet: Rule = (name, obj, status) => {
  const want = specReplicas(obj);
  if ((status.readyReplicas ?? 0) < want)
    return waiting(name, `${status.readyReplicas ?? 0} of ${want} replicas ready`);
  const strategy = (
    obj.spec as { updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } } }
  )?.updateStrategy;
  if (strategy?.type !== 'OnDelete') {
    const partition = strategy?.rollingUpdate?.partition ?? 0;
    if ((status.updatedReplicas ?? 0) < want - partition) {
      return waiting(name, `${status.updatedReplicas ?? 0} of ${want - partition} replicas updated`);
    }
    if (partition === 0 && status.updateRevision && status.currentRevision !== status.updateRevision) {
      return waiting(name, `rolling out revision ${status.updateRevision}`);
    }
  }
  return READY;
};

const daemonSet: Rule = (name, _obj, status) => {
  const want = status.desiredNumberScheduled ?? 0;
  if ((status.updatedNumberScheduled ?? 0) < want) {
    return waiting(name, `${status.updatedNumberScheduled ?? 0} of ${want} pods updated`);
  }
  if ((status.numberAvailable ?? 0) < want)
    return waiting(name, `${status.numberAvailable ?? 0} of ${want} pods available`);
  return READY;
};

const job: Rule = (name, _obj, status) => {
  const failed = condition(status, 'Failed');
  if (failed?.status === 'True')
    return stalled(waiting(name, `failed${failed.message ? `: ${failed.message}` : ''}`, 'Failed'));
  if (condition(status, 'Complete')?.status === 'True') return READY;
  return waiting(name, `not complete (${status.active ?? 0} active, ${status.succeeded ?? 0} succeeded)`);
};

const pod: Rule = (name, _obj, status) => {
  if (status.phase === 'Succeeded') return READY;
  if (status.phase === 'Failed') return stalled(waiting(name, 'failed', 'Failed'));
  return condition(status, 'Ready')?.status === 'True'
    ? READY
    : waiting(name, `not ready (${status.phase ?? 'Pending'})`);
};

const claim: Rule = (name, _obj, status) =>
  status.phase === 'Bound' ? READY : waiting(name, `${status.phase ?? 'Pending'}, not bound`);

const service: Rule = (name, obj, status) => {
  const type = (obj.spec as { type?: string } | undefined)?.type;
  if (type === 'LoadBalancer' && (status.loadBalancer?.ingress?.length ?? 0) === 0) {
    return waiting(name, 'no load balancer address yet');
  }
  return READY;
};

/** Anything else: its Ready condition if it has one, a Stalled or Failed condition, or ready once it exists. */
const generic: Rule = (name, _obj, status) => {
  const ready = condition(status, 'Ready');
  const stuck = ['Stalled', 'Failed'].find((type) => condition(status, type)?.status === 'True');
  if (ready) {
    if (ready.status === 'True') return READY;
    const notReady = waiting(
      name,
      ready.message || `Ready is ${ready.status}`,
      ready.reason || 'Progressing',
    );
    return stuck ? stalled(notReady) : notReady;
  }
  if (stuck) {
    const c = condition(status, stuck);
    return stalled(waiting(name, c?.message || stuck, c?.reason || stuck));
  }
  if (condition(status, 'Reconciling')?.status === 'True') return waiting(name, 'reconciling');
  return READY;
};

/** A child's failure that waiting will not mend (a Job that failed, a kind's `Stalled=True`): so is its owner's. */
const stalled = (readiness: Readiness): Readiness => ({ ...readiness, stalled: true });

const RULES: Record<string, Rule> = {
  'apps/v1/Deployment': deployment,
  'apps/v1/ReplicaSet': deployment,
  'apps/v1/StatefulSet': statefulSet,
  'apps/v1/DaemonSet': daemonSet,
  'batch/v1/Job': job,
  'v1/Pod': pod,
  'v1/PersistentVolumeClaim': claim,
  'v1/Service': service,
};

/**
 * Whether one child is ready, from its live object (undefined: it does not exist). `Readiness.message`
 * names the child: `<Kind> <name>: <what it waits for>`.
 */
export function childReadiness(
  child: Pick<Manifest, 'apiVersion' | 'kind' | 'metadata'>,
  live: KubeObject | undefined,
): Readiness {
  const name = `${child.kind} ${child.metadata.name}`;
  if (!live) return waiting(name, 'does not exist yet');
  if (live.metadata.deletionTimestamp) return waiting(name, 'being deleted');
  const status = (live.status ?? {}) as LiveStatus;
  const generation = live.metadata.generation;
  if (
    generation !== undefined &&
    status.observedGeneration !== undefined &&
    status.observedGeneration < generation
  ) {
    return waiting(name, 'its latest spec is not observed yet');
  }
  const rule = RULES[kindKey(child)] ?? generic;
  return rule(name, live, status);
}

/**
 * The readiness of a resource's children: the first one in the construct's order that is not ready, with
 * why; or ready when all are. `kinds` are the kind's child kinds (for the view's lookups); children of
 * write-only kinds are not looked at.
 */
export function childrenReadiness(
  children: readonly Manifest[],
  view: ClusterView,
  kinds: readonly ApiKind[],
  namespace: string | undefined,
): Readiness {
  for (const child of children) {
    const type = kinds.find((k) => k.apiVersion === child.apiVersion && k.kind === child.kind);
    // Never read: it exists once created, and the reconcile reports a failed creation itself.
    if (type && isWriteOnly(type)) continue;
    const live = type
      ? view.get(
          type,
          type.namespaced ? (child.metadata.namespace ?? namespace) : undefined,
          child.metadata.name,
        )
      : undefined;
    const readiness = childReadiness(child, live);
    if (!readiness.ready) return readiness;
  }
  return { ready: true, reason: 'Ready', message: `all ${children.length} child object(s) ready` };
}
