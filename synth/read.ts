import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { Problem } from './problem';

/** One YAML document of an input file. */
export interface SourceDocument {
  readonly file: string;
  /** 1-based position of the document in its file. */
  readonly index: number;
  readonly value: unknown;
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** The largest document read: the API server refuses a request body over 3 MiB. */
export const MAX_DOCUMENT_BYTES = 3 * 2 ** 20;

/** The YAML files under `path`: itself when a file, else every .yaml/.yml/.json below it, sorted. */
function listFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .map((entry) => ({ entry, full: join(path, entry.name) }))
    .sort((a, b) => a.full.localeCompare(b.full))
    .flatMap(({ entry, full }) =>
      entry.isDirectory() ? listFiles(full) : EXTENSIONS.has(extname(entry.name)) ? [full] : [],
    );
}

/** How `-` (standard input) is named in problems and output headers. */
export const STDIN = '<stdin>';

/**
 * Every document of every file under `paths`, `-` being standard input (read once, whole). A file or
 * document that cannot be read becomes a Problem and the others are still returned: one broken file never
 * hides the rest.
 */
export function readDocuments(
  paths: string[],
  readStdin: () => string = () => readFileSync(0, 'utf8'),
): { documents: SourceDocument[]; problems: Problem[] } {
  const documents: SourceDocument[] = [];
  const problems: Problem[] = [];
  let stdinRead = false;
  for (const path of paths) {
    if (path === '-') {
      if (stdinRead) continue; // a second `-` would read an empty stream
      stdinRead = true;
      let text: string;
      try {
        text = readStdin();
      } catch (err) {
        problems.push({ file: STDIN, resource: '-', message: `cannot read: ${(err as Error).message}` });
        continue;
      }
      const parsed = parseDocuments(STDIN, text);
      documents.push(...parsed.documents);
      problems.push(...parsed.problems);
      continue;
    }
    let files: string[];
    try {
      files = listFiles(path);
    } catch (err) {
      problems.push({ file: path, resource: '-', message: `cannot read: ${(err as Error).message}` });
      continue;
    }
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        problems.push({ file, resource: '-', message: `cannot read: ${(err as Error).message}` });
        continue;
      }
      const parsed = parseDocuments(file, text);
      documents.push(...parsed.documents);
      problems.push(...parsed.problems);
    }
  }
  return { documents, problems };
}

/** The documents of one file's text; a document that is not valid YAML becomes a Problem naming its line. */
export function parseDocuments(
  file: string,
  text: string,
): { documents: SourceDocument[]; problems: Problem[] } {
  const documents: SourceDocument[] = [];
  const problems: Problem[] = [];
  const lineCounter = new LineCounter();
  parseAllDocuments(text, { lineCounter }).forEach((doc, i) => {
    const index = i + 1;
    if (doc.errors.length > 0) {
      for (const error of doc.errors) {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        problems.push({
          file,
          resource: `document ${index}`,
          message: `invalid YAML at line ${line}, column ${col}: ${error.message.split('\n')[0].replace(/ at line.*/, '')}`,
        });
      }
      return;
    }
    const size = doc.range[2] - doc.range[0];
    if (size > MAX_DOCUMENT_BYTES) {
      problems.push({
        file,
        resource: `document ${index}`,
        message: `is ${(size / 2 ** 20).toFixed(1)} MiB; the API server takes at most 3 MiB in one object, so it is not read`,
      });
      return;
    }
    let value: unknown;
    try {
      // maxAliasCount (the yaml library's default) refuses a "billion laughs" document here.
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      problems.push({
        file,
        resource: `document ${index}`,
        message: `cannot be read: ${(err as Error).message}`,
      });
      return;
    }
    if (value !== null && value !== undefined) documents.push({ file, index, value });
  });
  return { documents, problems };
}
