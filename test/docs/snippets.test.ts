/**
 * Every TypeScript block of README.md and docs/GUIDE.md is either an excerpt of a compiled, tested file
 * (declared with `<!-- snippet: <path> -->` before the fence, checked token by token) or a complete module
 * that compiles against the package's own sources and runs: a block that is a jest test is run as one, any
 * other is run as a program (a cdk8s app in it synthesizes into a temporary folder). How to write each:
 * test/support/snippets.ts.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import {
  ROOT,
  codeBlocks,
  compileSnippets,
  matchExcerpt,
  namingBlock,
  runSnippet,
  where,
  type CodeBlock,
  type CompiledSnippet,
} from '../support/snippets';

/**
 * The documents, and the folder their runnable blocks are compiled in: the GUIDE builds the project of
 * examples/static-site and writes its tests from that project's test/ folder (`import ... from '../src'`).
 */
const DOCS: Record<string, string> = {
  'README.md': '.',
  'docs/GUIDE.md': 'examples/static-site/test',
  'docs/OPERATING.md': '.',
};

const blocks = Object.keys(DOCS).flatMap(codeBlocks);
const typescript = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');
const excerpts = typescript.filter((b) => b.excerptOf !== undefined);
const runnable = typescript.filter((b) => b.excerptOf === undefined);

/** Whether a block calls jest's `test`, `it` or `describe` at its top level: it is a test file. */
function isTest(block: CodeBlock): boolean {
  const source = ts.createSourceFile('block.ts', block.code, ts.ScriptTarget.Latest);
  return source.statements.some(
    (s) =>
      ts.isExpressionStatement(s) &&
      ts.isCallExpression(s.expression) &&
      ts.isIdentifier(s.expression.expression) &&
      ['test', 'it', 'describe'].includes(s.expression.expression.text),
  );
}

/** jest's `test` (or `it`) for a block's tests: a failure names the block, and its line. */
function naming(register: jest.It, snippet: CompiledSnippet): jest.It {
  const wrapped = (name: string, fn: () => unknown, timeout?: number) =>
    register(
      name,
      async () => {
        try {
          await fn();
        } catch (err) {
          throw namingBlock(err, snippet);
        }
      },
      timeout,
    );
  return Object.assign(wrapped, register);
}

const compiled = compileSnippets(runnable, (block) => DOCS[block.doc]);

test('no other Markdown file of the package has TypeScript blocks (add it to DOCS)', () => {
  const others = [
    ...readdirSync(join(ROOT, 'docs')).map((file) => `docs/${file}`),
    'examples/static-site/README.md',
  ].filter((doc) => doc.endsWith('.md') && !(doc in DOCS));
  const unchecked = others
    .flatMap(codeBlocks)
    .filter((b) => b.lang === 'ts' || b.lang === 'typescript')
    .map(where);
  expect(unchecked).toEqual([]);
});

test('every code block names its language, and there are TypeScript blocks of both sorts', () => {
  expect(blocks.filter((b) => b.lang === '').map(where)).toEqual([]);
  expect(excerpts.length).toBeGreaterThan(0);
  expect(runnable.length).toBeGreaterThan(0);
});

describe('excerpts', () => {
  for (const block of excerpts) {
    test(`${where(block)} is in ${block.excerptOf}`, () => {
      const file = join(ROOT, block.excerptOf!);
      if (!existsSync(file))
        throw new Error(`${where(block)}: an excerpt of ${block.excerptOf}, which does not exist`);
      const problem = matchExcerpt(block, readFileSync(file, 'utf8'));
      if (problem) throw new Error(problem);
    });
  }
});

/** Fails with the compiler's errors, and what to do about a block that is a fragment. */
function expectCompiled(errors: readonly string[]): void {
  if (errors.length === 0) return;
  const hint =
    'A block that is not a complete module is an excerpt of a compiled, tested file: put ' +
    '<!-- snippet: <path> --> before its fence (how to write one: test/support/snippets.ts).';
  throw new Error([...errors, hint].join('\n'));
}

describe('runnable blocks', () => {
  test('compile, all in one program', () => {
    expectCompiled(compiled.flatMap((c) => c.errors));
  });

  for (const snippet of compiled) {
    const name = where(snippet.block);
    if (isTest(snippet.block)) {
      // Its tests are registered here, as though the block were a test file of its own. They are named by
      // the block's heading, not its line, so that their snapshots stay when the lines above change.
      describe(`${snippet.block.doc}, ${snippet.block.heading}`, () => {
        if (snippet.js !== undefined)
          runSnippet(snippet, require, { test: naming(test, snippet), it: naming(it, snippet) });
        else test('compiles', () => expectCompiled(snippet.errors));
      });
    } else {
      test(`${name} runs`, () => {
        expectCompiled(snippet.errors);
        const outdir = mkdtempSync(join(tmpdir(), 'reconstruct-snippet-'));
        const before = process.env.CDK8S_OUTDIR;
        process.env.CDK8S_OUTDIR = outdir; // where an App of the block synthesizes to
        try {
          runSnippet(snippet, require);
          // What it synthesized, if anything, is YAML.
          for (const file of readdirSync(outdir)) {
            for (const doc of parseAllDocuments(readFileSync(join(outdir, file), 'utf8'))) {
              expect(doc.errors).toEqual([]);
            }
          }
        } finally {
          if (before === undefined) delete process.env.CDK8S_OUTDIR;
          else process.env.CDK8S_OUTDIR = before;
          rmSync(outdir, { recursive: true, force: true });
        }
      });
    }
  }
});
