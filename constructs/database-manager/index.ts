/**
 * DatabaseManager (`coolops.cn/v1alpha1`, short name `dm`): a MySQL or MariaDB Deployment named
 * `spec.deploymentName`; `status.availableReplicas` mirrors it.
 */
import { DEPLOYMENT, customResourceClass, defineKind } from '../kit';
import { DatabaseManager, databaseDeploymentName } from './database-manager';
import { databaseManagerSchema } from './schema';
import type { DatabaseManagerSpec, DatabaseManagerStatus } from './types.generated';

export { DatabaseManager, type DatabaseManagerProps } from './database-manager';
export { databaseManagerSchema } from './schema';
export type * from './types.generated';

type OwnStatus = Pick<DatabaseManagerStatus, 'availableReplicas'>;

export const databaseManagerKind = defineKind<DatabaseManagerSpec, OwnStatus>({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  plural: 'databasemanagers',
  shortNames: ['dm'],
  schema: databaseManagerSchema,
  construct: DatabaseManager,
  children: [DEPLOYMENT],
  status({ resource, view }) {
    const { namespace, name } = resource.metadata;
    const live = view.get(DEPLOYMENT, namespace, databaseDeploymentName({ name, spec: resource.spec }));
    return {
      availableReplicas: ((live?.status ?? {}) as { availableReplicas?: number }).availableReplicas ?? 0,
    };
  },
});

/** A DatabaseManager custom resource, for a cdk8s app that emits resources for the operator to reconcile. */
export class DatabaseManagerResource extends customResourceClass(databaseManagerKind) {}
