/**
 * What an npm user gets: the tarball `npm pack` makes holds the docs README links to and the worked
 * example, so that README's links and the JSDoc's "see docs/GUIDE.md" lead somewhere from node_modules,
 * and none of the repository's own tests, benchmarks or demo.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';

const ROOT = join(__dirname, '..');

/** The files `npm pack` would put in the tarball (without building: dist/ is whatever is there). */
function packed(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
}

/** The relative links of a Markdown file, resolved from the package root, without anchors. */
function links(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1].split('#')[0])
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
    .map((target) => normalize(join(dirname(file), target)).replace(/\/$/, ''));
}

describe('the npm tarball', () => {
  const files = packed();
  const ships = (path: string) => files.includes(path) || files.some((f) => f.startsWith(`${path}/`));

  it('ships every file each shipped Markdown file links to', () => {
    const docs = files.filter((f) => f.endsWith('.md'));
    expect(docs).toEqual(
      expect.arrayContaining(['README.md', 'docs/GUIDE.md', 'docs/API.md', 'CHANGELOG.md']),
    );
    const missing = docs.flatMap((doc) =>
      links(doc)
        .filter((target) => !ships(target))
        .map((t) => `${doc} -> ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it("ships none of the repository's tests, benchmarks, demo or local cluster state", () => {
    expect(files.filter((f) => /^(test|bench|demo|\.cluster|dist\/(test|bench|demo))\//.test(f))).toEqual([]);
  });
});

describe('the package SBOM (npm run sbom)', () => {
  it('names the package and lists its runtime dependencies, as installed, and not the build tools', () => {
    const out = mkdtempSync(join(tmpdir(), 'sbom-'));
    try {
      execFileSync(process.execPath, [join(ROOT, 'scripts/release/sbom.mjs')], {
        cwd: ROOT,
        // No image by this name: the package's SBOM alone.
        env: {
          ...process.env,
          RECONSTRUCT_RELEASE_DIR: out,
          RECONSTRUCT_IMAGE: 'reconstruct-sbom-test:none',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        dependencies: Record<string, string>;
      };
      const bom = JSON.parse(readFileSync(join(out, `${pkg.name}-${pkg.version}.cdx.json`), 'utf8')) as {
        bomFormat: string;
        metadata: { component: { name: string; version: string } };
        components: { group?: string; name: string; version: string }[];
      };
      expect(bom.bomFormat).toBe('CycloneDX');
      expect(bom.metadata.component).toMatchObject({ name: pkg.name, version: pkg.version });
      // CycloneDX puts an npm scope in `group`.
      const listed = new Map(
        bom.components.map((c) => [c.group ? `${c.group}/${c.name}` : c.name, c.version]),
      );
      for (const name of Object.keys(pkg.dependencies)) {
        const installed = (
          JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
            version: string;
          }
        ).version;
        expect([name, listed.get(name)]).toEqual([name, installed]);
      }
      // The build and test tools are not in it (some dev dependencies, @types/node or prettier, are also
      // what runtime dependencies depend on, and rightly listed).
      expect(
        ['jest', 'ts-jest', 'typescript', 'eslint', 'tsx', 'cdk8s-cli'].filter((name) => listed.has(name)),
      ).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
