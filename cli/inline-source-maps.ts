/**
 * Leaves out the inline source maps of the dependencies as their files load. cdk8s and cdk8s-plus-27 end
 * each file with its source map as a base64 comment, and V8 keeps every script's text and a second copy
 * of that comment (the script's source map URL) for the life of the process: 2.7 MB of heap and 3.5-7 MB
 * of RSS at start in a controller that never reads them (docs/BENCHMARKS.md). Node reads them only with
 * --enable-source-maps, for stack traces: then they are kept.
 *
 * Imported first by the CLI's entry point, before anything loads cdk8s.
 */
import { sep } from 'node:path';
import { addHook } from 'pirates';

const INLINE_MAP = '\n//# sourceMappingURL=data:';

/** The code without its last line when that line is an inline source map; otherwise unchanged. */
export function withoutInlineSourceMap(code: string): string {
  const at = code.lastIndexOf(INLINE_MAP);
  if (at === -1) return code;
  const end = code.indexOf('\n', at + 1);
  if (end !== -1 && code.slice(end).trim() !== '') return code; // not the last line: left alone
  return code.slice(0, at + 1);
}

if (!process.sourceMapsEnabled) {
  const dependency = `${sep}node_modules${sep}`;
  addHook(withoutInlineSourceMap, {
    exts: ['.js'],
    ignoreNodeModules: false,
    matcher: (filename) => filename.includes(dependency),
  });
}
