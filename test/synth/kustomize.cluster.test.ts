/**
 * `reconstruct krm` under the real kustomize, as an exec KRM transformer: `kustomize build
 * --enable-alpha-plugins --enable-exec` of a folder whose kustomization runs it. In the cluster project
 * because it needs a binary built from the Go module proxy (scripts/kustomize.sh, cached beside the
 * control plane's); it does not use the cluster.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
let kustomize: string;
let dir: string;

beforeAll(() => {
  const built = spawnSync('bash', [join(ROOT, 'scripts/kustomize.sh')], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`scripts/kustomize.sh failed:\n${built.stderr}`);
  kustomize = built.stdout.trim().split('\n').pop()!;
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
  const files: Record<string, string> = {
    'kustomization.yaml':
      'namespace: shop\nresources:\n- cache.yaml\n- settings.yaml\ntransformers:\n- render.yaml\n',
    'settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: "on"}\n',
    'render.yaml': [
      'apiVersion: reconstruct.dev/v1',
      'kind: Render',
      'metadata:',
      '  name: render',
      '  annotations:',
      '    config.kubernetes.io/function: |',
      '      exec:',
      '        path: ./render.sh',
      '',
    ].join('\n'),
    'render.sh': `#!/bin/sh\nexec "${process.execPath}" "${CLI}" krm\n`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  chmodSync(join(dir, 'render.sh'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const build = (cache: string) => {
  writeFileSync(join(dir, 'cache.yaml'), cache);
  return spawnSync(kustomize, ['build', '--enable-alpha-plugins', '--enable-exec', dir], {
    encoding: 'utf8',
  });
};

it('renders the custom resources among the kustomization and keeps the rest', () => {
  const result = build(
    'apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: cache}\nspec: {size: 2}\n',
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const docs = parseAllDocuments(result.stdout).map(
    (d) =>
      d.toJS() as {
        kind: string;
        metadata: { name: string; namespace?: string };
        spec?: { replicas?: number };
      },
  );
  expect(docs.map((d) => `${d.kind}/${d.metadata.namespace}/${d.metadata.name}`).sort()).toEqual([
    'ConfigMap/shop/settings',
    'Deployment/shop/cache',
    'Service/shop/cache',
  ]);
  expect(docs.find((d) => d.kind === 'Deployment')?.spec?.replicas).toBe(2);
});

it('fails the build on an invalid resource, naming the field', () => {
  const result = build(
    'apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: cache}\nspec: {size: -3}\n',
  );
  expect(result.status).not.toBe(0);
  expect(result.stderr).toContain('Memcached/shop/cache: spec.size: Invalid value: -3');
});
