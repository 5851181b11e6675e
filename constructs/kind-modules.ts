/**
 * The kinds a module exports (its default export or its `kinds` export, a list of kinds made with
 * `defineKind`), and the built-in ones: what `--kinds MODULE` loads for every command, and what the
 * controller's serving thread loads again to convert off the main thread (controller/serving). JavaScript
 * modules load as they are; TypeScript ones through tsx when the project has it.
 */
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtinKinds } from './builtin';
import { KindsError, kindModuleFile } from './kind-module-files';
import { KindRegistry, isKind, type Kind } from './kit';

export { KindsError };

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
  const file = kindModuleFile(path);
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
