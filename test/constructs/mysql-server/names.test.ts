/** Names in the SQL the server layer writes: checked (the error names the field), quoted, escaped in grants. */
import {
  checkCharsetName,
  checkDatabaseName,
  checkHost,
  checkUserName,
  escapeGrantPattern,
  grantedDatabase,
  grantTarget,
  InvalidNameError,
  quoteAccount,
  quoteIdentifier,
} from '../../../constructs/mysql-server/names';

describe('quoteIdentifier', () => {
  it.each([
    ['app', '`app`'],
    ['a`b', '`a``b`'],
    ['`; DROP DATABASE x; --', '```; DROP DATABASE x; --`'],
    ["it's", "`it's`"],
    ['über', '`über`'],
  ])('quotes %s as %s', (name, quoted) => {
    expect(quoteIdentifier(name)).toBe(quoted);
  });
});

describe('checkDatabaseName', () => {
  it.each(['app', 'app_db', 'my-app', 'a'.repeat(64), 'a b', 'über', 'x%y', '`'])('accepts %j', (name) => {
    expect(() => checkDatabaseName(name)).not.toThrow();
  });
  it.each([
    ['', 'must not be empty'],
    ['a'.repeat(65), 'longer than 64'],
    ['a/b', 'contains "/"'],
    ['a\\b', 'contains "/"'],
    ['a.b', 'contains "/"'],
    ['trailing ', 'ends with a space'],
    ['nul\0', 'NUL'],
    ['emoji\u{1F600}', 'outside U+0001 to U+FFFF'],
  ])('refuses %j, naming the field', (name, words) => {
    expect(() => checkDatabaseName(name, 'spec.name')).toThrow(InvalidNameError);
    expect(() => checkDatabaseName(name, 'spec.name')).toThrow(/^spec\.name: /);
    expect(() => checkDatabaseName(name, 'spec.name')).toThrow(words);
  });
});

describe('users and hosts', () => {
  it('take 80 and 255 characters, not one more', () => {
    expect(() => checkUserName('u'.repeat(80))).not.toThrow();
    expect(() => checkUserName('u'.repeat(81))).toThrow('name: ');
    expect(() => checkHost('h'.repeat(255))).not.toThrow();
    expect(() => checkHost('h'.repeat(256))).toThrow('host: ');
  });
  it('refuse the empty (anonymous) user', () => {
    expect(() => checkUserName('')).toThrow('name: must not be empty');
  });
  it('quote an account part by part', () => {
    expect(quoteAccount({ name: 'app', host: '%' })).toBe('`app`@`%`');
    expect(quoteAccount({ name: 'a`b', host: '10.0.%' })).toBe('`a``b`@`10.0.%`');
    expect(() => quoteAccount({ name: 'app', host: '' })).toThrow('host: must not be empty');
  });
});

describe('checkCharsetName', () => {
  it.each(['utf8mb4', 'utf8mb4_unicode_ci', 'latin1_swedish_ci'])('accepts %s', (name) => {
    expect(() => checkCharsetName(name, 'collation')).not.toThrow();
  });
  it.each(['', 'utf8 mb4', 'utf8;', "x'"])('refuses %j, naming the field', (name) => {
    expect(() => checkCharsetName(name, 'collation')).toThrow(/^collation: /);
  });
});

describe('grant targets', () => {
  it('escape the wildcards, so that a grant names one database', () => {
    expect(grantTarget('app_db')).toBe('`app\\_db`.*');
    expect(grantTarget('100%')).toBe('`100\\%`.*');
    expect(grantTarget('a`b')).toBe('`a``b`.*');
    expect(() => grantTarget('a.b')).toThrow('database: ');
  });
  it.each(['app', 'app_db', 'a_%_b', '__'])('read back what they wrote: %s', (name) => {
    expect(grantedDatabase(escapeGrantPattern(name))).toBe(name);
  });
  it.each(['app_db', 'app%', 'a\\_b_'])('read an unescaped wildcard as a pattern: %s', (stored) => {
    expect(grantedDatabase(stored)).toBeUndefined();
  });
});
