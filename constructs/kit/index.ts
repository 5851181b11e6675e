/** The kit: what a kind author uses to define a kind, and what the renderer and the controller take. */
export {
  CLUSTER_ROLE,
  CLUSTER_ROLE_BINDING,
  CONFIG_MAP,
  CRON_JOB,
  CUSTOM_RESOURCE_DEFINITION,
  DAEMON_SET,
  DEPLOYMENT,
  ENDPOINTS,
  ENDPOINT_SLICE,
  EVENT,
  HORIZONTAL_POD_AUTOSCALER,
  INGRESS,
  INGRESS_CLASS,
  JOB,
  LEASE,
  LIMIT_RANGE,
  MUTATING_WEBHOOK_CONFIGURATION,
  NAMESPACE,
  NETWORK_POLICY,
  NODE,
  PERSISTENT_VOLUME,
  PERSISTENT_VOLUME_CLAIM,
  POD,
  POD_DISRUPTION_BUDGET,
  PRIORITY_CLASS,
  REPLICA_SET,
  RESOURCE_QUOTA,
  ROLE,
  ROLE_BINDING,
  RUNTIME_CLASS,
  SECRET,
  SERVICE,
  SERVICE_ACCOUNT,
  STATEFUL_SET,
  STORAGE_CLASS,
  VALIDATING_WEBHOOK_CONFIGURATION,
  apiKind,
  groupOf,
  isWriteOnly,
  writeOnly,
  type ApiKind,
  type WriteOnlyKind,
} from './api-kind';
export * from './cluster-view';
export * from './custom-resource';
export { admitSpec } from './admit';
export { withDefaults } from './defaults';
export * from './define-kind';
export {
  EXTERNAL_FINALIZER,
  ExternalError,
  OBSERVE_INTERVAL_ANNOTATION,
  fieldDifferences,
  type ExternalContext,
  type ExternalLog,
  type ExternalSecret,
  type ExternalWork,
  type KindExternal,
} from './external';
export * from './inputs';
export * from './kind';
export type { KindSchema, ScaleSubresource } from './kind-schema';
export { KindDefinitionError } from './kind-checks';
export type { KindPermission } from './permission';
export * from './child-readiness';
export {
  ADOPT_ANNOTATION,
  CREATE_ONLY_ANNOTATION,
  GENERATE_ANNOTATION,
  IGNORE_FIELDS_ANNOTATION,
  OFFLINE_HINT_ANNOTATION,
  OWNER_UID_ANNOTATION,
  RELEASED_FROM_ANNOTATION,
  RETAIN_ANNOTATION,
  REPLACE_ANNOTATION,
  WAIT_FOR_ANNOTATION,
  childPolicy,
  type ChildPolicy,
  type GeneratedValue,
} from './child-policy';
export {
  DNS_LABEL,
  DNS_SUBDOMAIN,
  LABEL_KEY,
  LABEL_VALUE,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
} from './names';
export * from './registry';
export { CONVERSION_DATA_ANNOTATION } from './conversion';
export { DEFAULT_CONVERSION_SERVICE } from './kind-crd';
export type { KindVersion, VersionInfo, VersionedParts } from './versions';
export * from './resource';
export * from './schema';
export * from './synthesize';
export { withoutAddressLabel } from './workload';
export * from './quantity';
export * from './operations';
