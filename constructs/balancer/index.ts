/**
 * Balancer (`exposer.hliangzhao.io/v1beta1`, stored; `v1alpha1` served, deprecated): an nginx proxy that
 * spreads a front-end Service's traffic over weighted backend Services, scaled by `kubectl scale`; the
 * status counts the backend Services and the proxy's pods.
 */
import {
  DEPLOYMENT,
  LABEL_PART_OF,
  SERVICE,
  CONFIG_MAP,
  applySetId,
  customResourceClass,
  defineKind,
  type KindVersion,
  type StatusContext,
} from '../kit';
import { BALANCER_LABEL, Balancer } from './balancer';
import { balancerSchema, balancerV1alpha1Schema } from './schema';
import type {
  BalancerSpec,
  BalancerStatus,
  BalancerV1alpha1Spec,
  BalancerV1alpha1Status,
} from './types.generated';

export { Balancer, type BalancerProps } from './balancer';
export { balancerSchema, balancerV1alpha1Schema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<BalancerStatus, 'activeBackendsNum' | 'obsoleteBackendsNum' | 'replicas' | 'selector'>;

/**
 * v1alpha1, the first version: v1beta1 without `spec.replicas` (read as v1beta1, a v1alpha1 balancer has
 * the default, one pod) and without the scale subresource's status fields.
 */
const balancerV1alpha1: KindVersion<BalancerSpec, OwnStatus, BalancerV1alpha1Spec, BalancerV1alpha1Status> = {
  name: 'v1alpha1',
  schema: balancerV1alpha1Schema,
  deprecated: 'exposer.hliangzhao.io/v1alpha1 Balancer is deprecated; use exposer.hliangzhao.io/v1beta1',
  onlyInHub: ['spec.replicas', 'status.replicas', 'status.selector'],
  toHub: ({ spec, status }) => ({ spec, ...(status ? { status } : {}) }),
  fromHub: ({ spec, status }) => ({
    spec: without(spec, 'replicas'),
    ...(status ? { status: without(status, 'replicas', 'selector') } : {}),
  }),
};

/** `o` without `keys`. */
function without<T extends object, K extends keyof T>(o: T, ...keys: K[]): Omit<T, K> {
  const copy = { ...o };
  for (const key of keys) delete copy[key];
  return copy;
}

/** The backend Services the balancer wants, and those labelled as its own in its namespace. */
function backendServices({ resource, children, view }: StatusContext<BalancerSpec>) {
  const { namespace, name } = resource.metadata;
  const wanted = new Set(
    children
      .filter((c) => c.kind === 'Service' && c.metadata.labels?.[BALANCER_LABEL] === name)
      .map((s) => s.metadata.name),
  );
  const labelled = view
    .list(SERVICE, namespace, { label: LABEL_PART_OF, value: applySetId(resource) })
    .filter((s) => s.metadata.labels?.[BALANCER_LABEL] === name);
  const active = labelled.filter((s) => wanted.has(s.metadata.name)).length;
  return { active, obsolete: labelled.length - active };
}

/** The proxy's pods there are, and their selector in its string form: what the scale subresource reads. */
function proxyPods({
  resource,
  children,
  view,
}: StatusContext<BalancerSpec>): Pick<OwnStatus, 'replicas' | 'selector'> {
  const desired = children.find((c) => c.kind === 'Deployment') as
    | { metadata: { name: string }; spec?: { selector?: { matchLabels?: Record<string, string> } } }
    | undefined;
  if (!desired) return {};
  const live = view.get(DEPLOYMENT, resource.metadata.namespace, desired.metadata.name) as
    { status?: { replicas?: number } } | undefined;
  const labels = desired.spec?.selector?.matchLabels ?? {};
  return {
    replicas: live?.status?.replicas ?? 0,
    selector: Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  };
}

export const balancerKind = defineKind<BalancerSpec, OwnStatus>({
  apiVersion: 'exposer.hliangzhao.io/v1beta1',
  kind: 'Balancer',
  plural: 'balancers',
  shortNames: ['bl'],
  // The backend Services, <name>-<backend>-backend, are DNS labels: 63 less 10 for the shortest backend.
  maxNameLength: 53,
  schema: balancerSchema,
  construct: Balancer,
  children: [SERVICE, CONFIG_MAP, DEPLOYMENT],
  versions: [balancerV1alpha1],
  status(context) {
    const { active, obsolete } = backendServices(context);
    return { activeBackendsNum: active, obsoleteBackendsNum: obsolete, ...proxyPods(context) };
  },
});

/** A Balancer custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class BalancerResource extends customResourceClass(balancerKind) {}
