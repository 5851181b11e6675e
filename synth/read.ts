/**
 * Reading offline input one document at a time. Files are read in chunks and split into documents at
 * their `---` and `...` lines before anything is parsed, so a document over the size limit is counted,
 * never parsed nor held, and memory holds one document however long the file (see docs/DESIGN.md,
 * "Offline input, one document at a time").
 */
import {
  closeSync,
  createReadStream,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { extname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { LineCounter, isScalar, parseDocument, visit, type Document } from 'yaml';
import type { Problem } from './problem';

/** One YAML document of an input file. */
export interface SourceDocument {
  readonly file: string;
  /** 1-based position of the document in its file. */
  readonly index: number;
  readonly value: unknown;
}

/** What reading gives, in input order: a document, or a problem of a file or document. */
export type ReadItem = { readonly document: SourceDocument } | { readonly problem: Problem };

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** The largest document read: the API server refuses a request body over 3 MiB. */
export const MAX_DOCUMENT_BYTES = 3 * 2 ** 20;

/** How much of a file is read at once. */
const CHUNK_BYTES = 64 * 1024;

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
const STDIN = '<stdin>';

const cannotRead = (file: string, err: unknown): ReadItem => ({
  problem: { file, resource: '-', message: `cannot read: ${(err as Error).message}` },
});

/**
 * Splits the text of one file, given in chunks of any size, into its documents, numbered as
 * `parseAllDocuments` numbers them. A document is split off at its end (the next `---` or `...` line, or
 * the end of the file): a line of exactly `---` or `...`, or one of them followed by a space, starts or
 * ends a document anywhere in YAML, even inside a quoted or block scalar. Only then is its text parsed;
 * one past `maxBytes` is dropped as it comes and becomes a problem naming its size.
 */
export class DocumentSplitter {
  /** The text of the current segment (the document being read, and the comments or directives before it). */
  private pieces: string[] = [];
  private bytes = 0;
  private oversized = false;
  /** The segment is a document: it starts with `---`, or has content, or ends with `...`. */
  private isDocument = false;
  /** The line the segment starts on, and the line being read (1-based). */
  private startLine = 1;
  private line = 1;
  /** The start of the current line, held until it says whether the line is a marker or content. */
  private head: string | undefined = '';
  /** The current line is `...`: the document ends with it. */
  private endsAfterLine = false;
  private index = 0;
  private started = false;

  constructor(
    private readonly file: string,
    private readonly maxBytes = MAX_DOCUMENT_BYTES,
  ) {}

  /** The documents that `chunk` completes. */
  push(chunk: string): ReadItem[] {
    const items: ReadItem[] = [];
    if (!this.started) {
      this.started = true;
      if (chunk.startsWith('\ufeff')) chunk = chunk.slice(1);
    }
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf('\n', start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.piece(chunk.slice(start, end), newline !== -1, items);
      start = end;
    }
    return items;
  }

  /** How many characters of the current segment it holds: at most `maxBytes`, however long the document. */
  get held(): number {
    return this.pieces.reduce((length, piece) => length + piece.length, 0);
  }

  /** The last document, at the end of the file. */
  end(): ReadItem[] {
    const items: ReadItem[] = [];
    if (this.head) this.piece('', true, items);
    this.finish(items);
    return items;
  }

  /** A part of the current line; `complete` when it ends the line. */
  private piece(text: string, complete: boolean, items: ReadItem[]): void {
    if (this.head !== undefined) {
      const head = this.head + text;
      // Whether a line is a marker, blank or a comment shows in its first non-blank characters.
      if (!complete && (head.length < 4 || !/\S/.test(head)) && head.length <= this.maxBytes) {
        this.head = head;
        return;
      }
      this.head = undefined;
      text = head;
      this.classify(head, items);
    }
    this.append(text);
    if (!complete) return;
    this.line++;
    this.head = '';
    if (this.endsAfterLine) {
      this.endsAfterLine = false;
      this.finish(items);
    }
  }

  /** Looks at the start of a line: a `---` line starts a document, a `...` line ends one. */
  private classify(head: string, items: ReadItem[]): void {
    const marker = /^(---|\.\.\.)(?:[ \t\r\n]|$)/.exec(head)?.[1];
    if (marker === '---') {
      // What came before is a document of its own, or comments and directives that belong to this one.
      if (this.isDocument) this.finish(items);
      this.isDocument = true;
    } else if (marker === '...') {
      this.isDocument = true;
      this.endsAfterLine = true;
    } else if (!this.isDocument && /^\s*[^\s#]/.test(head) && !head.startsWith('%')) {
      this.isDocument = true;
    }
  }

  private append(text: string): void {
    if (text === '') return;
    if (this.bytes === 0) this.startLine = this.line;
    this.bytes += Buffer.byteLength(text);
    if (this.oversized) return;
    if (this.bytes > this.maxBytes) {
      this.oversized = true;
      this.pieces = [];
      return;
    }
    this.pieces.push(text);
  }

  /** Ends the current segment: a document is parsed (or refused for its size) and the next starts. */
  private finish(items: ReadItem[]): void {
    if (this.isDocument) {
      this.index++;
      if (this.oversized) {
        items.push({
          problem: {
            file: this.file,
            resource: `document ${this.index}`,
            message: `is ${(this.bytes / 2 ** 20).toFixed(1)} MiB; the API server takes at most 3 MiB in one object, so it is not read`,
          },
        });
      } else {
        items.push(...parseOne(this.file, this.index, this.pieces.join(''), this.startLine));
      }
    }
    this.pieces = [];
    this.bytes = 0;
    this.oversized = false;
    this.isDocument = false;
  }
}

/** One document's text, parsed: the document, or a problem per YAML error, naming its line in the file. */
function parseOne(file: string, index: number, text: string, startLine: number): ReadItem[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  const problem = (message: string): ReadItem => ({
    problem: { file, resource: `document ${index}`, message },
  });
  const errors = doc.errors.length > 0 ? doc.errors : duplicateKeys(doc);
  if (errors.length > 0) {
    return errors.map((error) => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      const what = error.message.split('\n')[0].replace(/ at line.*/, '');
      return problem(`invalid YAML at line ${startLine + line - 1}, column ${col}: ${what}`);
    });
  }
  let value: unknown;
  try {
    // maxAliasCount refuses a "billion laughs" document here.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return [problem(`cannot be read: ${(err as Error).message}`)];
  }
  return value === null || value === undefined ? [] : [{ document: { file, index, value } }];
}

/**
 * The keys a map repeats, as the library reports them. Its own check (`uniqueKeys`) compares each key with
 * every key before it: a 3 MiB map of short keys took minutes. Two keys are the same scalar value, as there.
 */
function duplicateKeys(doc: Document): { pos: [number, number]; message: string }[] {
  const errors: { pos: [number, number]; message: string }[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const { key } of map.items) {
        if (!isScalar(key)) continue;
        const id = `${typeof key.value}:${String(key.value)}`;
        if (seen.has(id)) {
          const at = key.range?.[0] ?? 0;
          errors.push({ pos: [at, at + 1], message: 'Map keys must be unique' });
        }
        seen.add(id);
      }
    },
  });
  return errors;
}

/** The documents of one file's text; a document that is not valid YAML becomes a Problem naming its line. */
export function parseDocuments(
  file: string,
  text: string,
): { documents: SourceDocument[]; problems: Problem[] } {
  const splitter = new DocumentSplitter(file);
  return collect([...splitter.push(text), ...splitter.end()]);
}

function collect(items: Iterable<ReadItem>): { documents: SourceDocument[]; problems: Problem[] } {
  const documents: SourceDocument[] = [];
  const problems: Problem[] = [];
  for (const item of items) {
    if ('document' in item) documents.push(item.document);
    else problems.push(item.problem);
  }
  return { documents, problems };
}

/** The files of `paths`, `-` (standard input, read once) as itself; a path that cannot be listed is a problem. */
function* inputFiles(paths: string[]): Generator<string | ReadItem> {
  let stdinRead = false;
  for (const path of paths) {
    if (path === '-') {
      if (!stdinRead) yield path; // a second `-` would read an empty stream
      stdinRead = true;
      continue;
    }
    try {
      yield* listFiles(path);
    } catch (err) {
      yield cannotRead(path, err);
    }
  }
}

/** A file's text in chunks, read synchronously. */
function* fileChunks(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    for (let n; (n = readSync(fd, buffer, 0, CHUNK_BYTES, null)) > 0;)
      yield decoder.write(buffer.subarray(0, n));
    yield decoder.end();
  } finally {
    closeSync(fd);
  }
}

/** Every item of one file, given its chunks; a read error is a problem after the documents before it. */
function* splitChunks(file: string, chunks: Iterable<string>): Generator<ReadItem> {
  const splitter = new DocumentSplitter(file);
  try {
    for (const chunk of chunks) yield* splitter.push(chunk);
  } catch (err) {
    yield cannotRead(file, err);
    return;
  }
  yield* splitter.end();
}

/**
 * Every document of every file under `paths`, `-` being standard input (read once, whole), at once: for
 * the commands that need all of them (`diff`, the cdk8s app). A file or document that cannot be read
 * becomes a Problem and the others are still returned: one broken file never hides the rest.
 */
export function readDocuments(
  paths: string[],
  readStdin: () => string = () => readFileSync(0, 'utf8'),
): { documents: SourceDocument[]; problems: Problem[] } {
  function* items(): Generator<ReadItem> {
    for (const file of inputFiles(paths)) {
      if (typeof file !== 'string') yield file;
      else if (file !== '-') yield* splitChunks(file, fileChunks(file));
      else {
        let text: string;
        try {
          text = readStdin();
        } catch (err) {
          yield cannotRead(STDIN, err);
          continue;
        }
        yield* splitChunks(STDIN, [text]);
      }
    }
  }
  return collect(items());
}

/** Standard input, or what a test gives instead: text, or chunks as they come. */
export type StdinSource = () => string | AsyncIterable<string | Buffer>;

/**
 * Every document of every file under `paths`, `-` being standard input, one at a time as it is read: a
 * file is read in chunks and a document is given as soon as it ends, so that the caller can render and
 * write it before the next is read. Problems come in input order, between the documents.
 */
export async function* streamDocuments(
  paths: string[],
  stdin: StdinSource = () => process.stdin,
): AsyncGenerator<ReadItem> {
  for (const file of inputFiles(paths)) {
    if (typeof file !== 'string') {
      yield file;
      continue;
    }
    const name = file === '-' ? STDIN : file;
    const splitter = new DocumentSplitter(name);
    try {
      const source = file === '-' ? stdin() : createReadStream(file, { highWaterMark: CHUNK_BYTES });
      if (typeof source === 'string') {
        yield* splitter.push(source);
      } else {
        const decoder = new StringDecoder('utf8');
        for await (const chunk of source) {
          yield* splitter.push(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
        }
        yield* splitter.push(decoder.end());
      }
    } catch (err) {
      yield cannotRead(name, err);
      continue;
    }
    yield* splitter.end();
  }
}
