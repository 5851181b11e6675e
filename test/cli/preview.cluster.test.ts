/**
 * `reconstruct preview` on the local control plane: 300 live resources of the Rolling kind, reconciled by
 * its first build (test/fixtures/kinds/rolling-v1.ts), previewed under three builds: the same one (nothing
 * changes), one that changes every Deployment's environment (rolling-v2.ts) and one whose new selector the
 * API server refuses for the 30 resources whose name ends in 7 (rolling-v4-reselect.ts). Each preview
 * says exactly that, with `kubectl diff`'s exit status, and writes nothing: every request that is not a
 * read is a dry run, and no object's resourceVersion moves.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Chart } from 'cdk8s';
import type { Kind } from '../../index';
import { PreviewerAccess } from '../../controller/install/previewer-access';
import { previewFleet } from '../../cli/preview/fleet';
import { summarize } from '../../cli/preview/report';
import { loadClient, type KubeClient } from '../../controller/kube/client';
import type { KubeRequest } from '../../controller/kube/http';
import { rolling, rollingKind } from '../fixtures/kinds/rolling';
import { rollingV1 } from '../fixtures/kinds/rolling-v1';
import { rollingV2 } from '../fixtures/kinds/rolling-v2';
import { rollingV4 } from '../fixtures/kinds/rolling-v4-reselect';
import { rollingV5 } from '../fixtures/kinds/rolling-v5-strict';
import { startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  installCrds,
  kubectl,
  waitFor,
} from '../support/kubectl';
import { tokenKubeconfig } from '../support/controller-role';

jest.setTimeout(420_000);

const COUNT = 300;
/** The previewer's ServiceAccount, roles and policy (of this run: they are cluster-wide). */
const PREVIEWER = `previewer-${process.pid}`;
const CLI = join(__dirname, '../../dist/cli/main.js');
const BUILD = (n: string) => join(__dirname, `../fixtures/kinds/rolling-${n}.ts`);
const NAMES = Array.from({ length: COUNT }, (_, i) => `r${String(i).padStart(3, '0')}`);
/** The resources of 3 replicas (the others have 1): those a schema of at most 2 refuses. */
const BIG = ['r000', 'r060', 'r120', 'r180', 'r240'];

/** The doc that shows the markdown of the changed-field build: its words, then the comment from a marker on. */
const COMMENT_DOC = join(__dirname, '../../docs/PREVIEW-COMMENT.md');
const MARKER =
  '<!-- the comment: test/cli/preview.cluster.test.ts writes it with RECONSTRUCT_WRITE_DOCS=1 -->\n';
function commentDoc(): { head: string; comment: string } {
  const text = readFileSync(COMMENT_DOC, 'utf8');
  const at = text.indexOf(MARKER);
  if (at < 0) throw new Error(`${COMMENT_DOC}: no line "${MARKER.trim()}" before the comment`);
  return { head: text.slice(0, at + MARKER.length), comment: text.slice(at + MARKER.length) };
}

/** The values that change with the namespace's name: the ApplySet's id and the applied hash. */
const unhashed = (text: string) =>
  text
    .replace(/applyset-[\w-]{43}-v1/g, 'applyset-<id>-v1')
    .replace(/(reconstruct\.dev\/applied-hash: )[0-9a-f]+/g, '$1<hash>');

let ns: string;
/** Every request the in-process previews sent that was not a read. */
const writes: KubeRequest[] = [];

/** The cluster's client, each request that is not a GET recorded. */
function recording(client: KubeClient): KubeClient {
  return {
    request: <T>(req: KubeRequest) => {
      if (req.method !== 'GET') writes.push(req);
      return client.request<T>(req);
    },
    watch: (...args) => client.watch(...args),
  };
}

interface Stored {
  metadata: {
    name: string;
    resourceVersion: string;
    generation: number;
    managedFields: { manager: string }[];
  };
}

/**
 * What a write of the preview would move: each Rolling's resourceVersion (nothing else writes them once
 * the controller stopped), each Deployment's generation and what the controller's field manager owns
 * (kube-controller-manager writes their status meanwhile).
 */
function versions(): string[] {
  const rollings = getJson<{ items: Stored[] }>(['rollings', '-n', ns]).items;
  const deployments = getJson<{ items: Stored[] }>(['deployments', '-n', ns, '--show-managed-fields']).items;
  return [
    ...rollings.map((o) => `rolling/${o.metadata.name}@${o.metadata.resourceVersion}`),
    ...deployments.map(
      (o) =>
        `deployment/${o.metadata.name}@${o.metadata.generation} ` +
        JSON.stringify(o.metadata.managedFields.filter((m) => m.manager === 'reconstruct')),
    ),
  ];
}

/** The fleet under `kind`, in-process; how long it took is printed (a figure, not a check). */
async function preview(kind: Kind) {
  const started = performance.now();
  const fleet = await previewFleet(recording(loadClient({})), [kind], { namespace: ns }, { concurrency: 8 });
  console.log(
    `previewed ${fleet.resources.length} resources in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return fleet;
}

function cli(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'preview', '--no-builtin-kinds', '-n', ns, ...args], {
    encoding: 'utf8',
    env: process.env,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

let before: string[];

beforeAll(async () => {
  installCrds([rollingV1]);
  ns = createNamespace('preview');
  applyYaml(
    NAMES.map((n) => JSON.stringify(rolling(n, ns, { replicas: BIG.includes(n) ? 3 : 1 }))).join('\n---\n'),
  );
  const controller = await startController([
    '--kinds',
    BUILD('v1'),
    '--no-builtin-kinds',
    '--namespaces',
    ns,
  ]);
  try {
    // Each Deployment seen by its own controller too, so that nothing but a preview would change them.
    const settled = (d: { metadata: { generation: number }; status?: { observedGeneration?: number } }) =>
      d.status?.observedGeneration === d.metadata.generation;
    await waitFor(
      () =>
        getJson<{ items: Stored[] }>(['deployments', '-n', ns]).items.filter(settled).length === COUNT &&
        getJson<{ items: { status?: { lastAppliedRevision?: string } }[] }>([
          'rollings',
          '-n',
          ns,
        ]).items.every((r) => r.status?.lastAppliedRevision === 'v1'),
      { what: `${COUNT} Rollings applied by the first build`, timeoutMs: 240_000 },
    );
  } finally {
    await controller.stop();
  }
  before = versions();
});
afterAll(() => {
  kubectl(
    [
      'delete',
      'clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding',
      PREVIEWER,
      `${PREVIEWER}-dry-run-only`,
      '--ignore-not-found',
    ],
    { allowFail: true },
  );
  if (ns) deleteNamespace(ns);
});

it('finds nothing to change under the build that made the fleet', async () => {
  const { resources, problems } = await preview(rollingV1);
  expect(problems).toEqual([]);
  expect(summarize(resources).resources).toEqual({ unchanged: COUNT, changed: 0, failed: 0, error: 0 });
  const run = cli('--kinds', BUILD('v1'));
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain(`previewed ${COUNT} resource(s) of Rolling: ${COUNT} unchanged, 0 changed`);
  expect(run.code).toBe(0);
});

it("shows every Deployment's new environment under the build that changes it", async () => {
  const { resources } = await preview(rollingV2);
  const summary = summarize(resources);
  expect(summary.resources).toEqual({ unchanged: 0, changed: COUNT, failed: 0, error: 0 });
  expect(summary.children).toEqual({ create: 0, update: COUNT, prune: 0, replace: 0 });
  expect(summary.fields).toEqual([
    { field: 'Deployment spec.template.spec.containers[*].env', children: COUNT },
  ]);
  const r007 = resources.find((r) => r.resource.metadata.name === 'r007');
  expect(r007?.children[0].diff).toContain(
    `diff -u -N live/apps.v1.Deployment.${ns}.r007 merged/apps.v1.Deployment.${ns}.r007`,
  );
  expect(r007?.children[0].diff).toMatch(/^-\s+value: v1$/m);
  expect(r007?.children[0].diff).toMatch(/^\+\s+value: v2$/m);

  const run = cli('--kinds', BUILD('v2'), '-o', 'json');
  expect(run.code).toBe(1);
  const json = JSON.parse(run.stdout) as { summary: typeof summary; resources: { name: string }[] };
  expect(json.summary).toEqual(summary);
  expect(json.resources).toHaveLength(COUNT);

  // The pull request's comment, as docs/PREVIEW-COMMENT.md shows it (the namespace there is demo).
  const markdown = cli('--kinds', BUILD('v2'), '-o', 'markdown');
  expect(markdown.code).toBe(1);
  const shown = markdown.stdout.replaceAll(ns, 'demo');
  if (process.env.RECONSTRUCT_WRITE_DOCS) writeFileSync(COMMENT_DOC, `${commentDoc().head}${shown}`);
  expect(unhashed(shown)).toBe(unhashed(commentDoc().comment));
});

it('names each resource the API server would refuse under a build that changes an immutable field', async () => {
  const { resources } = await preview(rollingV4);
  expect(resources.filter((r) => r.error).map((r) => r.error)).toEqual([]);
  expect(summarize(resources).resources).toEqual({ unchanged: COUNT - 30, changed: 0, failed: 30, error: 0 });
  const failed = resources.filter((r) => r.failure).map((r) => r.resource.metadata.name);
  expect(failed).toEqual(NAMES.filter((n) => n.endsWith('7')));
  const failure = resources.find((r) => r.failure)?.failure;
  expect(failure?.reason).toBe('ApplyFailed');
  expect(failure?.message).toMatch(/Deployment r\d\d7: spec\.selector.* immutable/);

  const run = cli('--kinds', BUILD('v4-reselect'));
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`Rolling ${ns}/r007: would fail: ApplyFailed: Deployment r007`);
  expect(run.stdout).toContain(`${COUNT - 30} unchanged, 0 changed, 30 would fail`);
});

it('names the stored objects a stricter schema refuses, and each field', async () => {
  const { resources } = await preview(rollingV5);
  expect(summarize(resources).resources).toEqual({ unchanged: COUNT - 5, changed: 0, failed: 5, error: 0 });
  const refused = resources.filter((r) => r.failure);
  expect(refused.map((r) => r.resource.metadata.name)).toEqual(BIG);
  expect(refused[0].failure).toEqual({
    reason: 'SchemaRefused',
    message: 'spec.replicas: Invalid value: 3: spec.replicas in body should be less than or equal to 2',
  });

  const run = cli('--kinds', BUILD('v5-strict'));
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    `Rolling ${ns}/r060: would fail: SchemaRefused: spec.replicas: Invalid value: 3: spec.replicas in body`,
  );
  expect(run.stdout).toContain(`${COUNT - 5} unchanged, 0 changed, 5 would fail`);
});

it("warns of children that change while the build's revision stays the same", async () => {
  const same = rollingKind({ revision: 'v1', env: { BUILD: 'v1', EXTRA: 'on' } });
  const { warnings, resources } = await preview(same);
  expect(summarize(resources).resources.changed).toBe(COUNT);
  expect(warnings.map((w) => w.message)).toEqual([
    `the children of ${COUNT} resource(s) change while the build's revision stays v1: give the build a new revision to roll it out at a pace`,
  ]);
});

it("previews as the install's previewer, who may dry-run and write nothing", async () => {
  const chart = new Chart(new App(), 'previewer', { disableResourceNameHashes: true });
  const access = new PreviewerAccess(chart, 'access', { kinds: [rollingV1], namespace: ns, name: PREVIEWER });
  kubectl(['apply', '--server-side', '--field-manager=reconstruct-tests', '-f', '-'], {
    input: chart
      .toJson()
      .map((o) => JSON.stringify(o))
      .join('\n---\n'),
  });
  const kubeconfig = tokenKubeconfig(PREVIEWER, ns);
  // A write that is not a dry run is refused by the policy once the API server has it (RBAC allows it).
  const create = (...extra: string[]) =>
    kubectl(['create', '--kubeconfig', kubeconfig, '-f', '-', '-o', 'name', ...extra], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'probe', namespace: ns },
        spec: {
          selector: { matchLabels: { app: 'probe' } },
          template: {
            metadata: { labels: { app: 'probe' } },
            spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1' }] },
          },
        },
      }),
      allowFail: true,
    });
  const refused = await waitFor(
    () => {
      const run = create();
      if (run.code === 0) kubectl(['delete', 'deployment', 'probe', '-n', ns]);
      return run.code !== 0 && run.stderr.includes('only previews') ? run.stderr : undefined;
    },
    { what: 'the dry-run-only policy in effect', timeoutMs: 30_000 },
  );
  expect(refused).toContain(`${access.username} only previews: it may write with dryRun=All, nothing else`);
  expect(create('--dry-run=server').code).toBe(0);

  const run = cli('--kinds', BUILD('v2'), '--kubeconfig', kubeconfig);
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain(
    `previewed ${COUNT} resource(s) of Rolling: 0 unchanged, ${COUNT} changed, 0 would fail`,
  );
  expect(run.code).toBe(1);
});

it('writes nothing: every request that is not a read is a dry run, and no object changes', () => {
  expect(writes.length).toBeGreaterThan(COUNT);
  expect(writes.filter((w) => w.query?.dryRun !== 'All')).toEqual([]);
  expect(versions()).toEqual(before);
});
