/**
 * `reconstruct preview`'s own decisions: which fields a change touches, the summary and its reports, and
 * the offline comparison of two builds on files (the live one against a cluster is in
 * preview.cluster.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KindRegistry } from '../../index';
import { actionOf, revisionWarnings, type ResourcePreview } from '../../cli/preview/fleet';
import { previewCommand } from '../../cli/preview/command';
import { previewOffline } from '../../cli/preview/offline';
import { fleetLister } from '../../cli/preview/lister';
import { schemaRefusal } from '../../cli/preview/schema';
import type { KubeClient } from '../../controller/kube/client';
import type { KubeRequest } from '../../controller/kube/http';
import {
  MARKDOWN_LIMIT,
  changedFields,
  formatSummary,
  summarize,
  toMarkdown,
} from '../../cli/preview/report';
import type { SourceDocument } from '../../synth/read';
import { rolling, rollingKind } from '../fixtures/kinds/rolling';
import { rollingV1 } from '../fixtures/kinds/rolling-v1';
import { rollingV2 } from '../fixtures/kinds/rolling-v2';
import { rollingV4 } from '../fixtures/kinds/rolling-v4-reselect';
import { capture } from '../support/capture';
import { reconstruct } from '../support/node-ts';

describe('schemaRefusal: the new schema against a stored object', () => {
  const strict = rollingKind({ revision: 'v1', env: {}, maxReplicas: 2 });
  const stored = (replicas: number) => ({
    ...rolling('r1', 'shop', { replicas }),
    metadata: { name: 'r1', namespace: 'shop', uid: 'u1', resourceVersion: '9', managedFields: [] },
    status: { lastAppliedRevision: 'v1' },
  });

  it('words each refusal as the API server does, on the field', () => {
    expect(schemaRefusal(strict, stored(3))).toBe(
      'spec.replicas: Invalid value: 3: spec.replicas in body should be less than or equal to 2',
    );
  });

  it("admits what the schema allows, the API server's own metadata and the status aside", () => {
    expect(schemaRefusal(strict, stored(2))).toBeUndefined();
  });
});

describe("fleetLister: a fleet's lists, each made once", () => {
  const type = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true };
  const object = (name: string, set: string) => ({
    metadata: { name, namespace: 'shop', labels: { 'applyset.kubernetes.io/part-of': set } },
  });
  const sent: KubeRequest[] = [];
  const client: KubeClient = {
    request: <T>(req: KubeRequest) => {
      sent.push(req);
      return Promise.resolve({ items: [object('a', 'set-a'), object('b', 'set-b')] } as T);
    },
    watch: () => {
      throw new Error('no watch');
    },
  };

  it("lists each child type once per namespace, every ApplySet's objects, and gives each resource its own", async () => {
    const list = fleetLister(client);
    const [a, b, none] = await Promise.all([
      list(type, 'shop', 'applyset.kubernetes.io/part-of=set-a'),
      list(type, 'shop', 'applyset.kubernetes.io/part-of=set-b'),
      list(type, 'shop', 'applyset.kubernetes.io/part-of=set-c'),
    ]);
    expect([a, b, none].map((objects) => objects.map((o) => o.metadata.name))).toEqual([['a'], ['b'], []]);
    expect(a[0]).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(sent.map((r) => [r.path, r.query])).toEqual([
      ['/apis/apps/v1/namespaces/shop/deployments', { labelSelector: 'applyset.kubernetes.io/part-of' }],
    ]);
    await list(type, 'shop', 'app=web');
    await list(type, 'shop', 'app=web');
    await list(type, 'other', 'applyset.kubernetes.io/part-of=set-a');
    expect(sent).toHaveLength(3);
  });
});

describe('what a preview makes of a plan', () => {
  const type = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true };
  const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };

  it('classes each child change: created, updated, pruned, or replaced (deleted to be made again)', () => {
    const change = { type, namespace: 'shop', name: 'web' };
    expect(actionOf({ ...change, after: obj })).toBe('create');
    expect(actionOf({ ...change, before: obj, after: obj })).toBe('update');
    expect(actionOf({ ...change, before: obj })).toBe('prune');
    expect(actionOf({ ...change, before: obj, replaced: true })).toBe('replace');
  });

  it("warns only of a kind whose changed resources are already at the build's revision", () => {
    const v2 = rollingKind({ revision: 'v2', env: {} });
    const at = (name: string, revision: string, changed: boolean): ResourcePreview => ({
      definition: v2,
      resource: { ...rolling(name, 'shop'), status: { lastAppliedRevision: revision } },
      children: changed
        ? [{ action: 'update', change: { type, name, before: obj, after: obj }, diff: '...' }]
        : [],
    });
    const resources = [at('a', 'v2', true), at('b', 'v1', true), at('c', 'v2', false), at('d', 'v2', true)];
    expect(revisionWarnings([v2], resources).map((w) => w.message)).toEqual([
      "the children of 2 resource(s) change while the build's revision stays v2: give the build a new revision to roll it out at a pace",
    ]);
    expect(revisionWarnings([v2], [at('b', 'v1', true)])).toEqual([]);
    expect(revisionWarnings([rollingKind({ revision: 'v1', env: {} })], resources)).toEqual([]);
  });
});

describe('changedFields', () => {
  it('names the leaves that differ, a list element as [*], a list of another length whole', () => {
    const before = {
      spec: { replicas: 1, template: { containers: [{ image: 'a:1', env: [{ name: 'A', value: '1' }] }] } },
      metadata: { labels: { app: 'x' } },
    };
    const after = {
      spec: {
        replicas: 2,
        template: {
          containers: [
            {
              image: 'a:2',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
            },
          ],
        },
      },
      metadata: { labels: { app: 'x', tier: 'web' } },
    };
    expect(changedFields(before, after)).toEqual([
      'spec.replicas',
      'spec.template.containers[*].image',
      'spec.template.containers[*].env',
      'metadata.labels.tier',
    ]);
    expect(changedFields(before, structuredClone(before))).toEqual([]);
  });

  it('counts the same field of several elements once', () => {
    const list = (a: string, b: string) => ({ items: [{ image: a }, { image: b }] });
    expect(changedFields(list('x:1', 'y:1'), list('x:2', 'y:2'))).toEqual(['items[*].image']);
  });
});

const docs = (...resources: unknown[]): SourceDocument[] =>
  resources.map((value, i) => ({ file: 'fleet.yaml', index: i + 1, value }));

const offline = (old: typeof rollingV1, next: typeof rollingV1, documents: SourceDocument[]) =>
  previewOffline(documents, new KindRegistry([old]), new KindRegistry([next]), { namespace: 'default' });

describe('previewOffline: two builds on files', () => {
  const fleet = docs(rolling('r001', 'shop'), rolling('r007', 'shop', { replicas: 2 }), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'not-ours' },
  });

  it('finds nothing when the builds render the same, and leaves documents of other kinds out', () => {
    const { resources, problems } = offline(rollingV1, rollingV1, fleet);
    expect(problems).toEqual([]);
    expect(summarize(resources).resources).toEqual({ unchanged: 2, changed: 0, failed: 0, error: 0 });
  });

  it('shows each child the new build changes, as kubectl diff does, and the fields it touches', () => {
    const { resources } = offline(rollingV1, rollingV2, fleet);
    const summary = summarize(resources);
    expect(summary.resources).toEqual({ unchanged: 0, changed: 2, failed: 0, error: 0 });
    expect(summary.children).toEqual({ create: 0, update: 2, prune: 0, replace: 0 });
    expect(summary.fields).toEqual([
      { field: 'Deployment spec.template.spec.containers[*].env', children: 2 },
    ]);
    const diff = resources[1].children[0].diff;
    expect(diff).toContain('diff -u -N old/apps.v1.Deployment.shop.r007 new/apps.v1.Deployment.shop.r007');
    expect(diff).toMatch(/^\+\s+- name: CACHE$/m);
  });

  it('shows a changed selector as an update: offline, nothing knows it is immutable', () => {
    const { resources } = offline(rollingV1, rollingV4, fleet);
    expect(resources.map((r) => [r.resource.metadata.name, r.children.map((c) => c.action)])).toEqual([
      ['r001', []],
      ['r007', ['update']],
    ]);
    expect(summarize(resources).fields.map((f) => f.field)).toEqual([
      'Deployment spec.selector.matchLabels.rollouts.example.com/track',
      'Deployment spec.template.metadata.labels.rollouts.example.com/track',
    ]);
  });

  it('counts a resource the new build refuses as failing, with the field the refusal names', () => {
    const { resources } = offline(rollingV1, rollingV2, docs(rolling('bad', 'shop', { replicas: -1 })));
    expect(resources).toHaveLength(1);
    expect(resources[0].failure?.reason).toBe('InvalidSpec');
    expect(resources[0].failure?.message).toContain('spec.replicas');
    expect(summarize(resources).resources.failed).toBe(1);
  });
});

describe('the reports', () => {
  const { resources } = offline(rollingV1, rollingV2, docs(rolling('r001', 'shop'), rolling('r002', 'shop')));
  const failing: ResourcePreview = {
    ...resources[0],
    children: [],
    failure: {
      reason: 'ApplyFailed',
      message: 'Deployment r003: spec.selector: Invalid value: field is immutable',
    },
    resource: rolling('r003', 'shop'),
  };
  const all = [...resources, failing];

  it('summarizes in three lines and the fields changed most', () => {
    expect(formatSummary(summarize(all), 'Rolling')).toBe(
      [
        'previewed 3 resource(s) of Rolling: 0 unchanged, 2 changed, 1 would fail, 0 not previewed (errors)',
        'children: 0 created, 2 updated, 0 pruned, 0 replaced',
        'fields changed most:',
        '  Deployment spec.template.spec.containers[*].env  2',
        '',
      ].join('\n'),
    );
  });

  it('writes markdown for a pull request: tables, the failures, each diff folded', () => {
    const md = toMarkdown(all, summarize(all), 'Rolling');
    expect(md).toContain('| 3 | 0 | 2 | 1 | 0 |');
    expect(md).toContain('| `Deployment spec.template.spec.containers[*].env` | 2 |');
    expect(md).toContain('- Rolling shop/r003: would fail: ApplyFailed: Deployment r003: spec.selector');
    expect(md.match(/<details><summary>Rolling shop\/r00[12]<\/summary>/g)).toHaveLength(2);
    expect(md).toContain('```diff\ndiff -u -N old/apps.v1.Deployment.shop.r001');
  });

  it("keeps within a pull request comment's size: the diffs give way, counted, the summary stays", () => {
    // 300 resources whose diffs are 5,000 characters each: 20 of them would be 100,000.
    const big = Array.from({ length: 300 }, (_, i) => ({
      ...resources[0],
      resource: rolling(`r${i}`, 'shop'),
      children: [{ ...resources[0].children[0], diff: `${'+ x\n'.repeat(1250)}` }],
    }));
    const md = toMarkdown(big, summarize(big), 'Rolling');
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    const shown = md.match(/<details>/g)?.length ?? 0;
    expect(shown).toBeGreaterThan(5);
    expect(md).toContain(`... and ${300 - shown} more changed resource(s)`);
    expect(md).toContain('| 300 | 0 | 300 | 0 | 0 |');
  });
});

describe('reconstruct preview --offline', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'preview-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const build = (n: string) => join(__dirname, `../fixtures/kinds/rolling-${n}.ts`);

  it('exits as kubectl diff does: 0 for no change, 1 for changes, 2 for a resource the build refuses', () => {
    const file = join(dir, 'fleet.yaml');
    writeFileSync(
      file,
      [rolling('a', 'shop'), rolling('b', 'shop')].map((r) => JSON.stringify(r)).join('\n---\n'),
    );
    const run = (next: string, extra: string[] = []) =>
      reconstruct([
        'preview',
        '--offline',
        '--no-builtin-kinds',
        '--from',
        build('v1'),
        '--kinds',
        build(next),
        ...extra,
        file,
      ]);
    const same = run('v1');
    expect(same.stderr).toBe('');
    expect(same.stdout).toBe(
      'previewed 2 resource(s) of Rolling: 2 unchanged, 0 changed, 0 would fail, 0 not previewed (errors)\n' +
        'children: 0 created, 0 updated, 0 pruned, 0 replaced\n',
    );
    expect(same.status).toBe(0);

    const changed = run('v2', ['-o', 'markdown']);
    expect(changed.stdout).toContain('### reconstruct preview: Rolling');
    expect(changed.stdout).toContain('| 2 | 0 | 2 | 0 | 0 |');
    expect(changed.status).toBe(1);

    writeFileSync(file, JSON.stringify(rolling('a', 'shop', { replicas: -1 })));
    const refused = run('v2');
    expect(refused.stderr).toContain('Rolling shop/a: would fail: InvalidSpec:');
    expect(refused.status).toBe(2);
  }, 60_000);

  it('says what is missing in one line: --offline without --from', async () => {
    const [out, err] = [capture(), capture()];
    expect(await previewCommand(['--offline', '--kinds', build('v2'), 'x.yaml'], out, err)).toBe(2);
    expect(err.text().split('\n')[0]).toBe(
      'reconstruct preview: --offline needs --from OLD_MODULE, the build to compare with',
    );
    expect(out.text()).toBe('');
  });
});
