import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

function check(dir = join(ROOT, 'crds')): { status: number | null; stderr: string } {
  const run = spawnSync('npx', ['tsx', 'crds/generate.ts', '--check', '--dir', dir], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: run.status, stderr: run.stderr };
}

describe('generated CRD artefacts (crds/*.yaml, crds/types.generated.ts)', () => {
  it('are up to date with the definitions in crds/*.ts', () => {
    const { status, stderr } = check();
    expect(stderr).not.toMatch(/out of date|no definition/);
    expect(status).toBe(0);
  });

  it('are reported when a generated file is edited by hand', () => {
    const copy = mkdtempSync(join(tmpdir(), 'crds-'));
    try {
      cpSync(join(ROOT, 'crds'), copy, { recursive: true });
      const file = join(copy, 'cache.example.com_memcacheds.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('minimum: 0', 'minimum: 1'));
      const { status, stderr } = check(copy);
      expect(stderr).toContain('crds/cache.example.com_memcacheds.yaml is out of date');
      expect(status).toBe(1);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
