/**
 * `reconstruct gen`: writes what is derived from kind definitions (CRD YAML, spec and status types), or with
 * `--check` writes nothing and exits 1 naming every file that drifted from its definition.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { GENERATED_MARK, renderArtifacts } from '../synth/artifacts';
import { KINDS_FLAGS, KINDS_HELP, KindsError, loadKinds } from './kinds';

export const GEN_HELP = `Usage: reconstruct gen [--kinds MODULE] [--crds DIR] [--types FILE] [--check]

Writes what is derived from kind definitions: each kind's CRD YAML (<group>_<plural>.yaml) and the
TypeScript types of its spec and status (<Kind>Spec, <Kind>SpecWithDefaults, <Kind>Status). Works on
the kinds of --kinds; on the built-in kinds when no --kinds is given.

Options:
  --crds DIR          folder of the CRD YAML files (default: crds); CRD files generated earlier for
                      kinds that are gone are removed
  --types FILE        file of the types; {kind} in it (the kind in kebab case) writes one file per
                      kind, e.g. 'src/{kind}/types.generated.ts' (default: no types)
  --check             write nothing; exit 1 naming every file that is out of date
${KINDS_HELP}
  -h, --help          show this help
`;

export async function genCommand(argv: string[]): Promise<number> {
  let values: {
    crds?: string;
    types?: string;
    check?: boolean;
    help?: boolean;
    kinds?: string[];
    'no-builtin-kinds'?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        crds: { type: 'string' },
        types: { type: 'string' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        ...KINDS_FLAGS,
      },
    }));
  } catch (e) {
    process.stderr.write(`reconstruct gen: ${(e as Error).message}\n\n${GEN_HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(GEN_HELP);
    return 0;
  }
  let kinds;
  try {
    const modules = values.kinds ?? [];
    kinds = await loadKinds({ modules, builtin: modules.length === 0 && !values['no-builtin-kinds'] });
  } catch (e) {
    if (!(e instanceof KindsError)) throw e;
    process.stderr.write(`reconstruct gen: ${e.message}\n`);
    return 2;
  }
  const crds = values.crds ?? 'crds';
  const files = await renderArtifacts(kinds.kinds, { crds, types: values.types });
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
  if (values.check) {
    for (const [path] of drifted) process.stderr.write(`${path} is out of date\n`);
    for (const path of stale) process.stderr.write(`${path} has no definition\n`);
    const bad = drifted.length + stale.length > 0;
    if (bad) process.stderr.write('run `reconstruct gen` (npm run gen here) and commit the result\n');
    return bad ? 1 : 0;
  }
  for (const path of stale) unlinkSync(path);
  for (const [path, content] of drifted) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  process.stdout.write(drifted.length ? `wrote ${drifted.map(([p]) => p).join(', ')}\n` : 'up to date\n');
  return 0;
}
