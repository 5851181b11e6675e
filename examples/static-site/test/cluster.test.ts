/**
 * The operator in a real control plane, as a user runs it:
 *
 *   npx reconstruct cluster run -- npm run test:cluster
 *
 * (`cluster run` starts the local control plane, installs crds/*.yaml, sets KUBECONFIG and puts its
 * kubectl first on PATH.) The install manifests of this project's kinds are applied and their RBAC
 * checked; then the controller runs as a child process, with the install's ServiceAccount's rights
 * only, and a StaticSite goes through its life: created, Ready, a page changed (the pods roll),
 * deleted (its children garbage-collected).
 *
 * This file refuses to run against any other cluster unless RECONSTRUCT_EXAMPLE_CLUSTER=1 says so
 * (./cluster-support, its helpers).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Yaml } from 'cdk8s';
import { CONTENT_HASH_ANNOTATION, contentHash } from '../src';
import {
  BOUND_MS,
  PROJECT,
  SA,
  SYSTEM,
  checkCluster,
  getJson,
  kubectl,
  run,
  serviceAccountKubeconfig,
  startController,
  waitFor,
  type Controller,
} from './cluster-support';

jest.setTimeout(240_000);

const SITE = 'hello';

let namespace: string;
let work: string;
let controller: Controller | undefined;

/** The controller's last log lines, for failure messages. */
const recentLogs = () => controller?.logs().slice(-30) ?? [];

async function stopController(): Promise<void> {
  const running = controller;
  controller = undefined;
  await running?.stop();
}

beforeAll(() => {
  checkCluster();
  work = mkdtempSync(join(tmpdir(), 'static-site-cluster-'));
  namespace = `site-${Date.now().toString(36)}`;
  kubectl(['create', 'namespace', namespace]);
});

afterAll(async () => {
  await stopController();
  if (namespace) run('kubectl', ['delete', 'namespace', namespace, '--wait=false']);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('reconstruct install --kinds src/index.ts --no-builtin-kinds', () => {
  let manifests: any[];

  beforeAll(() => {
    const install = run('npx', [
      'reconstruct',
      'install',
      '--kinds',
      'src/index.ts',
      '--no-builtin-kinds',
      '-o',
      '-',
    ]);
    expect({ status: install.status, stderr: install.stderr.replace(/^npm warn .*\n/gm, '') }).toEqual({
      status: 0,
      stderr: '',
    });
    const file = join(work, 'install.yaml');
    writeFileSync(file, install.stdout);
    manifests = Yaml.load(file).filter((d: unknown) => d);
    kubectl(['apply', '--server-side', '-f', '-'], install.stdout);
  });

  it("installs this project's CRD only, and the controller's RBAC", () => {
    const crds = manifests.filter((m) => m.kind === 'CustomResourceDefinition').map((m) => m.metadata.name);
    expect(crds).toEqual(['staticsites.sites.example.com']);
    expect(getJson(['clusterrole', SA])).toBeDefined();
    expect(getJson(['serviceaccount', SA, '-n', SYSTEM])).toBeDefined();
  });

  it("grants the verbs the controller uses on the children's kinds and staticsites, and nothing with a wildcard", () => {
    const rules = getJson(['clusterrole', SA]).rules as {
      apiGroups: string[];
      resources: string[];
      verbs: string[];
    }[];
    const verbs = (group: string, resource: string) =>
      rules
        .filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource))
        .flatMap((r) => r.verbs);
    for (const [group, resource] of [
      ['', 'configmaps'],
      ['apps', 'deployments'],
      ['', 'services'],
    ]) {
      expect({ resource, verbs: verbs(group, resource) }).toEqual({
        resource,
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'], // never updated (PUT): applied
      });
    }
    // Cached by a watch, never read by name, never deleted; patched only for its finalizers (ordered
    // deletion of children that wait for each other).
    expect(verbs('sites.example.com', 'staticsites')).toEqual(['list', 'watch', 'patch']);
    expect(verbs('sites.example.com', 'staticsites/status')).toContain('patch');
    expect(JSON.stringify(rules)).not.toContain('*');
    expect(rules.flatMap((r) => r.resources)).not.toContain('secrets');
  });

  it.each([
    ['get', 'secrets', 'no'],
    ['list', 'secrets', 'no'],
    ['delete', 'staticsites.sites.example.com', 'no'],
    ['delete', 'pods', 'no'],
    ['patch', 'deployments.apps', 'yes'],
    ['create', 'configmaps', 'yes'],
    ['watch', 'staticsites.sites.example.com', 'yes'],
  ])('kubectl auth can-i %s %s as the ServiceAccount: %s', (verb, resource, answer) => {
    const result = run('kubectl', [
      'auth',
      'can-i',
      verb,
      resource,
      '-n',
      namespace,
      `--as=system:serviceaccount:${SYSTEM}:${SA}`,
    ]);
    expect(result.stdout.trim()).toBe(answer);
  });
});

describe('the CRD from crds/ (reconstruct gen)', () => {
  it('makes the API server reject what the offline renderer rejects, with the same messages', () => {
    const site = (spec: object) =>
      JSON.stringify({
        apiVersion: 'sites.example.com/v1alpha1',
        kind: 'StaticSite',
        metadata: { name: 'bad' },
        spec,
      });
    const apply = (spec: object) =>
      run('kubectl', ['apply', '--dry-run=server', '-n', namespace, '-f', '-'], site(spec));
    expect(apply({ pages: { 'index.html': '' } }).status).toBe(0);
    const empty = apply({ pages: {} });
    expect(empty.status).not.toBe(0);
    expect(empty.stderr).toContain('must have at least one page, e.g. index.html');
    const nested = apply({ pages: { 'docs/index.html': '' }, replicas: 11 });
    expect(nested.stderr).toContain('page names must be file names');
    expect(nested.stderr).toContain('spec.replicas in body should be less than or equal to 10');
  });
});

describe('reconstruct controller --kinds src/index.ts, as the ServiceAccount', () => {
  const sample = Yaml.load(join(PROJECT, 'samples/site.yaml'))[0] as {
    spec: { pages: Record<string, string> };
  };
  const site = () => getJson(['staticsite', SITE, '-n', namespace]);
  const ready = (resource: any) =>
    (resource?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
  const child = (kind: string, name: string) => getJson([kind, name, '-n', namespace]);
  const children = () => ({
    configMap: child('configmap', `${SITE}-content`),
    deployment: child('deployment', SITE),
    service: child('service', SITE),
    endpoint: child('configmap', `${SITE}-endpoint`),
  });
  const state = () => ({ status: site()?.status, controllerLogs: recentLogs() });
  let uid: string;

  beforeAll(async () => {
    controller = await startController(serviceAccountKubeconfig(work, namespace));
    kubectl(['apply', '-n', namespace, '-f', join(PROJECT, 'samples/site.yaml')]);
    uid = site().metadata.uid;
  });

  it('applies the ConfigMap, the Deployment and the Service, then the endpoint with the address the API server gave the Service, labelled and owned by the StaticSite', async () => {
    const all = await waitFor(
      'the four children',
      () => {
        const c = children();
        return c.configMap && c.deployment && c.service && c.endpoint && c;
      },
      state,
    );
    for (const object of [all.configMap, all.deployment, all.service, all.endpoint]) {
      expect(object.metadata.labels).toMatchObject({
        'app.kubernetes.io/managed-by': 'reconstruct',
        'app.kubernetes.io/instance': SITE,
      });
      expect(object.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'StaticSite', name: SITE, uid, controller: true }),
      ]);
    }
    expect(all.configMap.data).toEqual(sample.spec.pages);
    expect(all.deployment.spec.template.metadata.annotations[CONTENT_HASH_ANNOTATION]).toBe(
      contentHash(sample.spec.pages),
    );
    expect(all.service.spec.ports).toEqual([expect.objectContaining({ port: 80, targetPort: 80 })]);
    const address = all.service.spec.clusterIP;
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(all.endpoint.data).toEqual({ address, url: `http://${address}:80/` });
  });

  it('reports the url and becomes Ready once the pods are available (kwok runs them)', async () => {
    const status = await waitFor(
      'status.url and a Ready condition',
      () => {
        const s = site()?.status;
        return s?.url && ready(site()) && s;
      },
      state,
    );
    expect(status.url).toBe(`http://${SITE}.${namespace}.svc:80`);
    const condition = await waitFor(
      'Ready=True',
      () => ready(site())?.status === 'True' && ready(site()),
      state,
    );
    expect(condition).toMatchObject({ status: 'True', reason: 'Ready' });
    await waitFor('status.availableReplicas 2', () => site()?.status?.availableReplicas === 2, state);
  });

  it('rolls the pods when a page changes: new ConfigMap data, new hash on the pod template', async () => {
    const before = child('deployment', SITE).spec.template.metadata.annotations[CONTENT_HASH_ANNOTATION];
    const pages = { ...sample.spec.pages, 'index.html': '<h1>Hello again</h1>\n' };
    kubectl([
      'patch',
      'staticsite',
      SITE,
      '-n',
      namespace,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { pages: { 'index.html': pages['index.html'] } } }),
    ]);
    const after = await waitFor(
      'a new content hash on the Deployment',
      () => {
        const hash = child('deployment', SITE)?.spec.template.metadata.annotations[CONTENT_HASH_ANNOTATION];
        return hash !== before && hash;
      },
      state,
    );
    expect(after).toBe(contentHash(pages));
    expect(child('configmap', `${SITE}-content`).data).toEqual(pages);
    const generation = site().metadata.generation;
    await waitFor(
      'Ready=True for the new generation',
      () => {
        const s = site();
        return s?.status?.observedGeneration === generation && ready(s)?.status === 'True';
      },
      state,
    );
  });

  it('leaves the children to the garbage collector when the StaticSite is deleted', async () => {
    kubectl(['delete', 'staticsite', SITE, '-n', namespace, '--wait=true', '--timeout=60s']);
    await waitFor(
      'the ConfigMaps, Deployment and Service to be gone',
      () => {
        const c = children();
        return !c.configMap && !c.deployment && !c.service && !c.endpoint;
      },
      () => ({
        left: Object.entries(children())
          .filter(([, object]) => object)
          .map(([name]) => name),
        controllerLogs: recentLogs(),
      }),
      // The garbage collector learns of a CRD installed after it started on its next discovery, every
      // 30 s: on a fresh cluster, the StaticSite's deletion may go unnoticed that long.
      2 * BOUND_MS,
    );
  });

  afterAll(async () => {
    await stopController();
  });
});
