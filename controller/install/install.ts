/**
 * The install as manifests: an OperatorInstall alone in a chart, synthesized. `reconstruct install` prints
 * them; `kubectl apply -f` installs them.
 */
import { App, Chart } from 'cdk8s';
import { OperatorInstall, type InstallProps } from './operator-install';

export { CONTROLLER_NODE_OPTIONS } from './controller-deployment';

/** The props of OperatorInstall. */
export type InstallOptions = InstallProps;

/** The manifests of an OperatorInstall, in order; `version` names the default image, `reconstruct:<version>`. */
export function installManifests(options: InstallOptions & { version: string }): unknown[] {
  const { version, ...props } = options;
  const chart = new Chart(new App(), 'install', { disableResourceNameHashes: true });
  new OperatorInstall(chart, 'operator', { ...props, image: props.image ?? `reconstruct:${version}` });
  return chart.toJson();
}
