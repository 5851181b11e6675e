/**
 * The name rules of Kubernetes (apimachinery pkg/util/validation), each at its edges: the length limit
 * and one character past it, the characters and where they may stand.
 */
import {
  DNS_LABEL,
  DNS_SUBDOMAIN,
  LABEL_KEY,
  LABEL_VALUE,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelValue,
  isQualifiedName,
} from '../../../constructs/kit/names';

const label = (n: number): string => 'a'.repeat(n);
/** A subdomain of exactly `n` characters: labels of 63 joined by dots. */
const subdomain = (n: number): string =>
  Array.from({ length: Math.ceil(n / 64) }, () => label(63))
    .join('.')
    .slice(0, n)
    .replace(/\.$/, 'a');

it('has the limits of Kubernetes', () => {
  expect(MAX_LABEL_LENGTH).toBe(63);
  expect(MAX_SUBDOMAIN_LENGTH).toBe(253);
});

describe('isDns1123Label', () => {
  it.each(['a', '0', 'my-name', '123-abc', label(63)])('accepts %s', (v) => {
    expect(isDns1123Label(v)).toBe(true);
  });
  it.each(['', '-a', 'a-', 'My-name', 'a.b', 'a_b', label(64)])('refuses %s', (v) => {
    expect(isDns1123Label(v)).toBe(false);
  });
});

describe('isDns1035Label', () => {
  it.each(['a', 'my-name', 'a0', label(63)])('accepts %s', (v) => {
    expect(isDns1035Label(v)).toBe(true);
  });
  it.each(['', '0a', '1cache', 'a-', 'a.b', label(64)])('refuses %s', (v) => {
    expect(isDns1035Label(v)).toBe(false);
  });
});

describe('isDns1123Subdomain', () => {
  it('takes 253 characters and not 254', () => {
    expect(subdomain(253)).toHaveLength(253);
    expect(isDns1123Subdomain(subdomain(253))).toBe(true);
    expect(isDns1123Subdomain(subdomain(254))).toBe(false);
  });
  it.each(['example.com', 'a', '0.0', 'a-b.c-d'])('accepts %s', (v) => {
    expect(isDns1123Subdomain(v)).toBe(true);
  });
  it.each(['', '.a', 'a.', 'a..b', 'A.com', 'a_b.com', '-a.com'])('refuses %s', (v) => {
    expect(isDns1123Subdomain(v)).toBe(false);
  });
});

describe('isLabelValue', () => {
  it.each(['', 'a', 'My_value.1', '12345', label(63)])('accepts "%s"', (v) => {
    expect(isLabelValue(v)).toBe(true);
  });
  it.each(['-a', 'a-', '_a', 'a b', 'a/b', label(64)])('refuses "%s"', (v) => {
    expect(isLabelValue(v)).toBe(false);
  });
});

describe('isQualifiedName', () => {
  it.each(['MyName', 'my.name', '123-abc', 'example.com/MyName', 'nodes.lailin.xyz/node-cleanup', label(63)])(
    'accepts %s',
    (v) => {
      expect(isQualifiedName(v)).toBe(true);
    },
  );
  it.each([
    '',
    '/a',
    'example.com/',
    'Example.com/a',
    'a/b/c',
    '-a',
    label(64),
    `example.com/${label(64)}`,
    `${subdomain(254)}/a`,
  ])('refuses %s', (v) => {
    expect(isQualifiedName(v)).toBe(false);
  });
});

describe('the schema patterns', () => {
  it('are the predicates anchored, less the lengths a schema says in maxLength', () => {
    expect(new RegExp(DNS_LABEL).test('my-name')).toBe(true);
    expect(new RegExp(DNS_LABEL).test('my.name')).toBe(false);
    expect(new RegExp(DNS_SUBDOMAIN).test('my.name')).toBe(true);
    expect(new RegExp(LABEL_VALUE).test('')).toBe(true);
    expect(new RegExp(LABEL_KEY).test('example.com/MyName')).toBe(true);
    expect(new RegExp(LABEL_KEY).test(label(63))).toBe(true);
    expect(new RegExp(LABEL_KEY).test(label(64))).toBe(false);
  });
});
