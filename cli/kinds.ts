/**
 * `--kinds MODULE`: the kinds a command works with, the built-in ones and those a module exports (its
 * default export or its `kinds` export, a list of kinds made with `defineKind`). JavaScript modules load as
 * they are; TypeScript ones through tsx when the project has it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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

// A real dynamic import for ES modules, which the CommonJS output would otherwise turn into require().
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const importModule = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<unknown>;

async function loadModule(path: string): Promise<unknown> {
  const file = resolve(path);
  if (!existsSync(file)) throw new KindsError(`--kinds ${path}: no such file`);
  if (TYPESCRIPT.has(extname(file))) registerTypeScript(path);
  try {
    return load(file) as unknown;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_REQUIRE_ESM') {
      return importModule(pathToFileURL(file).href);
    }
    throw err;
  }
}

/** The kinds a loaded module exports, checked one by one. */
export function kindsOf(path: string, exported: unknown): Kind[] {
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

export interface KindsOptions {
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
