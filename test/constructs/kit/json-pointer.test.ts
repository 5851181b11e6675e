/** JSON pointers (RFC 6901), as child policies name fields. */
import { parsePointer } from '../../../constructs/kit/json-pointer';

describe('parsePointer', () => {
  it.each<[string, string[]]>([
    ['/spec/replicas', ['spec', 'replicas']],
    ['/metadata/labels/a~1b', ['metadata', 'labels', 'a/b']],
    ['/a~0b', ['a~b']],
    // ~01 is "~1" (RFC 6901 decodes ~1 before ~0), not "/".
    ['/~01', ['~1']],
    ['/0', ['0']],
  ])('%s', (pointer, segments) => {
    expect(parsePointer(pointer)).toEqual(segments);
  });

  it.each(['', 'spec', '/', '/a//b', '/a/', '/a~2', '/a~'])('refuses %j', (pointer) => {
    expect(() => parsePointer(pointer)).toThrow(`"${pointer}"`);
  });
});
