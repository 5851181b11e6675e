/**
 * What bench:synth runs: per kind, the `i`-th resource's children as the kind synthesizes them and as its
 * baseline builds them by hand (bench/synth/baselines.ts), from the same resource.
 */
import { App, type Chart } from 'cdk8s';
import {
  balancerKind,
  databaseManagerKind,
  memcachedKind,
  mysqlClusterKind,
  nodePoolKind,
  resourceChart,
  synthesize,
  type CustomResource,
  type Kind,
  type Manifest,
  type SynthesizeOptions,
} from '../../constructs';
import {
  balancerBaseline,
  databaseManagerBaseline,
  memcachedBaseline,
  mysqlClusterBaseline,
  nodePoolBaseline,
  type Baseline,
} from './baselines';
import { validateChild } from '../../constructs/kit/validate/kubernetes';
import { OWNER, balancer, databaseManager, memcached, mysqlCluster, nodePool } from './resources';

/** One kind and its baseline. */
export interface SynthCase {
  /** The kind's type name, e.g. `MysqlCluster`. */
  readonly name: string;
  /** The `i`-th resource's children by the kind: `synthesize()` with an owner, as in-cluster. */
  readonly synthesize: (i: number) => Manifest[];
  /** The `i`-th resource's children by the kind's baseline, in a fresh App. */
  readonly baseline: (i: number) => Manifest[];
  /**
   * The `i`-th resource, made now, and its Chart built in an App by the kind or by the baseline, not yet
   * synthesized: for --phases, which times the building and the synthesis apart.
   */
  readonly charts: (i: number) => { kind: (app: App) => Chart; baseline: (app: App) => Chart };
}

/** As a controller synthesizes: with an owner, from a resource the API server admitted (defaults only). */
const options: SynthesizeOptions = { owner: OWNER, admitted: true };

function synthCase<Spec>(
  kind: Kind<Spec>,
  resource: (i: number) => CustomResource<Spec>,
  baseline: Baseline<Spec>,
): SynthCase {
  return {
    name: kind.typeName,
    synthesize: (i) => synthesize(kind, resource(i), options),
    baseline: (i) => baseline(new App(), resource(i), OWNER).toJson() as Manifest[],
    charts: (i) => {
      const r = resource(i);
      return {
        kind: (app) => resourceChart(app, 'resource', kind, r, options),
        baseline: (app) => baseline(app, r, OWNER),
      };
    },
  };
}

export const synthCases: readonly SynthCase[] = [
  synthCase(memcachedKind, memcached, memcachedBaseline),
  synthCase(nodePoolKind, nodePool, nodePoolBaseline),
  synthCase(databaseManagerKind, databaseManager, databaseManagerBaseline),
  synthCase(balancerKind, balancer, balancerBaseline),
  synthCase(mysqlClusterKind, mysqlCluster, mysqlClusterBaseline),
];

/**
 * `c` with each child also checked as offline rendering checks it (validateChild, against the Kubernetes
 * schemas): what `bench:synth -- --validate-children` measures. A child that fails is a bug here.
 */
export function withChildValidation(c: SynthCase): SynthCase {
  return {
    ...c,
    synthesize: (i) => {
      const children = c.synthesize(i);
      for (const child of children) {
        const errors = validateChild(child);
        if (errors && errors.length > 0) {
          throw new Error(
            `${child.kind} ${child.metadata.name}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
          );
        }
      }
      return children;
    },
  };
}
