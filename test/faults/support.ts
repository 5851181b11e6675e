/**
 * What the fault tests share: a kubeconfig for a ServiceAccount with chosen rules (RBAC faults), and the
 * figures each fault records for docs/RELIABILITY.md (printed, and appended to RECONSTRUCT_FAULTS_OUT when
 * set, as one JSON line per fault).
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinKinds } from '../../constructs/builtin';
import { clusterRules, type PolicyRule } from '../../controller/permissions';
import { applyYaml, kubectl } from '../support/kubectl';

/** The ClusterRole rules `reconstruct install` renders for the built-in kinds. */
export function installRules(): PolicyRule[] {
  return clusterRules(builtinKinds);
}

/**
 * A kubeconfig whose user is a new ServiceAccount `name` in `namespace`, bound cluster-wide to exactly
 * `rules`. Returns its path.
 */
export function serviceAccountKubeconfig(name: string, namespace: string, rules: PolicyRule[]): string {
  applyYaml(
    [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    ]
      .map((d) => JSON.stringify(d))
      .join('\n---\n'),
  );
  const token = kubectl(['create', 'token', name, '-n', namespace, '--duration=2h']).stdout.trim();
  const admin = JSON.parse(kubectl(['config', 'view', '--raw', '--minify', '-o', 'json']).stdout) as {
    clusters: { cluster: Record<string, unknown> }[];
  };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: admin.clusters[0].cluster }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: 'test', user: name } }],
    'current-context': name,
  };
  const path = join(mkdtempSync(join(tmpdir(), 'reconstruct-sa-')), 'kubeconfig');
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

/** Removes what serviceAccountKubeconfig made cluster-wide. */
export function deleteServiceAccountRole(name: string): void {
  kubectl(['delete', 'clusterrole,clusterrolebinding', name, '--ignore-not-found', '--wait=false']);
}

/** One row of the table in docs/RELIABILITY.md. */
export interface FaultFigures {
  fault: string;
  bound: string;
  /** What was measured, e.g. "3.1 s". */
  recovery: string;
  lostOrDuplicated: string;
  /** API requests per 10 s while the fault lasted. */
  requestsPer10s?: string;
}

/** Prints a fault's figures and appends them to RECONSTRUCT_FAULTS_OUT (JSON lines) when set. */
export function record(figures: FaultFigures): void {
  process.stdout.write(`fault figures: ${JSON.stringify(figures)}\n`);
  const out = process.env.RECONSTRUCT_FAULTS_OUT;
  if (out) appendFileSync(out, `${JSON.stringify(figures)}\n`);
}
