/**
 * Balancer (`exposer.hliangzhao.io/v1alpha1`): an nginx proxy that spreads a front-end
 * Service's traffic over weighted backend Services; the status counts the backend Services.
 */
import {
  DEPLOYMENT,
  LABEL_PART_OF,
  SERVICE,
  CONFIG_MAP,
  applySetId,
  customResourceClass,
  defineKind,
  type StatusContext,
} from '../kit';
import { BALANCER_LABEL, Balancer } from './balancer';
import { balancerSchema } from './schema';
import type { BalancerSpec, BalancerStatus } from './types.generated';

export { Balancer, type BalancerProps } from './balancer';
export { balancerSchema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<BalancerStatus, 'activeBackendsNum' | 'obsoleteBackendsNum'>;

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

export const balancerKind = defineKind<BalancerSpec, OwnStatus>({
  apiVersion: 'exposer.hliangzhao.io/v1alpha1',
  kind: 'Balancer',
  plural: 'balancers',
  shortNames: ['bl'],
  // The backend Services, <name>-<backend>-backend, are DNS labels: 63 less 10 for the shortest backend.
  maxNameLength: 53,
  schema: balancerSchema,
  construct: Balancer,
  children: [SERVICE, CONFIG_MAP, DEPLOYMENT],
  status(context) {
    const { active, obsolete } = backendServices(context);
    return { activeBackendsNum: active, obsoleteBackendsNum: obsolete };
  },
});

/** A Balancer custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class BalancerResource extends customResourceClass(balancerKind) {}
