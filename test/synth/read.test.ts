/** Offline input that is not contained: each bad document is one problem naming its file and position. */
import { formatProblem } from '../../synth/problem';
import { MAX_DOCUMENT_BYTES, parseDocuments } from '../../synth/read';

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
