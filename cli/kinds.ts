/**
 * `--kinds MODULE`: the kinds a command works with, the built-in ones and those a module exports
 * (constructs/kind-modules.ts loads them), and the parsing every command that takes kinds shares.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { KindsError, loadKinds } from '../constructs/kind-modules';
import type { Kind, KindRegistry } from '../constructs/kit';

export { KindsError, loadKinds };

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

/** What `KIND[/NAME]` with `-n`/`-A` names: a kind, one resource or all of them, where. */
export interface Target {
  readonly definition: Kind;
  readonly name?: string;
  /** Undefined: every namespace (`-A` without NAME). */
  readonly namespace?: string;
}

/**
 * The kind and resources `KIND[/NAME]` names among `kinds` (`-n NS`, default `default`; `-A` without NAME:
 * every namespace); or exit status 2 once it printed the line that says there is no such kind.
 */
export function targetOf(
  command: string,
  positional: string,
  values: { namespace?: string; 'all-namespaces'?: boolean },
  kinds: KindRegistry,
  err: NodeJS.WritableStream,
): Target | number {
  const [word, name] = positional.split('/');
  const definition = findKind(kinds, word);
  if (!definition) {
    err.write(`reconstruct ${command}: no kind "${word}" among ${kinds.describe()}\n`);
    return 2;
  }
  const namespace = values['all-namespaces'] && !name ? undefined : (values.namespace ?? 'default');
  return { definition, ...(name ? { name } : {}), ...(namespace ? { namespace } : {}) };
}

/** `no Memcached cache in demo`: what a command says when the target names no resource. */
export function noneFound({ definition, name, namespace }: Target): string {
  return `no ${definition.kind}${name ? ` ${name}` : ''}${namespace && definition.namespaced ? ` in ${namespace}` : ''}`;
}

/** The options of a command that reads resources from a cluster: where, and which cluster. */
export const READ_OPTIONS = {
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;
