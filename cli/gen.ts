/**
 * `reconstruct gen`: writes what is derived from kind definitions (CRD YAML, spec and status types, those of
 * a kind's other versions named with the version), or with `--check` writes nothing and exits 1 naming every
 * file that drifted from its definition.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GENERATED_MARK, renderArtifacts } from '../synth/artifacts';
import type { Kind } from '../constructs/kit';
import { KINDS_HELP, STDIO, commandKinds, parseCommand } from './kinds';

const GEN_HELP = `Usage: reconstruct gen [--kinds MODULE] [--crds DIR] [--types FILE] [--check]

Writes what is derived from kind definitions: each kind's CRD YAML (<group>_<plural>.yaml) and the
TypeScript types of its spec and status (<Kind>Spec, <Kind>SpecWithDefaults, <Kind>Status). A kind
with several versions also gets each version's types named with the version, in the same file
(<Kind>V1alpha1Spec, ...); those of its own version (apiVersion's) are aliases of the unversioned ones.
Works on the kinds of --kinds; on the built-in kinds when no --kinds is given.

Options:
  --crds DIR          folder of the CRD YAML files (default: crds); CRD files generated earlier for
                      kinds that are gone are removed
  --types FILE        file of the types; {kind} in it (the kind in kebab case) writes one file per
                      kind, e.g. 'src/{kind}/types.generated.ts' (default: no types)
  --check             write nothing; exit 1 naming every file that is out of date
${KINDS_HELP}
  -h, --help          show this help
`;

/** What gen would write: the files that differ from their definition, and CRD files of kinds that are gone. */
export interface ArtifactPlan {
  readonly drifted: readonly (readonly [path: string, content: string])[];
  readonly stale: readonly string[];
}

/** The files derived from `kinds` that are out of date under `crds` and `types` (see GEN_HELP). */
export async function planArtifacts(
  kinds: readonly Kind[],
  crds: string,
  types: string | undefined,
): Promise<ArtifactPlan> {
  return planFrom(await renderArtifacts(kinds, { crds, types }), crds);
}

/** Which of the rendered `files` (by path) differ from the disk, and the CRD files under `crds` no kind has. */
export function planFrom(files: ReadonlyMap<string, string>, crds: string): ArtifactPlan {
  // CRD files an earlier run wrote for kinds that are gone; files of anyone else stay.
  const stale = existsSync(crds)
    ? readdirSync(crds)
        .map((f) => join(crds, f))
        .filter(
          (f) => f.endsWith('.yaml') && !files.has(f) && readFileSync(f, 'utf8').includes(GENERATED_MARK),
        )
    : [];
  const drifted = [...files].filter(
    ([path, content]) => !existsSync(path) || readFileSync(path, 'utf8') !== content,
  );
  return { drifted, stale };
}

/** Brings the files of `plan` up to date. */
export function writeArtifacts({ drifted, stale }: ArtifactPlan): void {
  for (const path of stale) unlinkSync(path);
  for (const [path, content] of drifted) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}

export async function genCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand('gen', GEN_HELP, argv, {
    crds: { type: 'string' },
    types: { type: 'string' },
    check: { type: 'boolean' },
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const kinds = await commandKinds('gen', values, STDIO, 'without-modules');
  if (typeof kinds === 'number') return kinds;
  const { drifted, stale } = await planArtifacts(kinds.kinds, values.crds ?? 'crds', values.types);
  if (values.check) {
    for (const [path] of drifted) process.stderr.write(`${path} is out of date\n`);
    for (const path of stale) process.stderr.write(`${path} has no definition\n`);
    const bad = drifted.length + stale.length > 0;
    if (bad) process.stderr.write('run `reconstruct gen` (npm run gen here) and commit the result\n');
    return bad ? 1 : 0;
  }
  writeArtifacts({ drifted, stale });
  process.stdout.write(drifted.length ? `wrote ${drifted.map(([p]) => p).join(', ')}\n` : 'up to date\n');
  return 0;
}
