/**
 * Where a project `reconstruct init` makes keeps things, and the names they go by: what its package.json
 * scripts, README, tests and `create kind` agree on.
 */
import type { KindNames } from './names';

/** The module every command of the project gives to `--kinds`; `create kind` adds to its list. */
export const KINDS_MODULE = 'src/kinds.ts';
/** Where the in-cluster tests' helpers live; `create kind` writes it when it is missing. */
export const CLUSTER_SUPPORT = 'test/support/cluster.ts';

/** The `--kinds` option of every command the project runs. */
export const KINDS_OPTION = `--kinds ${KINDS_MODULE}`;
/** Where the kinds' generated types go, as `reconstruct gen --types` takes it. */
export const TYPES_PATTERN = 'src/{kind}/types.generated.ts';
/** The CRD folder, as `reconstruct gen --crds` and `reconstruct cluster up` take it. */
export const CRDS_DIR = 'crds';

/** The sample's resource name: kubebuilder's `<kind>-sample`. */
export function sampleName(n: KindNames): string {
  return `${n.folder}-sample`;
}
