/**
 * `reconstruct init [DIR]`: a new operator project that works at once (`npm install && npm test`), with one
 * kind; `reconstruct create kind NAME`: another kind in a project, registered in its src/kinds.ts. As
 * kubebuilder's `init` and `create api`. The files are the templates of ./scaffold/; nothing is overwritten
 * unless --force, and every problem is one line before anything is written.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { STDIO, parseCommand } from './kinds';
import { kindFiles } from './scaffold/kind';
import { ScaffoldError, kindNames, packageName, type KindNames } from './scaffold/names';
import { KINDS_MODULE } from './scaffold/layout';
import { EXECUTABLE, SHARED_KIND_FILES, projectFiles, type ProjectSettings } from './scaffold/project';

const DEFAULTS = { kind: 'WebApp', group: 'example.com', version: 'v1alpha1' } as const;

const INIT_HELP = `Usage: reconstruct init [DIR] [--kind NAME] [--group GROUP] [--version VERSION] [--force]

Makes a new operator project in DIR (default: the current folder), which must be empty but for .git:
package.json (cdk8s-reconstruct, and cdk8s, constructs and cdk8s-plus-27 as dependencies), TypeScript
and jest settings, one kind in src/<kind>/ (schema, construct, defineKind, generated types) with its CRD
in crds/ and a sample in samples/, its snapshot, in-memory reconcile and in-cluster tests, a Dockerfile,
.ci/run and a README. Then: cd DIR && npm install && npm test.

Options:
  --kind NAME         the kind, UpperCamelCase (default: ${DEFAULTS.kind})
  --group GROUP       its API group, a DNS name with a dot (default: ${DEFAULTS.group})
  --version VERSION   its API version (default: ${DEFAULTS.version})
  --force             write into a folder that is not empty, over files of the same names
  -h, --help          show this help

Add a kind to the project with 'reconstruct create kind NAME'.
`;

const CREATE_HELP = `Usage: reconstruct create kind NAME [--group GROUP] [--version VERSION] [--force]

Adds kind NAME (UpperCamelCase) to the project in the current folder, one 'reconstruct init' made:
src/<kind>/ (schema, construct, defineKind, generated types), its CRD in crds/, samples/<kind>.yaml and
test/<kind>/ (snapshot, in-memory reconcile and in-cluster tests), and registers it in ${KINDS_MODULE}.

Options:
  --group GROUP       its API group (default: "reconstruct.group" in package.json, else ${DEFAULTS.group})
  --version VERSION   its API version (default: "reconstruct.version" in package.json, else ${DEFAULTS.version})
  --force             overwrite files of the same names
  -h, --help          show this help
`;

const OPTIONS = {
  group: { type: 'string' },
  version: { type: 'string' },
  force: { type: 'boolean' },
} as const;

type Io = typeof STDIO;

/** Writes `files` under `dir`, making folders; `.ci/run` and the like executable. */
function writeFiles(dir: string, files: Map<string, string>): void {
  for (const [path, content] of files) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content, { mode: EXECUTABLE.has(path) ? 0o755 : 0o644 });
  }
}

/** The paths of `files` that exist under `dir`. */
function existing(dir: string, files: Iterable<string>): string[] {
  return [...files].filter((path) => existsSync(join(dir, path)));
}

/** At most five names, and how many more: for a one-line message. */
function some(names: string[]): string {
  return names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
}

/** One line on stderr; exit status 1 (a problem with the folder) or 2 (with the arguments). */
function fail(io: Io, command: string, error: unknown, code: number): number {
  if (!(error instanceof ScaffoldError)) throw error;
  io.err.write(`reconstruct ${command}: ${error.message}\n`);
  return code;
}

/** Options only other commands take (`--kinds`), refused rather than ignored. */
function refuseKindsFlags(values: { kinds?: string[]; 'no-builtin-kinds'?: boolean }): void {
  if (values.kinds || values['no-builtin-kinds']) {
    throw new ScaffoldError('--kinds and --no-builtin-kinds are not options of this command');
  }
}

/** What was written, and what to run next. */
function report(io: Io, where: string, files: Map<string, string>, then: string): void {
  io.out.write(`wrote ${files.size} files in ${where || '.'}:\n`);
  for (const path of [...files.keys()].sort()) io.out.write(`  ${path}\n`);
  io.out.write(`next: ${then}\n`);
}

export async function initCommand(argv: string[], io: Io = STDIO, cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand('init', INIT_HELP, argv, { ...OPTIONS, kind: { type: 'string' } }, io, true);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  let n: KindNames;
  try {
    refuseKindsFlags(values);
    if (positionals.length > 1) throw new ScaffoldError(`one folder at most, not ${positionals.join(' ')}`);
    n = kindNames(
      values.kind ?? DEFAULTS.kind,
      values.group ?? DEFAULTS.group,
      values.version ?? DEFAULTS.version,
    );
  } catch (error) {
    return fail(io, 'init', error, 2);
  }
  const given = positionals[0] ?? '.';
  const dir = resolve(cwd, given);
  try {
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) throw new ScaffoldError(`${given} is not a folder`);
      const entries = readdirSync(dir).filter((entry) => entry !== '.git');
      if (entries.length > 0 && !values.force) {
        throw new ScaffoldError(
          `${given} is not empty (${some(entries.sort())}): init makes a new project; to add a kind to ` +
            'this one, run `reconstruct create kind NAME` in it; --force writes over files of the same names',
        );
      }
    }
  } catch (error) {
    return fail(io, 'init', error, 1);
  }
  const files = new Map([...projectFiles(packageName(basename(dir)), n), ...(await kindFiles(n))]);
  writeFiles(dir, files);
  const cd = dir === cwd ? '' : `cd ${relative(cwd, dir)} && `;
  report(io, relative(cwd, dir), files, `${cd}npm install && npm test`);
  return 0;
}

/** The group and version in package.json's `reconstruct` field, where `init` wrote them. */
function projectSettings(dir: string): Partial<ProjectSettings> {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return {};
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { reconstruct?: Partial<ProjectSettings> };
    return json.reconstruct ?? {};
  } catch {
    throw new ScaffoldError('package.json is not valid JSON');
  }
}

const KINDS_LIST = /export const kinds(?:\s*:[^=]+)?\s*=\s*\[([^\]]*)\]/;

/**
 * src/kinds.ts with kind `n` imported and added to its `kinds` list; the same text when it is there
 * already. A ScaffoldError when there is no `export const kinds = [...]` to add it to.
 */
export function registerKind(source: string, n: KindNames): string {
  const variable = `${n.variable}Kind`;
  const importLine = `import { ${variable} } from './${n.folder}';`;
  // Quotes either way: the author's formatter may have changed them.
  if (new RegExp(`from ['"]\\./${n.folder}['"]`).test(source)) return source;
  const list = KINDS_LIST.exec(source);
  if (!list) {
    throw new ScaffoldError(
      `${KINDS_MODULE} has no \`export const kinds = [...]\` to add ${variable} to: add it there by hand`,
    );
  }
  const items = list[1]
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  // One line as it was, unless it grows too long; one kind a line as it was.
  const oneLine = `[${[...items, variable].join(', ')}]`;
  const listText =
    !list[1].includes('\n') && oneLine.length <= 80
      ? oneLine
      : `[\n${[...items, variable].map((i) => `  ${i},\n`).join('')}]`;
  const withList =
    source.slice(0, list.index) +
    list[0].replace(/\[[^\]]*\]$/, listText) +
    source.slice(list.index + list[0].length);
  // After the last import of a kind folder, else before the list.
  const imports = [...withList.matchAll(/^import .* from ['"]\.\/[^'"]*['"];?$/gm)];
  const at = imports.length > 0 ? imports[imports.length - 1] : undefined;
  if (at) {
    const end = at.index + at[0].length;
    return `${withList.slice(0, end)}\n${importLine}${withList.slice(end)}`;
  }
  const start = withList.search(KINDS_LIST);
  return `${withList.slice(0, start)}${importLine}\n\n${withList.slice(start)}`;
}

export async function createCommand(argv: string[], io: Io = STDIO, cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand('create', CREATE_HELP, argv, OPTIONS, io, true);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  let n: KindNames;
  try {
    refuseKindsFlags(values);
    const [what, name, ...extra] = positionals;
    if (what !== 'kind') throw new ScaffoldError(`create what? \`reconstruct create kind NAME\``);
    if (name === undefined) throw new ScaffoldError('create kind: give the kind, e.g. `create kind Cache`');
    if (extra.length > 0)
      throw new ScaffoldError(`create kind: one kind at a time, not ${positionals.slice(1).join(' ')}`);
    const settings = projectSettings(cwd);
    n = kindNames(
      name,
      values.group ?? settings.group ?? DEFAULTS.group,
      values.version ?? settings.version ?? DEFAULTS.version,
      {
        group: values.group === undefined ? 'package.json reconstruct.group' : '--group',
        version: values.version === undefined ? 'package.json reconstruct.version' : '--version',
      },
    );
  } catch (error) {
    return fail(io, 'create', error, 2);
  }
  const files = await kindFiles(n);
  try {
    const kindsFile = join(cwd, KINDS_MODULE);
    if (!existsSync(kindsFile)) {
      throw new ScaffoldError(
        `no ${KINDS_MODULE} here: run it at the root of a project that \`reconstruct init\` made`,
      );
    }
    const taken = existing(cwd, files.keys());
    if (taken.length > 0 && !values.force) {
      throw new ScaffoldError(`would overwrite ${some(taken)}; --force overwrites them`);
    }
    const kinds = readFileSync(kindsFile, 'utf8');
    const registered = registerKind(kinds, n);
    if (registered !== kinds) files.set(KINDS_MODULE, registered);
    for (const [path, content] of SHARED_KIND_FILES) {
      if (!existsSync(join(cwd, path))) files.set(path, content);
    }
  } catch (error) {
    return fail(io, 'create', error, 1);
  }
  writeFiles(cwd, files);
  report(io, '.', files, 'npm test (edit the schema, then npm run gen)');
  return 0;
}
