/** For the tests that build a TypeScript program of the package's sources (its API, the docs' snippets). */
import { join, resolve, sep } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '../..');

/** The compiler options of the repository's tsconfig.json (its target, libraries and `types`). */
export function repositoryOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (file) => ts.sys.readFile(file));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

const CLIENT_NODE = `${sep}node_modules${sep}@kubernetes${sep}client-node${sep}`;

/**
 * `host`, reading the declaration files of @kubernetes/client-node as empty: they are over half of what a
 * program of the package's sources would parse (800 files), and no exported name's type uses them (only a
 * function inside controller/kube/client.ts does, which `npm run lint` checks). For a program whose
 * diagnostics are asked for other files; a snippet that used those types would fail to compile, not pass.
 */
export function withoutClientNodeTypes(host: ts.CompilerHost): ts.CompilerHost {
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    resolve(file).includes(CLIENT_NODE)
      ? ts.createSourceFile(file, 'export {};', language)
      : getSourceFile(file, language, ...rest);
  return host;
}
