/**
 * StaticSite (`sites.example.com/v1alpha1`): nginx serving the pages of `spec.pages`, behind a Service.
 * Ready once the Deployment has rolled out `spec.replicas` available pods of the current pages;
 * `status.url` is where the site answers inside the cluster.
 *
 * The kinds this module exports (`kinds`) are what `reconstruct ... --kinds src/index.ts` loads.
 */
import {
  CONFIG_MAP,
  DEPLOYMENT,
  HORIZONTAL_POD_AUTOSCALER,
  SERVICE,
  customResourceClass,
  defineKind,
} from 'cdk8s-reconstruct';
import { StaticSite, staticSiteInputs } from './static-site';
import { staticSiteSchema } from './schema';
import type { StaticSiteSpec, StaticSiteSpecWithDefaults, StaticSiteStatus } from './types.generated';

export * from './static-site';
export { CONTAINER_PORT, staticSiteSchema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<StaticSiteStatus, 'url' | 'availableReplicas'>;

export const staticSiteKind = defineKind<StaticSiteSpec, OwnStatus, StaticSiteSpecWithDefaults>({
  apiVersion: 'sites.example.com/v1alpha1',
  kind: 'StaticSite',
  plural: 'staticsites',
  shortNames: ['site'],
  schema: staticSiteSchema,
  construct: StaticSite,
  inputs: staticSiteInputs,
  children: [CONFIG_MAP, DEPLOYMENT, SERVICE, HORIZONTAL_POD_AUTOSCALER],
  // `resource.spec` is the stored spec, defaults applied (the third type parameter): `port` is a number.
  status({ resource, view }) {
    const { name, namespace } = resource.metadata;
    const deployment = view.get(DEPLOYMENT, namespace, name);
    const available = (deployment?.status as { availableReplicas?: number } | undefined)?.availableReplicas;
    return {
      url: `http://${name}.${namespace ?? 'default'}.svc:${resource.spec.port}`,
      availableReplicas: available ?? 0,
    };
  },
});

/** A StaticSite custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class StaticSiteResource extends customResourceClass(staticSiteKind) {}

/** What `--kinds src/index.ts` loads. */
export const kinds = [staticSiteKind];
