/**
 * cdk8s-reconstruct: Kubernetes operators written as cdk8s constructs.
 *
 * - The kit: `defineKind` and what a kind is made of (schema helpers, API kinds, readiness, `withDefaults`).
 * - The built-in kinds and their typed constructs and resource classes (`Memcached`, `MemcachedResource`,
 *   `memcachedKind`, ...), and `builtinKinds`.
 * - Offline rendering (`renderResources`, `synthesize`), the install manifests (`installManifests`), the
 *   controller (`runController`, loaded on first call: importing the package never loads the HTTP client).
 *
 * docs/API.md lists the exported API; it follows semantic versioning.
 */
import type { KindRegistry, Kind } from './constructs/kit';
import type { ControllerSettings } from './controller/runtime/run';

export * from './constructs';
export { installManifests, type InstallOptions } from './controller/install/install';
export { OperatorInstall, type InstallProps } from './controller/install/operator-install';
export { ControllerRbac, type ControllerRbacProps } from './controller/install/controller-rbac';
export {
  ControllerDeployment,
  type ControllerDeploymentProps,
} from './controller/install/controller-deployment';
export { MetricsAccess, type MetricsAccessProps } from './controller/install/metrics-access';
export { PreviewerAccess, type PreviewerAccessProps } from './controller/install/previewer-access';
export type { ControllerSettings } from './controller/runtime/run';
export type { Problem } from './synth/problem';
export { renderResources, type PassedThrough, type RenderResult, type Rendered } from './synth/render';
export { toYaml, toYamlStream } from './synth/yaml';

/**
 * Runs the controller for `kinds` against the cluster of the kubeconfig in effect until SIGTERM or SIGINT,
 * or until `signal` aborts; resolves with the exit status. Settings default as `reconstruct controller`.
 */
export async function runController(
  kinds: KindRegistry | readonly Kind[],
  settings: Partial<ControllerSettings> = {},
  signal?: AbortSignal,
): Promise<number> {
  const controller = await import('./controller/runtime/run');
  return controller.runController(kinds, settings, signal);
}
