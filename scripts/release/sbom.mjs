#!/usr/bin/env node
// `npm run sbom`: the software bills of materials of a release, in CycloneDX 1.5 JSON, into dist/release/
// (or RECONSTRUCT_RELEASE_DIR):
//
//   cdk8s-reconstruct-<version>.cdx.json        the npm package's runtime dependencies (CycloneDX's own
//                                               cyclonedx-npm --omit dev; the peers cdk8s, constructs and
//                                               cdk8s-plus-27 are the user's app's, so not listed). Not
//                                               `npm sbom`: npm 11's leaves out a runtime dependency that
//                                               dev tools share (pirates), test/package.test.ts caught it
//   reconstruct-<version>-image.cdx.json        the image reconstruct:<version>, read from the image itself
//                                               (scripts/image/sbom.mjs); left out, saying so, when the
//                                               image is not built (npm run image)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outDir = process.env.RECONSTRUCT_RELEASE_DIR || join(root, 'dist', 'release');
mkdirSync(outDir, { recursive: true });

const bom = JSON.parse(
  execFileSync(
    join(root, 'node_modules/.bin/cyclonedx-npm'),
    ['--omit', 'dev', '--spec-version', '1.5', '--output-format', 'JSON', '--output-reproducible'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
  ),
);
const packageFile = join(outDir, `${pkg.name}-${pkg.version}.cdx.json`);
writeFileSync(packageFile, `${JSON.stringify(bom, null, 2)}\n`);
console.error(`[sbom] ${pkg.name}@${pkg.version}: ${bom.components.length} components -> ${packageFile}`);

const image = process.env.RECONSTRUCT_IMAGE || `reconstruct:${pkg.version}`;
const imageFile = join(outDir, `reconstruct-${pkg.version}-image.cdx.json`);
const res = spawnSync(process.execPath, [join(root, 'scripts/image/sbom.mjs'), image, '-o', imageFile], {
  stdio: ['ignore', 'inherit', 'pipe'],
  encoding: 'utf8',
});
if (res.status === 0) process.stderr.write(res.stderr);
else
  console.error(
    `[sbom] no image SBOM: ${image} could not be read (build it with npm run image)\n${res.stderr.trim()}`,
  );
