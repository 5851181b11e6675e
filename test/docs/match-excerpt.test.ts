/** How an excerpt is matched against its file (test/support/snippets.ts), table by table; and source maps read. */
import { matchExcerpt, sourceLines, type CodeBlock } from '../support/snippets';

const FILE = `import { a, b, c } from 'x';

/** Doc comment. */
export function f(items: string[]): string[] {
  const copy = [...items];
  const name = \`\${copy[0]}-check-\${copy.length}\`;
  g({
    first: 1,
    second: 2,
  });
  return copy;
}
`;

/** A block at line 10 of doc.md, an excerpt of f.ts. */
const block = (code: string): CodeBlock => ({
  doc: 'doc.md',
  lang: 'ts',
  line: 10,
  heading: 'f',
  code,
  excerptOf: 'f.ts',
});
const match = (code: string) => matchExcerpt(block(code), FILE);

describe('an excerpt matches', () => {
  test.each([
    ['the whole file', FILE],
    ['a line', 'const copy = [...items];'],
    [
      'other whitespace and line breaks',
      'export function f(\n  items: string[],\n): string[] { const copy =\n [...items];',
    ],
    [
      'without comments, or with comments of its own',
      '// f copies\nexport function f(items: string[]): string[] {',
    ],
    ['without a trailing comma', 'g({ first: 1, second: 2 });'],
    [
      'with `...` for omitted lines',
      'export function f(items: string[]): string[] {\n  ...\n  return copy;\n}',
    ],
    ['with `...` inside a line', "import { ..., b, ... } from 'x';"],
    ['with `...` for the rest of an object', 'g({ first: 1, ... });'],
    [
      'with `...` and a comment saying what it leaves out',
      'export function f(items: string[]): string[] {\n  ... // the copy\n  return copy;',
    ],
    ['with `...` in brackets', 'const copy = [...];'],
    ['a template literal', 'const name = `${copy[0]}-check-${copy.length}`;'],
  ])('%s', (_, code) => {
    expect(match(code)).toBeUndefined();
  });
});

describe('an excerpt does not match, naming the doc line and the token', () => {
  test.each([
    [
      'a changed value',
      'g({ first: 1, second: 3 });',
      'doc.md:11 (the block at line 10) is not in f.ts: "g({ first: 1, second: 3 });" differs at `3`; f.ts:9 has "second: 2,"',
    ],
    [
      'a line left out without `...`',
      'export function f(items: string[]): string[] {\n  return copy;',
      'doc.md:12 (the block at line 10) is not in f.ts: "return copy;" differs at `return`; f.ts:5 has "const copy = [...items];"',
    ],
    [
      'lines out of order',
      'return copy;\n...\nconst copy = [...items];',
      'doc.md:13 (the block at line 10) is not in f.ts after line 11: "const copy = [...items];" differs at `const`',
    ],
    [
      'a spread that is not in the file (`...x` is code, not an omission)',
      'const copy = [...list];',
      'doc.md:11 (the block at line 10) is not in f.ts: "const copy = [...list];" differs at `list`; f.ts:5 has "const copy = [...items];"',
    ],
    [
      'a changed template literal',
      'const name = `${copy[0]}-test-${copy.length}`;',
      'doc.md:11 (the block at line 10) is not in f.ts: "const name = `${copy[0]}-test-${copy.length}`;" differs at `}-test-${`; f.ts:6 has "const name = `${copy[0]}-check-${copy.length}`;"',
    ],
    [
      'code past the end of the file',
      'return copy;\n}\nexport const more = 1;',
      'doc.md:13 (the block at line 10) is not in f.ts: "export const more = 1;" differs at `export`',
    ],
    ['nothing but `...`', '...', 'doc.md:10: the block is an excerpt of f.ts with no code of its own'],
  ])('%s', (_, code, message) => {
    expect(match(code)).toBe(message);
  });
});

test('sourceLines reads a source map: each generated line’s segments, as [column, source line]', () => {
  // Line 0: column 0 from line 0. Line 1: nothing. Line 2: column 2 from line 1, column 10 from line 3.
  // (VLQ: A=0, C=1, E=2, I=4, Q=8.)
  expect(sourceLines('AAAA;;EACA,QAEA')).toEqual([
    [[0, 0]],
    [],
    [
      [2, 1],
      [10, 3],
    ],
  ]);
});
