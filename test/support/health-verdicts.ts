/**
 * What Argo CD and kstatus say of objects, by their own Go code (scripts/health: built from the Go module
 * proxy, cached): Argo CD's health with the checks of an `argocd-cm` ConfigMap, and kstatus's status.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const DIR = join(__dirname, '../../scripts/health');

export interface Verdict {
  readonly status: string;
  readonly message: string;
}

export interface Verdicts {
  /** Healthy, Progressing, Degraded, Suspended, Missing, Unknown; '' when Argo CD has no check for the kind. */
  readonly argocd: Verdict;
  /** InProgress, Failed, Current, Terminating, NotFound, Unknown. */
  readonly kstatus: Verdict;
}

/** The binary: built once (cached outside the repository), else the build's error. */
export function verdictsBinary(): string {
  const build = spawnSync('bash', [join(DIR, 'build.sh')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`scripts/health/build.sh failed:\n${build.stderr}`);
  return build.stdout.trim().split('\n').pop()!;
}

/** The verdicts on `objects`, in order, with the health checks of `argocdCm`. */
export function verdictsOf(binary: string, argocdCm: object, objects: readonly object[]): Verdicts[] {
  const run = spawnSync(binary, [], { input: JSON.stringify({ argocdCm, objects }), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`health-verdicts failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Verdicts[];
}
