/**
 * The project's kinds as its sources are now: its own modules dropped from the module cache and loaded
 * again (tsx compiles them; no type check), its dependencies (cdk8s, this package) kept, so that a build's
 * kinds are those of the sources on disk and every build shares one copy of the libraries.
 */
import { sep } from 'node:path';
import { loadKinds } from '../../constructs/kind-modules';
import type { KindRegistry } from '../../constructs/kit';

/** The project's own modules in the module cache: under its folder, not in a node_modules. */
export function projectModules(projectDir: string, cached: Iterable<string>): string[] {
  const root = projectDir.endsWith(sep) ? projectDir : `${projectDir}${sep}`;
  return [...cached].filter((path) => path.startsWith(root) && !path.includes(`${sep}node_modules${sep}`));
}

/** The kinds `module` exports, from the sources as they are now; throws a KindsError saying what is wrong. */
export async function freshKinds(module: string, projectDir: string): Promise<KindRegistry> {
  for (const path of projectModules(projectDir, Object.keys(require.cache))) delete require.cache[path];
  return loadKinds({ modules: [module], builtin: false });
}
