/**
 * The files `--kinds` names, checked without loading them: what `constructs/kind-modules.ts` does first,
 * and what the controller's serving thread checks when it starts to serve conversions, before it loads
 * the kinds (with cdk8s and cdk8s-plus) for its first conversion. Nothing heavy is imported here.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** A problem the user fixes (a module that is missing or exports no kinds): one line, no stack. */
export class KindsError extends Error {
  override name = 'KindsError';
}

/** The module's absolute path; throws KindsError when there is no such file. */
export function kindModuleFile(path: string): string {
  const file = resolve(path);
  if (!existsSync(file)) throw new KindsError(`--kinds ${path}: no such file`);
  return file;
}
