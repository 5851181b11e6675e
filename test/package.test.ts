/**
 * What an npm user gets: the tarball `npm pack` makes holds the docs README links to and the worked
 * example, so that README's links and the JSDoc's "see docs/GUIDE.md" lead somewhere from node_modules,
 * and none of the repository's own tests, benchmarks or demo.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

  it.each(['README.md', 'docs/GUIDE.md', 'docs/API.md', 'examples/static-site/README.md'])(
    'ships every file %s links to (the shared contract aside, which is not the package)',
    (doc) => {
      expect(ships(doc)).toBe(true);
      const missing = links(doc).filter((target) => !target.startsWith('../shared/') && !ships(target));
      expect(missing).toEqual([]);
    },
  );

  it("ships none of the repository's tests, benchmarks, demo or local cluster state", () => {
    expect(files.filter((f) => /^(test|bench|demo|\.cluster|dist\/(test|bench|demo))\//.test(f))).toEqual([]);
  });
});
