import { isDeepStrictEqual } from 'node:util';
import {
  applyDefaults,
  pruneNullsWithoutDefaults,
  toJson,
  type Json,
} from '../../../constructs/kit/defaults';
import { builtinKinds, withDefaults, type JSONSchemaProps } from '../../../constructs';
import { sample } from '../../fixtures/resources';
import { mulberry32 } from '../../support/random';

/** What the API server does to a decoded request, on a deep copy: the reference withDefaults must match. */
function reference(schema: JSONSchemaProps, value: unknown): Json {
  const copy = toJson(value) ?? null;
  pruneNullsWithoutDefaults(copy, schema);
  applyDefaults(copy, schema);
  return copy;
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null)) as unknown;

/** A schema with every place a default can sit: properties, map values, array items, nested, nullable. */
const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'n' },
    nullable: { type: 'string', nullable: true, default: 'd' },
    plain: { type: 'string' },
    nested: { type: 'object', default: {}, properties: { depth: { type: 'integer', default: 2 } } },
    list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string', default: 'v' } } } },
    scalars: { type: 'array', items: { type: 'integer', default: 7 } },
    map: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { w: { type: 'integer', default: 1 } } },
    },
    strings: { type: 'object', additionalProperties: { type: 'string', default: 'x' } },
  },
};

function randomValue(random: () => number, depth = 0): unknown {
  const pick = random();
  if (depth > 3 || pick < 0.3) return [null, undefined, 'a', 3, true][Math.floor(random() * 5)];
  if (pick < 0.5)
    return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(random, depth + 1));
  const keys = [
    'name',
    'nullable',
    'plain',
    'nested',
    'list',
    'scalars',
    'map',
    'strings',
    'depth',
    'k',
    'w',
    'z',
  ];
  return Object.fromEntries(
    keys.filter(() => random() < 0.35).map((k) => [k, randomValue(random, depth + 1)]),
  );
}

describe('withDefaults', () => {
  it('GIVEN random values THEN it fills in what the API server would, no more, no less', () => {
    const random = mulberry32(42);
    const differ: unknown[] = [];
    for (let i = 0; i < 5000; i++) {
      const value = randomValue(random);
      // Compared as JSON writes them (undefined in a list is null): what a construct's output becomes.
      const [got, want] = [asJson(withDefaults(SCHEMA, value)), asJson(reference(SCHEMA, value ?? {}))];
      // Node's own comparison: stricter than toEqual, and a toEqual for each of 5,000 pairs takes seconds.
      if (!isDeepStrictEqual(got, want)) differ.push({ i, value, got, want });
    }
    expect(differ.slice(0, 3)).toEqual([]);
  });

  it.each(builtinKinds.map((k) => [k.kind, k] as const))(
    'GIVEN the %s sample THEN it matches the reference',
    (_n, kind) => {
      const { spec } = sample(kind);
      expect(withDefaults(kind.schema.spec, spec)).toEqual(reference(kind.schema.spec, spec));
    },
  );

  it('never changes its input, and shares what it does not change', () => {
    const value = { plain: 'p', list: [{ k: 'set' }], map: { a: { w: 2 } }, strings: {} };
    const frozen = JSON.stringify(value);
    const out = withDefaults<typeof value, Record<string, unknown>>(SCHEMA, value);
    expect(JSON.stringify(value)).toBe(frozen);
    expect(out).toMatchObject({ name: 'n', nullable: 'd', nested: { depth: 2 } });
    expect(out.list).toBe(value.list);
    expect(out.map).toBe(value.map);
  });

  it('returns a complete spec unchanged, as the same object', () => {
    const complete = { name: 'a', nullable: null, nested: { depth: 1 } };
    expect(withDefaults(SCHEMA, complete)).toBe(complete);
  });

  it('takes an absent object spec as {}', () => {
    expect(withDefaults(SCHEMA, undefined)).toEqual({ name: 'n', nullable: 'd', nested: { depth: 2 } });
  });
});
