/**
 * Conversion data restores a list the other version cannot say, under jest as in the controller: the kind's
 * conversions run in the test's realm (its arrays have that realm's prototype) while the kit's copies are
 * made by structuredClone, so the kit must compare JSON, not prototypes (constructs/kit/same-json.ts).
 */
import { CONFIG_MAP, defineKind, type KindOptions, type KindVersion } from '../../../index';
import { checkConversions } from '../../../testing';

interface TagsSpec {
  tags: string[];
}
interface TagsV1Spec {
  tag: string;
}

const v1: KindVersion<TagsSpec, object, TagsV1Spec> = {
  name: 'v1',
  onlyInHub: ['spec.tags'],
  schema: {
    spec: { type: 'object', required: ['tag'], properties: { tag: { type: 'string', pattern: '^[a-z]+$' } } },
  },
  // v1 says one tag: the first.
  toHub: ({ spec }) => ({ spec: { tags: [spec.tag] } }),
  fromHub: ({ spec }) => ({ spec: { tag: spec.tags[0] } }),
};

const tagsOptions: KindOptions<TagsSpec> = {
  apiVersion: 'tags.example.com/v2',
  kind: 'Tagged',
  plural: 'taggeds',
  schema: {
    description: 'Tags.',
    spec: {
      type: 'object',
      required: ['tags'],
      properties: {
        tags: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z]+$' } },
      },
    },
  },
  construct: class {} as never,
  children: [CONFIG_MAP],
};
const tagsKind = defineKind<TagsSpec>({ ...tagsOptions, versions: [v1] });

it('a two-value list comes back with both values through a version that says one', () => {
  const hub = {
    apiVersion: 'tags.example.com/v2',
    kind: 'Tagged',
    metadata: { name: 't', namespace: 'default' },
    spec: { tags: ['alpha', 'beta'] },
  };
  const there = tagsKind.convert(hub, 'tags.example.com/v1');
  expect(there.spec).toEqual({ tag: 'alpha' });
  expect(tagsKind.convert(there, 'tags.example.com/v2').spec).toEqual({ tags: ['alpha', 'beta'] });
});

it('checkConversions holds for it', () => {
  expect(() => checkConversions(tagsKind)).not.toThrow();
});

interface FormattedSpec {
  host: string;
  zone: string;
  address: string;
  mode: string;
  id: string;
}
const v0: KindVersion<FormattedSpec, object, { all: string }> = {
  name: 'v0',
  schema: {
    spec: {
      type: 'object',
      required: ['all'],
      properties: { all: { type: 'string', pattern: '^[0-9]{4}-[A-F]{2}$' } },
    },
  },
  onlyInHub: ['spec.host', 'spec.zone', 'spec.address', 'spec.mode'],
  toHub: ({ spec }) => ({
    spec: { host: 'a.example', zone: 'example.com', address: '192.0.2.1', mode: 'fast', id: spec.all },
  }),
  fromHub: ({ spec }) => ({ spec: { all: spec.id } }),
};

it('checkConversions makes valid objects for patterns, formats and enums', () => {
  const kind = defineKind<FormattedSpec>({
    apiVersion: 'formats.example.com/v1',
    kind: 'Formatted',
    plural: 'formatteds',
    schema: {
      description: 'Formats.',
      spec: {
        type: 'object',
        required: ['host', 'zone', 'address', 'mode', 'id'],
        properties: {
          host: { type: 'string', format: 'hostname' },
          zone: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z]{2,6})+$', maxLength: 40 },
          address: { type: 'string', format: 'ipv4' },
          mode: { type: 'string', enum: ['fast', 'safe'] },
          id: { type: 'string', pattern: '^[0-9]{4}-[A-F]{2}$' },
        },
      },
    },
    construct: class {} as never,
    children: [CONFIG_MAP],
    versions: [v0],
  });
  const check = checkConversions(kind, { runs: 50 });
  expect(check.roundTrips).toBeGreaterThanOrEqual(90);
});

it('checkConversions takes the author’s own samples, and says which one does not come back', () => {
  const sample = (tags: string[]) => ({
    apiVersion: 'tags.example.com/v2',
    kind: 'Tagged',
    metadata: { name: 'mine', namespace: 'default' },
    spec: { tags },
  });
  expect(checkConversions(tagsKind, { runs: 0, samples: [sample(['one', 'two', 'three'])] }).roundTrips).toBe(
    2,
  );
  const lossy = defineKind<TagsSpec>({
    ...tagsOptions,
    versions: [
      { ...v1, onlyInHub: [], fromHub: ({ spec }) => ({ spec: { tag: spec.tags[1] ?? spec.tags[0] } }) },
    ],
  });
  expect(() => checkConversions(lossy, { runs: 0, samples: [sample(['one', 'two'])] })).toThrow(
    /Tagged v2 -> v1 \(seed 1\): came back different/,
  );
});
