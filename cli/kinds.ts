/**
 * `--kinds MODULE`: the kinds a command works with, the built-in ones and those a module exports (its
 * default export or its `kinds` export, a list of kinds made with `defineKind`). JavaScript modules load as
 * they are; TypeScript ones through tsx when the project has it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { builtinKinds } from '../constructs/builtin';
import { KindRegistry, isKind, type Kind } from '../constructs/kit';

/** A problem the user fixes (a module that is missing or exports no kinds): one line, no stack. */
export class KindsError extends Error {
  override name = 'KindsError';
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);
let tsxRegistered = false;
const load = createRequire(__filename);

function registerTypeScript(path: string): void {
  if (tsxRegistered) return;
  let api: string;
  try {
    api = require.resolve('tsx/cjs/api', { paths: [process.cwd(), __dirname] });
  } catch {
    throw new KindsError(
      `${path} is TypeScript: add tsx to your project (npm install --save-dev tsx) or compile it to JavaScript`,
    );
  }
  (load(api) as { register(): void }).register();
  tsxRegistered = true;
}

// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a real dynamic import for ES modules, which the CommonJS output would otherwise turn into require()
const importModule = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<unknown>;

async function loadModule(path: string): Promise<unknown> {
  const file = resolve(path);
  if (!existsSync(file)) throw new KindsError(`--kinds ${path}: no such file`);
  if (TYPESCRIPT.has(extname(file))) registerTypeScript(path);
  try {
    try {
      return load(file) as unknown;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_REQUIRE_ESM') throw err;
      return await importModule(pathToFileURL(file).href);
    }
  } catch (err) {
    // The module's own mistake (a KindDefinitionError, a syntax error): its message, not our stack.
    const message = err instanceof Error ? err.message : String(err);
    throw new KindsError(`--kinds ${path}: ${message.split('\n')[0]}`);
  }
}

/** The kinds a loaded module exports, checked one by one. */
function kindsOf(path: string, exported: unknown): Kind[] {
  const mod = (exported ?? {}) as { default?: unknown; kinds?: unknown };
  const inner = (mod.default ?? {}) as { kinds?: unknown; default?: unknown };
  const list = [mod.kinds, mod.default, inner.kinds, inner.default].find(Array.isArray) as
    unknown[] | undefined;
  if (!list) {
    throw new KindsError(`--kinds ${path}: export a list of kinds as the default export or as \`kinds\``);
  }
  list.forEach((value, i) => {
    if (!isKind(value)) {
      throw new KindsError(`--kinds ${path}: item ${i} of the list is not a kind made with defineKind`);
    }
  });
  return list as Kind[];
}

interface KindsOptions {
  /** Modules whose kinds are added. */
  readonly modules?: readonly string[];
  /** Whether the built-in kinds are included. @default true */
  readonly builtin?: boolean;
}

/** The registry of the built-in kinds (unless left out) and the modules' kinds. */
export async function loadKinds(options: KindsOptions = {}): Promise<KindRegistry> {
  const kinds: Kind[] = options.builtin === false ? [] : [...builtinKinds];
  for (const path of options.modules ?? []) kinds.push(...kindsOf(path, await loadModule(path)));
  if (kinds.length === 0) throw new KindsError('no kinds: give --kinds MODULE, or keep the built-in kinds');
  try {
    return new KindRegistry(kinds);
  } catch (err) {
    throw new KindsError((err as Error).message);
  }
}

/** The `--kinds` and `--no-builtin-kinds` options every command that takes kinds understands. */
export const KINDS_FLAGS = {
  kinds: { type: 'string', multiple: true },
  'no-builtin-kinds': { type: 'boolean' },
} as const;

export const KINDS_HELP = `  --kinds MODULE      also the kinds MODULE exports (default export or \`kinds\`: a list made with
                      defineKind); .js, or .ts with tsx installed; repeatable
  --no-builtin-kinds  leave out the built-in kinds`;

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** Where a command writes. */
interface CommandIo {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

export const STDIO: CommandIo = { out: process.stdout, err: process.stderr };

/**
 * A command's arguments, parsed with `--help`/`-h` and the kinds flags added to `options`; or the exit
 * status once it printed the help (0) or the usage error and the help (2).
 */
export function parseCommand<O extends ParseArgsOptionsConfig>(
  name: string,
  help: string,
  argv: string[],
  options: O,
  io: CommandIo = STDIO,
  allowPositionals = false,
): { values: CommandValues<O>; positionals: string[] } | number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals,
      options: { ...options, ...KINDS_FLAGS, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    io.err.write(`reconstruct ${name}: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const values = parsed.values as CommandValues<O> & { help?: boolean };
  if (values.help) {
    io.out.write(help);
    return 0;
  }
  return { values, positionals: parsed.positionals };
}

/** The values of a command's options: strings, booleans and string lists, as parseArgs gives them. */
type CommandValues<O extends ParseArgsOptionsConfig> = {
  [K in keyof O]?: O[K] extends { multiple: true }
    ? string[]
    : O[K] extends { type: 'boolean' }
      ? boolean
      : string;
} & { kinds?: string[]; 'no-builtin-kinds'?: boolean };

/**
 * The kinds a command's `--kinds` and `--no-builtin-kinds` name (the built-in ones unless left out, or
 * unless `builtin` says they are only the default when no module is given); or exit status 2 once it
 * printed the one line that says what is wrong.
 */
export async function commandKinds(
  name: string,
  values: { kinds?: string[]; 'no-builtin-kinds'?: boolean },
  io: CommandIo = STDIO,
  builtin: 'always' | 'without-modules' = 'always',
): Promise<KindRegistry | number> {
  const modules = values.kinds ?? [];
  const wanted = !values['no-builtin-kinds'] && (builtin === 'always' || modules.length === 0);
  try {
    return await loadKinds({ modules, builtin: wanted });
  } catch (e) {
    if (!(e instanceof KindsError)) throw e;
    io.err.write(`reconstruct ${name}: ${e.message}\n`);
    return 2;
  }
}

/** The kind `word` names, as kubectl resolves a resource name. */
export function findKind(kinds: KindRegistry, word: string): Kind | undefined {
  const w = word.toLowerCase();
  const [plural, group] = [w.split('.')[0], w.split('.').slice(1).join('.')];
  return kinds.kinds.find(
    (k) =>
      (!group || k.group === group) &&
      [
        k.kind.toLowerCase(),
        k.plural,
        k.crd.spec.names.singular,
        ...(k.crd.spec.names.shortNames ?? []),
      ].includes(plural),
  );
}
