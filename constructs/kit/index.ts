/** The kit: what a kind author uses to define a kind, and what the renderer and the controller take. */
export {
  CONFIG_MAP,
  CRON_JOB,
  CUSTOM_RESOURCE_DEFINITION,
  DAEMON_SET,
  DEPLOYMENT,
  EVENT,
  HORIZONTAL_POD_AUTOSCALER,
  INGRESS,
  JOB,
  LEASE,
  NAMESPACE,
  NETWORK_POLICY,
  NODE,
  PERSISTENT_VOLUME_CLAIM,
  POD,
  POD_DISRUPTION_BUDGET,
  ROLE,
  ROLE_BINDING,
  RUNTIME_CLASS,
  SECRET,
  SERVICE,
  SERVICE_ACCOUNT,
  STATEFUL_SET,
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
export * from './registry';
export * from './resource';
export * from './schema';
export * from './synthesize';
export { withoutAddressLabel } from './workload';
export * from './quantity';
