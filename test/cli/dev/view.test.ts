/**
 * What the dev loop prints of a build: each child's change cut to its changed lines (not the controller's
 * bookkeeping), per resource; and which kinds' CRDs it installs again.
 */
import { formatChanges, shortDiff } from '../../../cli/dev/view';
import { changedCrds } from '../../../cli/dev/crds';
import { projectModules } from '../../../cli/dev/reload';
import { inspectAddress } from '../../../cli/dev/command';
import type { ResourcePreview } from '../../../cli/preview/fleet';
import { builtinKinds } from '../../../constructs';

const DIFF = `diff -u -N live/apps.v1.Deployment.default.web merged/apps.v1.Deployment.default.web
--- live/apps.v1.Deployment.default.web
+++ merged/apps.v1.Deployment.default.web
@@ -3,6 +3,8 @@
   annotations:
-    reconstruct.dev/applied-hash: 1111
+    reconstruct.dev/applied-hash: 2222
   labels:
+    tier: web
   name: web
-  replicas: 1
+  replicas: 2
`;

const memcached = builtinKinds.find((k) => k.kind === 'Memcached')!;

function preview(
  children: ResourcePreview['children'],
  more: Partial<ResourcePreview> = {},
): ResourcePreview {
  return {
    definition: memcached,
    resource: {
      apiVersion: memcached.apiVersion,
      kind: 'Memcached',
      metadata: { name: 'web', namespace: 'default' },
      spec: {},
    },
    children,
    ...more,
  };
}

const child = (action: 'create' | 'update' | 'prune', kind: string, name: string, diff = '') => ({
  action,
  change: { type: { apiVersion: 'v1', kind, namespaced: true, plural: '' }, name, namespace: 'default' },
  diff,
});

describe('shortDiff', () => {
  it('keeps the changed lines only, without the applied-hash annotation', () => {
    expect(shortDiff(DIFF)).toEqual(['      +    tier: web', '      -  replicas: 1', '      +  replicas: 2']);
  });

  it('cuts a long diff and counts the rest', () => {
    const long = Array.from({ length: 12 }, (_, i) => `+  line${i}: x`).join('\n');
    const lines = shortDiff(long, 8);
    expect(lines).toHaveLength(9);
    expect(lines[8]).toBe('      … 4 more changed line(s)');
  });
});

describe('formatChanges', () => {
  it("names each changed resource, its children's actions, and an update's changed lines", () => {
    const text = formatChanges([
      preview([
        child('update', 'Deployment', 'web', DIFF),
        child('create', 'ConfigMap', 'web-config'),
        child('prune', 'Service', 'web'),
      ]),
      preview([], {
        resource: { ...preview([]).resource, metadata: { name: 'other', namespace: 'default' } },
      }),
    ]);
    expect(text).toBe(
      [
        '  Memcached default/web',
        '    ~ Deployment web (update)',
        '      +    tier: web',
        '      -  replicas: 1',
        '      +  replicas: 2',
        '    + ConfigMap web-config (create)',
        '    - Service web (prune)',
        '  1 resource(s) unchanged',
        '',
      ].join('\n'),
    );
  });

  it('says why a resource would fail, and when there is none yet', () => {
    const failing = preview([], {
      failure: { reason: 'InvalidSpec', message: 'spec.replicas: must be >= 0' },
    });
    expect(formatChanges([failing])).toBe(
      '  Memcached default/web: would fail: InvalidSpec: spec.replicas: must be >= 0\n',
    );
    expect(formatChanges([])).toBe('  no resources yet (apply one, or add it to samples/)\n');
  });
});

describe('changedCrds', () => {
  it('lists the kinds whose CRD differs from the one installed last', () => {
    const installed = new Map(builtinKinds.map((k) => [k.crd.metadata.name, JSON.stringify(k.crd)]));
    expect(changedCrds(builtinKinds, installed)).toEqual([]);
    installed.set(memcached.crd.metadata.name, '{}');
    expect(changedCrds(builtinKinds, installed)).toEqual([memcached]);
    expect(changedCrds(builtinKinds, new Map())).toHaveLength(builtinKinds.length);
  });
});

describe('projectModules', () => {
  it("takes the project's own modules, not its dependencies nor another folder's", () => {
    expect(
      projectModules('/p', [
        '/p/src/kinds.ts',
        '/p/node_modules/cdk8s/lib/index.js',
        '/pp/src/x.ts',
        '/other/a.js',
        '/p/src/a/b.ts',
      ]),
    ).toEqual(['/p/src/kinds.ts', '/p/src/a/b.ts']);
  });
});

describe('inspectAddress', () => {
  it('reads [HOST:]PORT as node --inspect does', () => {
    expect(inspectAddress('9229')).toEqual({ host: '127.0.0.1', port: 9229 });
    expect(inspectAddress('0.0.0.0:9230')).toEqual({ host: '0.0.0.0', port: 9230 });
    expect(inspectAddress('x')).toBeUndefined();
    expect(inspectAddress('70000')).toBeUndefined();
  });
});
