/**
 * `npm run gen`: writes crds/*.yaml and crds/types.generated.ts from the definitions in crds/*.ts.
 * `--check` writes nothing and exits 1 naming every artefact that drifted from its definition.
 * `--dir DIR` reads and writes DIR instead of crds/ (the drift test checks a copy).
 */
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderArtifacts } from './artifacts';

async function main(check: boolean, dir: string): Promise<number> {
  const files = await renderArtifacts();
  const stale = readdirSync(dir).filter((f) => f.endsWith('.yaml') && !files.has(f));
  const drifted = [...files].filter(([name, content]) => {
    const path = join(dir, name);
    return !existsSync(path) || readFileSync(path, 'utf8') !== content;
  });
  if (check) {
    for (const [name] of drifted) console.error(`crds/${name} is out of date`);
    for (const name of stale) console.error(`crds/${name} has no definition`);
    if (drifted.length + stale.length > 0) console.error('run `npm run gen` and commit the result');
    return drifted.length + stale.length > 0 ? 1 : 0;
  }
  for (const name of stale) unlinkSync(join(dir, name));
  for (const [name, content] of drifted) writeFileSync(join(dir, name), content);
  console.log(drifted.length ? `wrote ${drifted.map(([n]) => n).join(', ')}` : 'crds/ is up to date');
  return 0;
}

const dirFlag = process.argv.indexOf('--dir');
main(process.argv.includes('--check'), dirFlag > 0 ? process.argv[dirFlag + 1] : __dirname).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
