/** Offline input that is not contained: each bad document is one problem naming its file and position. */
import { formatProblem } from '../../synth/problem';
import { parseAllDocuments } from 'yaml';
import { DocumentSplitter, MAX_DOCUMENT_BYTES, parseDocuments, type ReadItem } from '../../synth/read';

const ok = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n';

describe('parseDocuments', () => {
  it('refuses a YAML alias bomb as a problem of its document, and reads the others', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]',
    ].join('\n');
    const { documents, problems } = parseDocuments('in.yaml', `${ok}---\n${bomb}\n---\n${ok}`);
    expect(documents.map((d) => d.index)).toEqual([1, 3]);
    expect(problems).toEqual([
      {
        file: 'in.yaml',
        resource: 'document 2',
        message: expect.stringMatching(/^cannot be read: .*alias/i) as string,
      },
    ]);
  });

  it('refuses a document larger than the API server takes, naming its size, and reads the others', () => {
    const big = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: "${'y'.repeat(MAX_DOCUMENT_BYTES)}"\n`;
    const { documents, problems } = parseDocuments('in.yaml', `${big}---\n${ok}`);
    expect(documents.map((d) => d.index)).toEqual([2]);
    expect(problems).toEqual([
      {
        file: 'in.yaml',
        resource: 'document 1',
        message: 'is 3.0 MiB; the API server takes at most 3 MiB in one object, so it is not read',
      },
    ]);
  });
});

describe('DocumentSplitter', () => {
  /** The documents and problems of `text` split in chunks of `size` characters, as `index: value`. */
  const split = (text: string, size: number, max?: number) => {
    const splitter = new DocumentSplitter('in.yaml', max);
    const items: ReadItem[] = [];
    for (let i = 0; i < text.length; i += size) items.push(...splitter.push(text.slice(i, i + size)));
    items.push(...splitter.end());
    return items.map((item) =>
      'document' in item
        ? `${item.document.index}: ${JSON.stringify(item.document.value)}`
        : `${item.problem.resource}: ${item.problem.message}`,
    );
  };

  it.each([
    ['bare documents', 'a: 1\n---\nb: 2\n---\nc: 3\n'],
    ['comments and a directive before the first ---', '# c\n%YAML 1.1\n---\na: 1\n---\nb: 2'],
    ['empty documents, counted', '---\n---\na: 1\n---\n'],
    ['... ends a document', 'a: 1\n...\n# after\n---\nb: 2\n...\nc: 3\n'],
    ['a marker with content', 'a: 1\n--- |\n  text\n--- # comment\nb: 2\n'],
    ['--- inside scalars is no marker', 'x: "a\n  --- b"\ny: |\n  ---\n----: 1\n---\nz: 1\n'],
    ['CRLF and a byte order mark', '\ufeffa: 1\r\n---\r\nb: 2\r\n'],
    ['JSON', '{"a": [1, 2]}\n'],
  ])('numbers and reads %s as parseAllDocuments does, in chunks of any size', (_, text) => {
    const expected = parseAllDocuments(text)
      .map((d, i) => `${i + 1}: ${JSON.stringify(d.toJS())}`)
      .filter((line) => !line.endsWith(': null'));
    for (const size of [1, 3, 7, text.length]) expect(split(text, size)).toEqual(expected);
  });

  it('reports a repeated key of a map, as the library would', () => {
    expect(split('a: 1\n---\nb:\n  x: 1\n  "1": 1\n  1: 1\n  x: 2\n', 5)).toEqual([
      '1: {"a":1}',
      'document 2: invalid YAML at line 7, column 3: Map keys must be unique',
    ]);
  });

  it('names the line in the file of a YAML error in a later document', () => {
    expect(split('a: 1\n---\nb: 2\n---\n\nc: d: e\n', 4)).toEqual([
      '1: {"a":1}',
      '2: {"b":2}',
      'document 3: invalid YAML at line 6, column 4: Nested mappings are not allowed in compact mappings',
    ]);
  });

  it('refuses a document over the limit by its size alone, without parsing it, and reads the next', () => {
    // Not YAML at all: parsed, it would be a YAML error, not a size.
    const big = `a: [${'x,'.repeat(60)}\n`;
    expect(split(`${big}---\nb: 2\n`, 5, 100)).toEqual([
      'document 1: is 0.0 MiB; the API server takes at most 3 MiB in one object, so it is not read',
      '2: {"b":2}',
    ]);
  });

  it('holds no more of an oversized document than one chunk, even on one line', () => {
    const splitter = new DocumentSplitter('in.yaml', 1000);
    splitter.push('a: "');
    for (let i = 0; i < 100; i++) {
      splitter.push('y'.repeat(500));
      expect(splitter.held).toBeLessThanOrEqual(1000);
    }
    expect(splitter.push('"\n---\nb: 1\n')).toEqual([
      { problem: expect.objectContaining({ resource: 'document 1' }) as unknown },
    ]);
  });
});

describe('formatProblem', () => {
  it('does not echo a 1 MB name: each part keeps its start and end and says how much it left out', () => {
    const name = 'a'.repeat(1_000_000);
    const line = formatProblem({
      file: 'big.yaml',
      resource: `Memcached/${name}`,
      field: 'metadata.name',
      message: `Invalid value: "${name}": must be no more than 253 characters`,
    });
    expect(line.length).toBeLessThan(1_000);
    expect(line).toMatch(
      /^big\.yaml: Memcached\/a+…\(999750 characters left out\)…a+: metadata\.name: Invalid value: "a+…/,
    );
    expect(line.endsWith('": must be no more than 253 characters')).toBe(true);
  });
});
