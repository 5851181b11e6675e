#!/usr/bin/env node
// The software bill of materials of an operator image, in CycloneDX 1.5 JSON, made from the image alone:
// what is in its file system, not what a lock file says should be.
//
//   node scripts/image/sbom.mjs IMAGE [-o FILE]        (default: standard output)
//
// - every npm package under /app/node_modules (nested ones too): name, version, licence, purl pkg:npm;
// - the operating system's packages: the Debian packages the local base lists (it has no dpkg database,
//   see base.sh), or Alpine's apk database (node:20-alpine), or Debian's dpkg status;
// - Node.js itself (pkg:generic/node), and the application (/app/package.json) as the subject.
//
// Why not syft or trivy: both come from GitHub releases or a container registry, neither reachable here,
// and `npm sbom` sees a project's tree, not an image's. This reads the image with its own node, so it
// needs no shell in the image (the local base has none). The engine: RECONSTRUCT_IMAGE_ENGINE, else
// podman, else docker.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const image = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '-o');
const outIndex = args.indexOf('-o');
const out = outIndex >= 0 ? args[outIndex + 1] : '-';
if (!image) {
  console.error('usage: node scripts/image/sbom.mjs IMAGE [-o FILE]');
  process.exit(2);
}

function engine() {
  if (process.env.RECONSTRUCT_IMAGE_ENGINE) return process.env.RECONSTRUCT_IMAGE_ENGINE;
  for (const e of ['podman', 'docker']) {
    if (spawnSync(e, ['--version'], { stdio: 'ignore' }).status === 0) return e;
  }
  console.error('sbom: no container engine (podman or docker)');
  process.exit(1);
}

// Runs inside the image, with its node: prints what it holds.
const INSIDE = `
const fs = require('fs'), path = require('path');
const read = (f) => { try { return fs.readFileSync(f, 'utf8'); } catch { return undefined; } };
const npm = [];
(function walk(dir) {
  let names = [];
  try { names = fs.readdirSync(dir); } catch { return; }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (name.startsWith('@')) { walk(p); continue; }
    const pj = read(path.join(p, 'package.json'));
    if (pj) {
      const j = JSON.parse(pj);
      if (j.name && j.version) npm.push({ name: j.name, version: j.version, license: typeof j.license === 'string' ? j.license : undefined, path: p });
    }
    walk(path.join(p, 'node_modules'));
  }
})('/app/node_modules');
const app = JSON.parse(read('/app/package.json') || '{}');
console.log(JSON.stringify({
  app: { name: app.name, version: app.version, license: app.license },
  node: process.version.slice(1),
  npm,
  debianList: read('/usr/local/share/reconstruct/debian-packages.tsv'),
  dpkgStatus: read('/var/lib/dpkg/status'),
  apk: read('/lib/apk/db/installed'),
  osRelease: read('/etc/os-release'),
}));
`;

const seen = JSON.parse(
  execFileSync(engine(), ['run', '--rm', '--network=none', '--entrypoint', 'node', image, '-e', INSIDE], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  }),
);

const osId = /^ID=(.*)$/m.exec(seen.osRelease ?? '')?.[1]?.replace(/"/g, '') ?? 'debian';
const osVersion = /^VERSION_ID=(.*)$/m.exec(seen.osRelease ?? '')?.[1]?.replace(/"/g, '');
const distro = osVersion ? `&distro=${osId}-${osVersion}` : '';

/** The OS packages: [name, version, arch, license?]. */
function osPackages() {
  if (seen.debianList) {
    return seen.debianList
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
  }
  if (seen.dpkgStatus) {
    return seen.dpkgStatus
      .split('\n\n')
      .filter((stanza) => /^Status: .* installed$/m.test(stanza))
      .map((stanza) =>
        ['Package', 'Version', 'Architecture'].map((f) => new RegExp(`^${f}: (.*)$`, 'm').exec(stanza)?.[1]),
      );
  }
  if (seen.apk) {
    return seen.apk
      .split('\n\n')
      .filter(Boolean)
      .map((stanza) => ['P', 'V', 'A', 'L'].map((f) => new RegExp(`^${f}:(.*)$`, 'm').exec(stanza)?.[1]));
  }
  return [];
}

const purlName = (name) => name.replace(/^@/, '%40');
const licenses = (id) =>
  id ? [{ license: /^[A-Za-z0-9.+-]+$/.test(id) ? { id } : { name: id } }] : undefined;

const components = [
  {
    type: 'application',
    'bom-ref': `node@${seen.node}`,
    name: 'node',
    version: seen.node,
    purl: `pkg:generic/node@${seen.node}`,
    licenses: licenses('MIT'),
  },
  ...osPackages().map(([name, version, arch, license]) => {
    const type = seen.apk && !seen.debianList && !seen.dpkgStatus ? 'apk' : 'deb';
    const namespace = type === 'apk' ? 'alpine' : 'debian';
    return {
      type: 'library',
      'bom-ref': `${type}:${name}@${version}`,
      name,
      version,
      purl: `pkg:${type}/${namespace}/${name}@${encodeURIComponent(version)}?arch=${arch}${distro}`,
      licenses: licenses(license),
    };
  }),
  ...seen.npm
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((p) => ({
      type: 'library',
      'bom-ref': `npm:${p.path.replace('/app/node_modules/', '')}@${p.version}`,
      name: p.name,
      version: p.version,
      purl: `pkg:npm/${purlName(p.name)}@${p.version}`,
      licenses: licenses(p.license),
      properties: [{ name: 'path', value: p.path }],
    })),
];

const bom = {
  $schema: 'http://cyclonedx.org/schema/bom-1.5.schema.json',
  bomFormat: 'CycloneDX',
  specVersion: '1.5',
  serialNumber: `urn:uuid:${randomUUID()}`,
  version: 1,
  metadata: {
    timestamp: new Date().toISOString(),
    tools: [{ vendor: 'cdk8s-reconstruct', name: 'scripts/image/sbom.mjs' }],
    component: {
      type: 'container',
      'bom-ref': image,
      name: image,
      properties: [{ name: 'application', value: `${seen.app.name}@${seen.app.version}` }],
      licenses: licenses(seen.app.license),
    },
  },
  components,
};

const text = `${JSON.stringify(bom, null, 2)}\n`;
if (out === '-') process.stdout.write(text);
else {
  writeFileSync(out, text);
  console.error(
    `[sbom] ${image}: ${components.length} components (${seen.npm.length} npm packages) -> ${out}`,
  );
}
