import { stringify } from 'yaml';
import type { CustomResourceDefinition } from './schema';

const HEADER = '# Generated from crds/*.ts by `npm run gen`. Do not edit.\n';

/** The CRD as the YAML document `kubectl apply -f crds/` installs. */
export function crdToYaml(crd: CustomResourceDefinition): string {
  return HEADER + stringify(crd, { lineWidth: 0 });
}

/** The file name of a CRD's YAML in crds/, kubebuilder style: `<group>_<plural>.yaml`. */
export function crdFileName(crd: CustomResourceDefinition): string {
  return `${crd.spec.group}_${crd.spec.names.plural}.yaml`;
}
