import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const TYPES = 'constructs/{kind}/types.generated.ts';

/** `reconstruct gen --check` as `npm run gen` would run it, in `cwd`. */
function check(cwd = ROOT): { status: number | null; stderr: string } {
  const tsx = join(ROOT, 'node_modules/.bin/tsx');
  const run = spawnSync(
    tsx,
    [join(ROOT, 'cli/main.ts'), 'gen', '--check', '--crds', 'crds', '--types', TYPES],
    {
      cwd,
      encoding: 'utf8',
    },
  );
  return { status: run.status, stderr: run.stderr };
}

/** A copy of the parts of the repository gen reads and writes. */
function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gen-'));
  for (const part of ['crds', 'constructs']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  return dir;
}

describe('generated artefacts (crds/*.yaml, constructs/<kind>/types.generated.ts)', () => {
  it('are up to date with the kind definitions', () => {
    const { status, stderr } = check();
    expect(stderr).not.toMatch(/out of date|no definition/);
    expect(status).toBe(0);
  });

  it.each([
    ['a CRD edited by hand', 'crds/cache.example.com_memcacheds.yaml', 'minimum: 0', 'minimum: 1'],
    ['types edited by hand', 'constructs/memcached/types.generated.ts', 'size: number', 'size: string'],
  ])('reports %s', (_what, file, from, to) => {
    const dir = copy();
    try {
      const path = join(dir, file);
      writeFileSync(path, readFileSync(path, 'utf8').replace(from, to));
      const { status, stderr } = check(dir);
      expect(stderr).toContain(`${file} is out of date`);
      expect(status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a generated CRD whose kind is gone, and leaves files it did not write alone', () => {
    const dir = copy();
    try {
      const mark = readFileSync(join(dir, 'crds/cache.example.com_memcacheds.yaml'), 'utf8').split('\n')[0];
      writeFileSync(join(dir, 'crds/example.com_gones.yaml'), `${mark}\nkind: CustomResourceDefinition\n`);
      writeFileSync(join(dir, 'crds/mine.yaml'), 'kind: ConfigMap\n');
      const { status, stderr } = check(dir);
      expect(stderr).toContain('crds/example.com_gones.yaml has no definition');
      expect(stderr).not.toContain('mine.yaml');
      expect(status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
