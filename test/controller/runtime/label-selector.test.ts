/** `--watch-label-selector` read at start: the keys it names, and one line for what is wrong. */
import { parseLabelSelector } from '../../../controller/runtime/label-selector';

describe('parseLabelSelector', () => {
  it.each([
    ['sharding.fluxcd.io/key=shard1', ['sharding.fluxcd.io/key']],
    ['!sharding.fluxcd.io/key', ['sharding.fluxcd.io/key']],
    ['a==b, c!=d', ['a', 'c']],
    ['tier in (web, db),env notin (dev),team', ['tier', 'env', 'team']],
    ['a=,a!=x', ['a']],
  ])('%s names %j', (text, keys) => {
    expect(parseLabelSelector(text)).toEqual({ text: text.trim(), keys });
  });

  it.each([
    ['', 'the selector is empty'],
    ['a=b,,c', '"" is not a requirement'],
    ['a b', '"a b" is not a requirement'],
    ['-a=b', '"-a=b": "-a" is not a label key'],
    ['a=b c', '"a=b c" is not a requirement'],
    ['a=-b', '"a=-b": "-b" is not a label value'],
    ['a in ()', '"a in ()": in needs at least one value'],
    ['a in (x,y', '"a in (x,y" is not a requirement'],
  ])('refuses %j: %s', (text, message) => {
    expect(() => parseLabelSelector(text)).toThrow(message);
  });
});
