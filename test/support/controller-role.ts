/**
 * The identity every controller under test runs as: a ServiceAccount bound to exactly the rules
 * `reconstruct install` derives (controller/install/install.ts, controller/install/permissions.ts) for the kinds the
 * cluster tests run (the built-in ones and the fixtures', with what each declares in `permissions`), with a token from the TokenRequest API. The
 * tests' own kubectl keeps the admin kubeconfig. With support/forbidden.ts, a 403 any controller gets
 * fails the test: the derived rules are checked by the whole suite, not by a list of `can-i`s.
 *
 * One difference from an install: the lease rules are bound cluster-wide, as the tests put their leases
 * in namespaces of their own. `{ sharding: true }`: the identity of `install --sharding`'s controllers,
 * whose lease rules are wider (test/controller/sharding).
 */
import { cacheFleetKind } from '../fixtures/kinds/cache-fleet';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinKinds } from '../../constructs';
import type { Kind } from '../../constructs/kit';
import { installManifests } from '../../controller/install/install';
import type { PolicyRule } from '../../controller/install/permissions';
import { policyDemoKind } from '../fixtures/kinds/policy-demo';
import { cacheClusterKind, webAppKind } from '../fixtures/kinds/web-app';
import { webFrontKind } from '../fixtures/kinds/web-front';
import { tenantNamespaceKind } from '../fixtures/kinds/tenant-namespace';
import { rollingV1 } from '../fixtures/kinds/rolling-v1';
import { bannerKind } from '../fixtures/kinds/versioned';
import { zoneRecordKind } from '../../bench/external/kinds';
import { kubectl } from './kubectl';

/** The kinds the cluster tests run a controller for. */
export const TESTED_KINDS: readonly Kind[] = [
  ...builtinKinds,
  policyDemoKind,
  webAppKind,
  cacheClusterKind,
  tenantNamespaceKind,
  rollingV1,
  bannerKind,
  zoneRecordKind,
  webFrontKind,
  cacheFleetKind,
];

const NAMESPACE = 'reconstruct-tests';
const NAME = 'controller-under-test';
/** Cached across the test files of one run (they share the process with --runInBand). */
const ENV = 'RECONSTRUCT_TEST_CONTROLLER_KUBECONFIG';

/**
 * Writes (once per run) a kubeconfig for the API server of KUBECONFIG that authenticates as the
 * ServiceAccount, and returns its path. RECONSTRUCT_TEST_CONTROLLER_ADMIN=1 runs the controllers as admin.
 */
export function controllerKubeconfig({ sharding = false }: { sharding?: boolean } = {}): string | undefined {
  if (process.env.RECONSTRUCT_TEST_CONTROLLER_ADMIN === '1') return undefined;
  const env = sharding ? `${ENV}_SHARDING` : ENV;
  const cached = process.env[env];
  if (cached) return cached;
  type Doc = { kind: string; metadata: { name: string }; rules?: PolicyRule[] };
  const docs = installManifests({ kinds: TESTED_KINDS, version: '0.0.0', sharding }) as Doc[];
  // The controller's roles, and what checking a scrape of its metrics needs (the metrics-auth role).
  const rules = (kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata.name === name)?.rules ?? [];
  const file = serviceAccountKubeconfig(sharding ? `${NAME}-sharded` : NAME, NAMESPACE, [
    ...rules('ClusterRole', 'reconstruct-controller'),
    ...rules('ClusterRole', 'reconstruct-controller-metrics-auth'),
    ...rules('Role', 'reconstruct-controller-leader-election'),
  ]);
  process.env[env] = file;
  return file;
}

/**
 * A kubeconfig (its path) for the API server of KUBECONFIG that authenticates as the ServiceAccount
 * `namespace/name`, made here and bound cluster-wide to exactly `rules` (a ClusterRole `namespace:name`,
 * replaced if it exists: a rule removed is gone), with a token from the TokenRequest API.
 */
export function serviceAccountKubeconfig(name: string, namespace: string, rules: PolicyRule[]): string {
  const role = `${namespace}:${name}`;
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  ];
  kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=reconstruct-tests', '-f', '-'], {
    input: objects.map((o) => JSON.stringify(o)).join('\n---\n'),
  });
  return tokenKubeconfig(name, namespace);
}

/**
 * A kubeconfig (its path) for the API server of KUBECONFIG that authenticates as the existing
 * ServiceAccount `namespace/name` (one this file made, or an install's), with a token from the TokenRequest
 * API.
 */
export function tokenKubeconfig(name: string, namespace: string): string {
  const token = kubectl(['create', 'token', name, '-n', namespace, '--duration', '2h']).stdout.trim();
  const admin = JSON.parse(kubectl(['config', 'view', '--raw', '--minify', '-o', 'json']).stdout) as {
    clusters: { cluster: object }[];
  };
  const file = join(tmpdir(), `reconstruct-${namespace}-${name}-${process.pid}.kubeconfig`);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: admin.clusters[0].cluster }],
      users: [{ name, user: { token } }],
      contexts: [{ name, context: { cluster: 'c', user: name } }],
      'current-context': name,
    }),
    { mode: 0o600 },
  );
  return file;
}

/** The user the controllers under test are, for `kubectl auth can-i --as`. */
export const CONTROLLER_USER = `system:serviceaccount:${NAMESPACE}:${NAME}`;
