/**
 * The code blocks of the documentation (README.md, docs/GUIDE.md), for test/docs/snippets.test.ts, which
 * keeps each TypeScript block true in one of two ways:
 *
 * - an **excerpt**: the block is preceded by `<!-- snippet: <path> -->` and its code appears in that file of
 *   the repository (a compiled, tested one), in order. Whitespace, line breaks, comments and trailing
 *   commas do not count; `...` where no expression follows it (`{ target: this.deployment, ... }`, or
 *   `...` alone on a line, or before a comment saying what it leaves out) stands for omitted code;
 *   `...x` is a spread, as in TypeScript. `matchExcerpt` checks it.
 * - **runnable**: any other block is a complete module, compiled (`compileSnippets`, all blocks in one
 *   TypeScript program against the package's own sources) and then run by the test.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { repositoryOptions, withoutClientNodeTypes } from './ts-program';

/** The repository's root. */
export const ROOT = join(__dirname, '../..');

/** A fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, from the repository's root (`docs/GUIDE.md`). */
  readonly doc: string;
  /** The fence's language (`ts`, `sh`). */
  readonly lang: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** The heading the block is under (`7. A snapshot test`): a name that stays when lines above move. */
  readonly heading: string;
  /** The block's text, without the fences. */
  readonly code: string;
  /** The file an excerpt is of (`<!-- snippet: <path> -->` on the line before the fence), if any. */
  readonly excerptOf?: string;
}

/** `docs/GUIDE.md:123`: where a block's opening fence is. */
export function where(block: CodeBlock): string {
  return `${block.doc}:${block.line}`;
}

/** The doc line of a block's line `index` (0-based within the block). */
export function docLine(block: CodeBlock, index: number): number {
  return block.line + 1 + index;
}

const FENCE = /^\s*```(\w*)\s*$/;
const EXCERPT = /^<!--\s*snippet:\s*(\S+)\s*-->$/;

/** The fenced code blocks of `doc` (a path from the repository's root). */
export function codeBlocks(doc: string): CodeBlock[] {
  const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    heading = /^#+\s+(.*)$/.exec(lines[i])?.[1] ?? heading;
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
    if (end === lines.length) throw new Error(`${doc}:${start + 1}: a code fence that is never closed`);
    let before = start - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const excerptOf = before >= 0 ? EXCERPT.exec(lines[before].trim())?.[1] : undefined;
    blocks.push({
      doc,
      lang: open[1],
      line: start + 1,
      heading,
      code: lines.slice(start + 1, end).join('\n'),
      ...(excerptOf !== undefined && { excerptOf }),
    });
    i = end;
  }
  return blocks;
}

/** A token of TypeScript source, with its 0-based line. */
interface Token {
  readonly text: string;
  readonly line: number;
}

/** Stands for omitted code in an excerpt. */
const ELISION = '\u2026';

/**
 * The tokens of `source`, by TypeScript's scanner: comments and whitespace dropped, and so are trailing
 * commas (Prettier writes them when it breaks a list over lines) and the commas around an elision.
 */
function tokens(source: string, elisions: boolean): Token[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, source);
  // The 0-based line of a position; tokens come in order, so the line only moves forward.
  let line = 0;
  let next = source.indexOf('\n');
  const lineOf = (pos: number) => {
    while (next >= 0 && next < pos) {
      line++;
      next = source.indexOf('\n', next + 1);
    }
    return line;
  };
  const out: Token[] = [];
  // Braces opened since each template head: a `}` closing a `${...}` continues the template.
  const braces: number[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.OpenBraceToken && braces.length > 0) braces[braces.length - 1]++;
    if (kind === ts.SyntaxKind.CloseBraceToken && braces.length > 0) {
      if (braces[braces.length - 1] === 0) kind = scanner.reScanTemplateToken(false);
      else braces[braces.length - 1]--;
    }
    if (kind === ts.SyntaxKind.TemplateHead) braces.push(0);
    if (kind === ts.SyntaxKind.TemplateTail) braces.pop();
    let text = scanner.getTokenText();
    if (elisions && kind === ts.SyntaxKind.DotDotDotToken && isElision(source, scanner.getTokenEnd())) {
      text = ELISION;
    }
    out.push({ text, line: lineOf(scanner.getTokenStart()) });
  }
  return out.filter((token, i) => {
    if (token.text !== ',') return true;
    const next = out[i + 1]?.text;
    const previous = out[i - 1]?.text;
    return !(next === '}' || next === ']' || next === ')' || next === ELISION || previous === ELISION);
  });
}

/**
 * Whether the `...` ending at `end` is an elision: nothing an expression could start with follows it (the
 * end of the line, a comment, or `,` `;` `)` `]` `}`).
 */
function isElision(source: string, end: number): boolean {
  const rest = /^[ \t]*(\/[/*]|.?)/.exec(source.slice(end))?.[1] ?? '';
  return rest === '' || rest === '\n' || rest === '\r' || rest.startsWith('/') || ',;)]}'.includes(rest);
}

/**
 * Why `block` is not an excerpt of `fileText` (the text of `block.excerptOf`), or undefined when it is:
 * its tokens appear in the file in order, each run between elisions without a gap. The message names the
 * doc line where the first run that is missing stops matching, and the file's code at the closest place.
 */
export function matchExcerpt(block: CodeBlock, fileText: string): string | undefined {
  const snippet = tokens(block.code, true);
  const file = tokens(fileText, false);
  const runs: Token[][] = [[]];
  for (const token of snippet) {
    if (token.text === ELISION) runs.push([]);
    else runs[runs.length - 1].push(token);
  }
  if (runs.every((run) => run.length === 0)) {
    return `${block.doc}:${block.line}: the block is an excerpt of ${block.excerptOf} with no code of its own`;
  }
  let from = 0;
  for (const run of runs) {
    if (run.length === 0) continue;
    // The earliest place the run matches whole; failing that, the place it matches longest, for the message.
    let best = { at: from, length: 0 };
    for (let at = from; at < file.length; at++) {
      let length = 0;
      while (length < run.length && at + length < file.length && file[at + length].text === run[length].text)
        length++;
      if (length === run.length) {
        best = { at, length };
        break;
      }
      if (length > best.length) best = { at, length };
    }
    if (best.length === run.length) {
      from = best.at + run.length;
      continue;
    }
    const fileLines = fileText.split('\n');
    const stop = run[best.length];
    const snippetLine = block.code.split('\n')[stop.line].trim();
    const fileAt = file[best.at + best.length];
    const after = from > 0 ? ` after line ${file[from - 1].line + 1}` : '';
    return (
      `${block.doc}:${docLine(block, stop.line)} (the block at line ${block.line}) is not in ` +
      `${block.excerptOf}${after}: "${snippetLine}" differs at \`${stop.text}\`` +
      (fileAt && best.length > 0
        ? `; ${block.excerptOf}:${fileAt.line + 1} has "${fileLines[fileAt.line].trim()}"`
        : '')
    );
  }
  return undefined;
}

/** A runnable block, compiled. */
export interface CompiledSnippet {
  readonly block: CodeBlock;
  /** The file name the block was compiled as (it is never written). */
  readonly file: string;
  /** The compiler's errors, each naming the doc line; empty when it compiled. */
  readonly errors: string[];
  /** The CommonJS JavaScript, when it compiled. */
  readonly js?: string;
  /** For each line of `js` (0-based), its source map's segments: [column, the block's line], 0-based. */
  readonly lines?: [number, number][][];
}

/**
 * Compiles runnable blocks as modules in one TypeScript program, with the repository's compiler options
 * (strict) and the package's entry points as `cdk8s-reconstruct` and `cdk8s-reconstruct/testing`. Each
 * block is a file in `dirOf(block)` (a folder of the repository, from its root), so its relative imports
 * resolve as they would there. Unused names are allowed: a block may import what the text around it uses.
 */
export function compileSnippets(
  blocks: readonly CodeBlock[],
  dirOf: (block: CodeBlock) => string,
): CompiledSnippet[] {
  const compilerOptions: ts.CompilerOptions = {
    ...repositoryOptions(),
    noEmit: false,
    sourceMap: true, // to name the block's line in a failure (sourceLines)
    inlineSourceMap: false,
    declaration: false,
    noUnusedLocals: false,
    noUnusedParameters: false,
    // Each block is a module of its own, with or without imports.
    moduleDetection: ts.ModuleDetectionKind.Force,
    baseUrl: ROOT,
    paths: { 'cdk8s-reconstruct': ['index.ts'], 'cdk8s-reconstruct/testing': ['testing/index.ts'] },
  };
  const files = new Map<string, CodeBlock>();
  for (const block of blocks) {
    const name = `${block.doc.replace(/[^A-Za-z0-9]/g, '_')}_${block.line}.snippet.ts`;
    files.set(resolve(ROOT, dirOf(block), name), block);
  }
  const host = withoutClientNodeTypes(ts.createCompilerHost(compilerOptions));
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => files.has(resolve(file)) || fileExists(file);
  host.readFile = (file) => files.get(resolve(file))?.code ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) => {
    const block = files.get(resolve(file));
    return block ? ts.createSourceFile(file, block.code, language) : getSourceFile(file, language, ...rest);
  };
  const program = ts.createProgram([...files.keys()], compilerOptions, host);
  return [...files].map(([file, block]) => {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${where(block)}: not in the program`);
    const errors = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].map((d) => {
      const at =
        d.start === undefined ? '' : `:${docLine(block, source.getLineAndCharacterOfPosition(d.start).line)}`;
      return `${block.doc}${at} (the block at line ${block.line}): TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    let js: string | undefined;
    let lines: [number, number][][] | undefined;
    if (errors.length === 0) {
      program.emit(source, (name, text) => {
        if (name.endsWith('.js')) js = text;
        if (name.endsWith('.js.map'))
          lines = sourceLines((JSON.parse(text) as { mappings: string }).mappings);
      });
    }
    return {
      block,
      file: relative(ROOT, file),
      errors,
      ...(js !== undefined && { js }),
      ...(lines !== undefined && { lines }),
    };
  });
}

/**
 * Runs a compiled block as a CommonJS module whose file is `snippet.file`: its relative imports are
 * required from that folder, everything else as the calling test's `load` requires it (jest's module
 * registry, which maps `cdk8s-reconstruct` to the package's sources). `globals` are names the block sees
 * in place of the global ones (jest's `test`, wrapped). Returns the module's exports; what it throws names
 * the block.
 */
export function runSnippet(
  snippet: CompiledSnippet,
  load: (id: string) => unknown,
  globals: Record<string, unknown> = {},
): unknown {
  if (snippet.js === undefined) throw new Error(`${where(snippet.block)} did not compile`);
  const file = join(ROOT, snippet.file);
  const requireFromSnippet = (id: string) => load(id.startsWith('.') ? resolve(dirname(file), id) : id);
  const module = { exports: {} as unknown };
  const names = ['exports', 'require', 'module', '__filename', '__dirname', ...Object.keys(globals)];
  // The block's compiled code, wrapped as node's CommonJS loader wraps a module.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- running the docs' code is the point
  const run = new Function(...names, snippet.js) as (...args: unknown[]) => void;
  try {
    run(module.exports, requireFromSnippet, module, file, dirname(file), ...Object.values(globals));
  } catch (err) {
    throw namingBlock(err, snippet);
  }
  return module.exports;
}

/** The lines of a Function's body start on its third line (after `function anonymous(...` and `) {`). */
const FUNCTION_HEADER_LINES = 2;

/**
 * `err` with its message led by the block it came from and, when its stack runs through the block's code,
 * the block's line there: `docs/GUIDE.md:130 (the block at line 123): ...`.
 */
export function namingBlock(err: unknown, snippet: CompiledSnippet): unknown {
  const { block } = snippet;
  const error = err instanceof Error ? err : new Error(String(err));
  // Reading the stack formats it, message included: it is rewritten with the message.
  const stack = error.stack ?? '';
  const frame = /<anonymous>:(\d+):(\d+)/.exec(stack);
  // The last segment that starts at or before the frame's column (both 1-based in the stack).
  const segments = frame ? (snippet.lines?.[Number(frame[1]) - 1 - FUNCTION_HEADER_LINES] ?? []) : [];
  const line = segments.filter(([column]) => column <= Number(frame?.[2]) - 1).pop()?.[1];
  const at = line !== undefined ? `:${docLine(block, line)}` : '';
  const message = `${block.doc}${at} (the block at line ${block.line}): ${error.message}`;
  error.stack = stack.replace(error.message, message);
  error.message = message;
  return error;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * For each generated line of a source map's `mappings`, its segments as [generated column, source line].
 * Each segment is base64 VLQ numbers: generated column (relative to the line's previous segment), source,
 * source line, source column (and name), these relative to the previous segment's in the whole map.
 */
export function sourceLines(mappings: string): [number, number][][] {
  let sourceLine = 0;
  return mappings.split(';').map((segments) => {
    const found: [number, number][] = [];
    let column = 0;
    for (const segment of segments.split(',').filter(Boolean)) {
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
        } else {
          values.push(value & 1 ? -(value >> 1) : value >> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0];
      if (values.length >= 4) {
        sourceLine += values[2];
        found.push([column, sourceLine]);
      }
    }
    return found;
  });
}
