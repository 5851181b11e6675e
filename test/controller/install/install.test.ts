/**
 * The install manifests, offline: the metrics Service always, the ServiceMonitor when asked, the
 * NetworkPolicy in front of the metrics, and the RBAC of a cluster-wide and of a namespaced install.
 */
import {
  CLUSTER_ROLE,
  DEPLOYMENT,
  POD,
  SERVICE_ACCOUNT,
  builtinKinds,
  defineKind,
  type KindOptions,
} from '../../../constructs';
import { installManifests, type InstallOptions } from '../../../controller/install/install';
import { clusterRules, type PolicyRule } from '../../../controller/install/permissions';

import { Greeting, greetingKind, type GreetingSpec } from '../../fixtures/kinds/greeting';
import { tenantNamespaceKind } from '../../fixtures/kinds/tenant-namespace';

type Doc = {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  rules?: PolicyRule[];
  subjects?: object[];
};

/** A kind to add declarations to: the Greeting's definition. */
const greetingOptions: KindOptions<GreetingSpec> = {
  apiVersion: greetingKind.apiVersion,
  kind: greetingKind.kind,
  plural: greetingKind.plural,
  schema: greetingKind.schema,
  construct: Greeting,
  children: greetingKind.children,
};

const render = (options: Partial<InstallOptions> = {}) =>
  installManifests({ kinds: builtinKinds, version: '0.0.0', ...options }) as Doc[];
const controllerArgs = (docs: Doc[]) =>
  (
    docs.find((d) => d.kind === 'Deployment')?.spec as {
      template: { spec: { containers: { args: string[] }[] } };
    }
  ).template.spec.containers[0].args;
/** `group/resource: verbs` per rule, to read a role at a glance. */
const grants = (rules: PolicyRule[] = []) =>
  rules.map((r) => `${r.apiGroups[0]}/${r.resources[0]}: ${r.verbs.join(',')}`);

describe('installManifests', () => {
  it('puts the controller’s metrics behind a Service', () => {
    expect(render().find((d) => d.kind === 'Service')?.metadata.name).toBe('reconstruct-controller-metrics');
    expect(render().some((d) => d.kind === 'ServiceMonitor')).toBe(false);
  });

  it('adds a ServiceMonitor scraping that Service’s metrics port when asked, over HTTPS with its token', () => {
    const docs = render({ serviceMonitor: true });
    const monitor = docs.find((d) => d.kind === 'ServiceMonitor');
    const service = docs.find((d) => d.kind === 'Service');
    expect(monitor?.spec).toEqual({
      selector: { matchLabels: (service?.spec as { selector: object }).selector },
      endpoints: [
        {
          port: 'metrics',
          path: '/metrics',
          interval: '30s',
          scheme: 'https',
          bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
          tlsConfig: { insecureSkipVerify: true },
        },
      ],
    });
  });

  it('lets only namespaces labelled metrics=enabled reach the metrics port', () => {
    const docs = render();
    const policy = docs.find((d) => d.kind === 'NetworkPolicy');
    const service = docs.find((d) => d.kind === 'Service');
    expect(policy?.spec).toEqual({
      podSelector: { matchLabels: (service?.spec as { selector: object }).selector },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ namespaceSelector: { matchLabels: { metrics: 'enabled' } } }],
          ports: [{ port: 'metrics', protocol: 'TCP' }],
        },
      ],
    });
  });
});

describe('the RBAC of the install', () => {
  it('grants only the verbs the code uses, cluster-wide by default', () => {
    const docs = render();
    expect(docs.filter((d) => d.kind === 'Role').map((d) => d.metadata.name)).toEqual([
      'reconstruct-controller-leader-election',
    ]);
    const rules = grants(docs.find((d) => d.kind === 'ClusterRole')?.rules);
    expect(rules).toEqual(grants(clusterRules(builtinKinds)));
    // No update (PUT) of anything, no get of the resources, their status, or what kinds only watch.
    expect(rules.filter((r) => /update/.test(r) && !r.includes('/finalizers:'))).toEqual([]);
    expect(rules).toContain('cache.example.com/memcacheds: list,watch,patch'); // finalizers: ordered deletion
    expect(rules).toContain('cache.example.com/memcacheds/status: patch');
    expect(rules).toContain('cache.example.com/memcacheds/finalizers: update');
    expect(rules).toContain('/pods: list,watch'); // Memcached's watch; a stuck child's pods (troubles.ts)
    expect(rules).toContain('apps/deployments: get,list,watch,create,patch,delete');
    // Write-only (Cluster's password, MysqlUser's), and get by name for the MySQL kinds' handlers, whose
    // spec names their Secrets: never a list or a watch.
    expect(rules).toContain('/secrets: get,create,delete');
    expect(rules).toContain('/events: list,create,patch');
    // A kind with a sync patches its own finalizer, and what it watches.
    expect(rules).toContain('nodes.lailin.xyz/nodepools: list,watch,patch');
    // NodePool declares the patch its sync makes on nodes; Memcached only watches pods.
    expect(rules).toContain('/nodes: list,watch,patch');
    expect(controllerArgs(docs).some((a) => a.startsWith('--namespaces'))).toBe(false);
  });

  it('grants a namespaced install its namespaced resources in a Role per namespace only', () => {
    const docs = render({ namespaces: ['a', 'b'] });
    const roles = docs.filter((d) => d.kind === 'Role');
    const bindings = docs.filter((d) => d.kind === 'RoleBinding');
    expect(roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual([
      'a/reconstruct-controller',
      'b/reconstruct-controller',
      // Events about cluster-scoped resources (a NodePool's) go to default.
      'default/reconstruct-controller',
      'reconstruct-system/reconstruct-controller-leader-election',
    ]);
    expect(bindings.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual(
      roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`),
    );
    const inA = grants(roles[0].rules);
    expect(inA).toContain('apps/deployments: get,list,watch,create,patch,delete');
    expect(inA).toContain('/configmaps: get,list,watch,create,patch,delete');
    expect(grants(roles[1].rules)).toEqual(inA);
    expect(grants(roles[2].rules)).toEqual(['/events: create,patch']);
    // Cluster-wide, only what is cluster-scoped: no namespaced child kind, no Events.
    expect(grants(docs.find((d) => d.kind === 'ClusterRole')?.rules)).toEqual([
      '/nodes: list,watch,patch',
      // Balancer's conversion webhook points its CRD at itself, by name.
      'apiextensions.k8s.io/customresourcedefinitions: get,patch',
      'node.k8s.io/runtimeclasses: get,list,watch,create,patch,delete',
      'nodes.lailin.xyz/nodepools: list,watch,patch',
      'nodes.lailin.xyz/nodepools/finalizers: update',
      'nodes.lailin.xyz/nodepools/status: patch',
    ]);
    // Watch and grant agree.
    expect(controllerArgs(docs)).toContain('--namespaces=a,b');
  });

  it('renders no ClusterRole for a namespaced install of namespaced kinds only', () => {
    // (Balancer aside: its conversion webhook patches its CRD, cluster-scoped, by name.)
    const namespacedKinds = builtinKinds.filter((k) => k.namespaced && k.versions.length === 1);
    const docs = installManifests({ kinds: namespacedKinds, version: '0.0.0', namespaces: ['a'] }) as Doc[];
    expect(docs.some((d) => d.kind === 'ClusterRole' || d.kind === 'ClusterRoleBinding')).toBe(false);
    expect(docs.filter((d) => d.kind === 'Role').map((r) => r.metadata.namespace)).toEqual([
      'a',
      'reconstruct-system',
    ]);
    // So its metrics stay plain HTTP behind the NetworkPolicy: checking a token needs ClusterRoles.
    const deployment = docs.find((d) => d.kind === 'Deployment') as Doc & {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0].args).toContain('--metrics-secure=false');
  });

  it('adds exactly what a kind declares, with its resourceNames, and no write on what it only watches', () => {
    const docs = installManifests({ kinds: [tenantNamespaceKind], version: '0.0.0' }) as Doc[];
    expect(docs.find((d) => d.kind === 'ClusterRole')?.rules).toEqual([
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      {
        apiGroups: [''],
        resources: ['namespaces'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      // Its sync reads pods and writes none: list and watch only, not patch on every pod.
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        verbs: ['list', 'watch'],
      },
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        verbs: ['bind'],
        resourceNames: ['admin'],
      },
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['rolebindings'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      {
        apiGroups: ['tenants.example.com'],
        resources: ['tenantnamespaces'],
        verbs: ['list', 'watch', 'patch'],
      },
      { apiGroups: ['tenants.example.com'], resources: ['tenantnamespaces/finalizers'], verbs: ['update'] },
      { apiGroups: ['tenants.example.com'], resources: ['tenantnamespaces/status'], verbs: ['patch'] },
    ]);
  });

  it('merges a declaration without names into the derived rule, and keeps one with names apart', () => {
    const kind = defineKind({
      ...greetingOptions,
      watches: [{ type: POD, owners: () => [] }],
      permissions: [
        { type: POD, verbs: ['patch'] },
        { type: POD, verbs: ['delete'], resourceNames: ['b', 'a'] },
        { type: DEPLOYMENT, subresource: 'scale', verbs: ['patch'] },
      ],
    });
    expect(grants(clusterRules([kind]))).toEqual([
      '/configmaps: get,list,watch,create,patch,delete',
      '/events: create,patch',
      '/pods: list,watch,patch',
      '/pods: delete',
      'apiextensions.k8s.io/customresourcedefinitions: list,watch',
      'apps/deployments/scale: patch',
      'greetings.example.com/greetings: list,watch,patch',
      'greetings.example.com/greetings/finalizers: update',
      'greetings.example.com/greetings/status: patch',
    ]);
    expect(clusterRules([kind]).find((r) => r.resourceNames)).toEqual({
      apiGroups: [''],
      resources: ['pods'],
      verbs: ['delete'],
      resourceNames: ['a', 'b'],
    });
  });

  it('puts a declared permission where a namespaced install grants its kind: cluster-wide or per namespace', () => {
    const kind = defineKind({
      ...greetingOptions,
      permissions: [
        { type: CLUSTER_ROLE, verbs: ['bind'], resourceNames: ['edit'] },
        { type: SERVICE_ACCOUNT, verbs: ['impersonate'] },
      ],
    });
    const docs = installManifests({ kinds: [kind], version: '0.0.0', namespaces: ['a'] }) as Doc[];
    expect(grants(docs.find((d) => d.kind === 'ClusterRole')?.rules)).toEqual([
      'rbac.authorization.k8s.io/clusterroles: bind',
    ]);
    const role = docs.find((d) => d.kind === 'Role' && d.metadata.namespace === 'a');
    expect(grants(role?.rules)).toContain('/serviceaccounts: impersonate');
  });
});

describe('the install of kinds with several versions (Balancer v1beta1 and v1alpha1)', () => {
  const docs = render({ namespace: 'ops' });
  const named = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

  it('serves the conversion webhook from every replica, behind a Service the CRD calls', () => {
    expect(controllerArgs(docs)).toEqual(
      expect.arrayContaining([
        '--webhook-addr=0.0.0.0:9443',
        '--webhook-service=ops/reconstruct-controller-webhook',
      ]),
    );
    expect(named('Service', 'reconstruct-controller-webhook')?.spec).toEqual({
      selector: expect.any(Object) as object,
      ports: [{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }],
    });
    const crd = named('CustomResourceDefinition', 'balancers.exposer.hliangzhao.io')?.spec as {
      conversion: { webhook: { clientConfig: { service: object } } };
    };
    expect(crd.conversion.webhook.clientConfig.service).toEqual({
      namespace: 'ops',
      name: 'reconstruct-controller-webhook',
      path: '/convert',
      port: 443,
    });
  });

  it('lets the API server reach the webhook port, from wherever it is', () => {
    expect(named('NetworkPolicy', 'reconstruct-controller-webhook')?.spec).toEqual({
      podSelector: { matchLabels: expect.any(Object) as object },
      policyTypes: ['Ingress'],
      ingress: [{ ports: [{ port: 'webhook', protocol: 'TCP' }] }],
    });
  });

  it('grants the patch of those CRDs only, and the CA Secret by name in its own namespace', () => {
    const cluster = named('ClusterRole', 'reconstruct-controller')?.rules ?? [];
    expect(
      cluster.filter((r) => r.resources[0] === 'customresourcedefinitions' && r.verbs.includes('patch')),
    ).toEqual([
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['balancers.exposer.hliangzhao.io'],
        verbs: ['get', 'patch'],
      },
    ]);
    const lease = named('Role', 'reconstruct-controller-leader-election');
    expect(lease?.metadata.namespace).toBe('ops');
    expect(grants(lease?.rules)).toEqual([
      'coordination.k8s.io/leases: get,create,update',
      '/secrets: get,update',
      '/secrets: create',
    ]);
    expect(lease?.rules?.[1].resourceNames).toEqual(['reconstruct-controller-webhook-ca']);
  });

  it('has no webhook when no kind has several versions', () => {
    const plain = render({ kinds: [greetingKind] });
    expect(plain.some((d) => d.metadata.name === 'reconstruct-controller-webhook')).toBe(false);
    expect(controllerArgs(plain).some((a) => a.startsWith('--webhook'))).toBe(false);
  });
});

describe('the install with the conversion webhook certificate from cert-manager', () => {
  const docs = render({ certManager: true });
  const named = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

  it('asks cert-manager for the certificate and the CRDs caBundle, and mounts the certificate', () => {
    expect(named('Issuer', 'reconstruct-controller-webhook-selfsigned')?.spec).toEqual({ selfSigned: {} });
    expect(named('Certificate', 'reconstruct-controller-webhook')?.spec).toEqual({
      secretName: 'reconstruct-controller-webhook-cert',
      dnsNames: [
        'reconstruct-controller-webhook.reconstruct-system.svc',
        'reconstruct-controller-webhook.reconstruct-system.svc.cluster.local',
      ],
      issuerRef: { kind: 'Issuer', name: 'reconstruct-controller-webhook-selfsigned' },
    });
    const crd = named('CustomResourceDefinition', 'balancers.exposer.hliangzhao.io') as Doc & {
      metadata: { annotations?: Record<string, string> };
    };
    expect(crd.metadata.annotations).toEqual({
      'cert-manager.io/inject-ca-from': 'reconstruct-system/reconstruct-controller-webhook',
    });
    expect(controllerArgs(docs)).toContain('--webhook-cert-dir=/var/run/reconstruct/webhook-certs');
    const pod = (named('Deployment', 'reconstruct-controller')?.spec as { template: { spec: object } })
      .template.spec;
    expect(pod).toMatchObject({
      volumes: [{ name: 'webhook-certs', secret: { secretName: 'reconstruct-controller-webhook-cert' } }],
      containers: [
        {
          volumeMounts: [
            { name: 'webhook-certs', mountPath: '/var/run/reconstruct/webhook-certs', readOnly: true },
          ],
        },
      ],
    });
  });

  it('grants no CA Secret and no patch of CRDs: cert-manager does that work', () => {
    const cluster = named('ClusterRole', 'reconstruct-controller')?.rules ?? [];
    expect(
      cluster.filter((r) => r.resources[0] === 'customresourcedefinitions' && r.verbs.includes('patch')),
    ).toEqual([]);
    expect(grants(named('Role', 'reconstruct-controller-leader-election')?.rules)).toEqual([
      'coordination.k8s.io/leases: get,create,update',
    ]);
  });

  it('is not rendered for kinds with one version', () => {
    const plain = render({ kinds: [greetingKind], certManager: true });
    expect(plain.some((d) => d.kind === 'Certificate' || d.kind === 'Issuer')).toBe(false);
  });
});
