/**
 * The install manifests (`reconstruct install`) on a real API server with RBAC: the controller, running
 * as the install's ServiceAccount with a token from the TokenRequest API, still does the seed
 * walkthroughs; the ServiceAccount is denied what it does not need; and uninstalling the operator
 * without deleting the custom resources leaves every child running.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  events,
  exists,
  getJson,
  kubectl,
  uniqueName,
  waitFor,
  forgetConversionUrl,
} from '../../support/kubectl';
import { RunningController, startController } from '../../support/controller';
import { tokenKubeconfig } from '../../support/controller-role';

jest.setTimeout(180_000);

interface Container {
  args: string[];
  env?: { name: string; value: string }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string } };
  readinessProbe: { httpGet: { path: string } };
  resources: { limits: { memory?: string } };
  securityContext: object;
}
interface InstallDoc {
  kind: string;
  metadata: { name: string };
  rules?: object[];
  spec: {
    replicas: number;
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: Container[]; securityContext: object };
    };
  };
}

const CLI = join(__dirname, '../../../dist/cli/main.js');
const SA = 'reconstruct-controller';

let system: string;
let ns: string;
let install: string;
let controller: RunningController | undefined;

function renderInstall(namespace: string): string {
  const run = spawnSync(process.execPath, [CLI, 'install', '--namespace', namespace], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`reconstruct install failed: ${run.stderr}`);
  return run.stdout;
}

/** `kubectl auth can-i` as the ServiceAccount; `resource` may be `plural/subresource`. */
function canI(verb: string, resource: string, namespace?: string): string {
  const [plural, subresource] = resource.split('/');
  const args = ['auth', 'can-i', verb, plural, '--as', `system:serviceaccount:${system}:${SA}`];
  if (subresource) args.push(`--subresource=${subresource}`);
  if (namespace) args.push('-n', namespace);
  return kubectl(args, { allowFail: true }).stdout.trim();
}

beforeAll(() => {
  system = uniqueName('reconstruct-system');
  install = renderInstall(system);
  forgetConversionUrl('balancers.exposer.hliangzhao.io'); // a killed local run's
  applyYaml(install);
  ns = createNamespace('rbac');
});
afterAll(async () => {
  if (controller) await controller.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
  if (system) deleteNamespace(system);
});

describe('reconstruct install', () => {
  it('renders the CRDs, RBAC and a hardened two-replica Deployment with probes', () => {
    const docs = parseAllDocuments(install).map((d) => d.toJS() as InstallDoc);
    expect(docs.map((d) => d.kind).sort()).toEqual(
      [
        'ClusterRole',
        'ClusterRoleBinding',
        // The metrics behind authentication: the reader role for scrapers, the controller's review role.
        'ClusterRole',
        'ClusterRole',
        'ClusterRoleBinding',
        'CustomResourceDefinition',
        'CustomResourceDefinition',
        'CustomResourceDefinition',
        'CustomResourceDefinition',
        'CustomResourceDefinition',
        'CustomResourceDefinition',
        'CustomResourceDefinition',
        'Deployment',
        'Namespace',
        'NetworkPolicy',
        'Role',
        'RoleBinding',
        'Service',
        'ServiceAccount',
        // Balancer's conversion webhook: its Service, and the policy that lets the API server reach it.
        'Service',
        'NetworkPolicy',
        // A drain evicts one of the two replicas at a time.
        'PodDisruptionBudget',
      ].sort(),
    );
    for (const role of docs.filter((d) => d.kind === 'ClusterRole')) {
      expect(JSON.stringify(role.rules)).not.toContain('*');
    }
    const deployment = docs.find((d) => d.kind === 'Deployment');
    if (!deployment) throw new Error('no Deployment in the install manifests');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(deployment.spec.replicas).toBe(2);
    expect(container.args).toContain('--leader-elect');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.resources.limits.memory).toBeDefined();
    expect(container.env).toContainEqual({ name: 'NODE_OPTIONS', value: '--max-semi-space-size=4' });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    // kubectl apply accepted it, and the Deployment's pods run (on kwok's fake nodes).
    expect(exists(['deployment', SA, '-n', system])).toBe(true);
    // Its metrics behind a Service whose selector finds the controller's pods.
    const service = docs.find((d) => d.kind === 'Service') as InstallDoc & {
      spec: { selector: Record<string, string>; ports: { port: number; targetPort: string }[] };
    };
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    expect(service.spec.ports).toEqual([
      { name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' },
    ]);
    expect(container.ports).toContainEqual({ name: 'metrics', containerPort: 8080 });
  });

  it('denies the ServiceAccount what it does not need', () => {
    // The MySQL Cluster's generated Secret is created and deleted by uid, never read; the MySQL kinds'
    // handlers get the Secrets their spec names by name: no Secret is listed, watched or changed.
    expect(canI('get', 'secrets', ns)).toBe('yes');
    for (const verb of ['list', 'watch', 'update', 'patch']) {
      expect(`${verb} secrets: ${canI(verb, 'secrets', ns)}`).toBe(`${verb} secrets: no`);
    }
    expect(canI('list', 'secrets')).toBe('no');
    expect(canI('create', 'secrets', ns)).toBe('yes');
    expect(canI('patch', 'nodes/status')).toBe('no');
    expect(canI('delete', 'nodes')).toBe('no');
    expect(canI('create', 'pods', ns)).toBe('no');
    expect(canI('delete', 'memcacheds.cache.example.com', ns)).toBe('no');
    expect(canI('update', 'leases', ns)).toBe('no'); // Only in its own namespace.
    // Verbs no code path uses (docs/RBAC.md): no update of children, no reads of resources by name.
    expect(canI('update', 'deployments', ns)).toBe('no');
    expect(canI('get', 'memcacheds.cache.example.com', ns)).toBe('no');
    expect(canI('get', 'memcacheds.cache.example.com/status', ns)).toBe('no');
    expect(canI('get', 'pods', ns)).toBe('no');
    // ...and grants what it does.
    expect(canI('patch', 'deployments', ns)).toBe('yes');
    expect(canI('patch', 'nodes')).toBe('yes');
    expect(canI('patch', 'nodepools.nodes.lailin.xyz')).toBe('yes'); // Its finalizer: the kind has a sync.
    // Every kind's finalizers: ordered deletion, for resources whose children wait for each other.
    expect(canI('patch', 'memcacheds.cache.example.com', ns)).toBe('yes');
    expect(canI('update', 'memcacheds.cache.example.com/finalizers', ns)).toBe('yes');
    expect(canI('patch', 'events', ns)).toBe('yes');
    expect(canI('patch', 'memcacheds.cache.example.com/status', ns)).toBe('yes');
    expect(canI('update', 'leases', system)).toBe('yes');
  });

  it('runs the seed walkthroughs authenticated as the ServiceAccount', async () => {
    controller = await startController([
      '--kubeconfig',
      tokenKubeconfig(SA, system),
      '--leader-elect',
      '--lease-namespace',
      system,
      '--lease-name',
      uniqueName('lease'),
    ]);
    const nodeName = getJson<{ items: { metadata: { name: string } }[] }>(['nodes']).items[0].metadata.name;
    const pool = uniqueName('rbac-pool');
    kubectl(['label', 'node', nodeName, `node-role.kubernetes.io/${pool}=`]);
    try {
      applyYaml(
        [
          {
            apiVersion: 'cache.example.com/v1alpha1',
            kind: 'Memcached',
            metadata: { name: 'mc', namespace: ns },
            spec: { size: 1 },
          },
          {
            apiVersion: 'coolops.cn/v1alpha1',
            kind: 'DatabaseManager',
            metadata: { name: 'db', namespace: ns },
            spec: { dbtype: 'mariadb' },
          },
          {
            apiVersion: 'exposer.hliangzhao.io/v1beta1',
            kind: 'Balancer',
            metadata: { name: 'bl', namespace: ns },
            spec: {
              ports: [{ name: 'http', port: 80 }],
              selector: { app: 'x' },
              backends: [
                { name: 'a', weight: 1 },
                { name: 'b', weight: 2 },
              ],
            },
          },
          {
            apiVersion: 'mysql.oracle.com/v1alpha1',
            kind: 'Cluster',
            metadata: { name: 'my', namespace: ns },
            spec: { members: 1 },
          },
          {
            apiVersion: 'nodes.lailin.xyz/v1',
            kind: 'NodePool',
            metadata: { name: pool },
            spec: { labels: { 'rbac.example.com/pool': pool } },
          },
        ]
          .map((o) => JSON.stringify(o))
          .join('\n---\n'),
      );
      const ready = (kind: string, name: string, namespace?: string) =>
        getJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
          kind,
          name,
          ...(namespace ? ['-n', namespace] : []),
        ]).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      await waitFor(
        () =>
          ready('memcached', 'mc', ns) &&
          ready('dm', 'db', ns) &&
          ready('balancer', 'bl', ns) &&
          ready('mysqlcluster', 'my', ns) &&
          ready('nodepool', pool),
        {
          what: 'every resource Ready',
          timeoutMs: 90_000,
        },
      );
      expect(
        getJson<{ metadata: { labels: Record<string, string> } }>(['node', nodeName]).metadata.labels[
          'rbac.example.com/pool'
        ],
      ).toBe(pool);
      // Created by a controller that cannot read it.
      expect(exists(['secret', 'my-root-password', '-n', ns])).toBe(true);
      // A child deleted by someone is made again and announced: the controller may record events.
      kubectl(['delete', 'service', 'mc', '-n', ns]);
      await waitFor(() => events(ns, 'reason=Created').length > 0, { what: 'Created events' });
      // RBAC denials read 'is forbidden: User "system:serviceaccount:..." cannot ...'.
      expect(controller.logs.filter((l) => /forbidden: User/i.test(l))).toEqual([]);

      kubectl(['delete', 'nodepool', pool, '--wait=true', '--timeout=60s']);
      expect(
        getJson<{ metadata: { labels: Record<string, string> } }>(['node', nodeName]).metadata.labels[
          'rbac.example.com/pool'
        ],
      ).toBeUndefined();
    } finally {
      kubectl(['label', 'node', nodeName, `node-role.kubernetes.io/${pool}-`], { allowFail: true });
    }
  });

  it('leaves every child running when the operator is uninstalled and its custom resources are kept', async () => {
    await controller?.stop('SIGTERM');
    controller = undefined;
    // Uninstall everything but the CRDs (deleting a CRD would delete its resources, and through them the children).
    const withoutCrds = parseAllDocuments(install)
      .map((d) => d.toJS() as { kind: string })
      .filter((d) => d.kind !== 'CustomResourceDefinition')
      .map((d) => JSON.stringify(d))
      .join('\n---\n');
    kubectl(['delete', '-f', '-', '--wait=true', '--timeout=60s'], { input: withoutCrds });
    await new Promise((r) => setTimeout(r, 3000));
    for (const [kind, name] of [
      ['deployment', 'mc'],
      ['deployment', 'db'],
      ['deployment', 'blproxy'],
      ['service', 'bl-a-backend'],
      ['service', 'bl-b-backend'],
    ]) {
      expect(exists([kind, name, '-n', ns])).toBe(true);
    }
    expect(
      getJson<{ status: { availableReplicas?: number } }>(['deployment', 'mc', '-n', ns]).status
        .availableReplicas,
    ).toBe(1);
  });
});
