/**
 * Every string field of every built-in kind, with every YAML look-alike string the schema accepts, through
 * the renderer: the YAML it writes reads back, under YAML 1.1 and 1.2 rules, as exactly the objects it
 * rendered. (string-fields.cluster.test.ts sends a sample of the same to the API server.) Every field takes
 * a value in each render, a different one each time (a Latin square), and a render that is refused or does
 * not read back is split until the field and value at fault stand alone: a failure names them, and the
 * file takes a tenth of the time one render per field and value took (48 s).
 */
import { Composer, Parser } from 'yaml';
import { builtinKinds, type Kind } from '../../constructs';
import { validateResource } from '../../constructs/kit/validate';
import { RULES_NOT_CHECKED } from '../../constructs/kit/validate/rules';
import { renderResources } from '../../synth/render';
import { toYamlStream } from '../../synth/yaml';
import { sample } from '../fixtures/resources';
import { LOOKALIKES } from '../support/lookalikes';
import { mulberry32 } from '../support/random';
import { specSchema, stringFields, withString, type StringField } from '../support/string-fields';

/**
 * Random strings (seeded) from the characters that make YAML interesting, beside the fixed look-alikes,
 * and some that a DNS-label pattern lets through (so that patterned fields get random values too).
 */
function randomStrings(seed: number, count: number): string[] {
  const next = mulberry32(seed);
  const pick = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  const wild = 'yesnoYN01289eE:.-_#@ \t\n\'"{}[],&*!|>%~+x';
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? pick(wild, 1 + Math.floor(next() * 8))
      : `${pick('0123456789', 1)}${pick('0123456789e', 1 + Math.floor(next() * 4))}`,
  );
}
const RANDOM = randomStrings(13, 100);

/**
 * What field `index` of a kind's `count` string fields takes: every look-alike (the cases), and its share of
 * the random strings, dealt round the fields like cards into at most four hands: each random string goes
 * through a field of every kind, and each field takes a quarter of them or more. YAML quotes a string by the
 * same rules whatever field holds it: all 100 through each of a Cluster's 28 fields asks the same question.
 */
function valuesFor(index: number, count: number): string[] {
  const hands = Math.min(count, 4);
  return [...LOOKALIKES, ...RANDOM.filter((_, i) => i % hands === index % hands)];
}

const VERSIONS = ['1.1', '1.2'] as const;

/**
 * The documents of `text` as YAML 1.1 and YAML 1.2 readers read them, as `parseAllDocuments` would: parsed
 * once, composed by each version's rules (the parse is a third of the time this test takes).
 */
function readBack(text: string): unknown[][] {
  const tokens = [...new Parser().parse(text)];
  return VERSIONS.map((version) =>
    [...new Composer({ version }).compose(tokens)].map((d) => d.toJS() as unknown),
  );
}

// A kind with no children renders nothing: its strings never reach YAML.
const rendering = builtinKinds.filter((k) => k.children.length > 0);

describe.each(rendering.map((k) => [k.kind, k] as [string, Kind]))('%s', (_, kind) => {
  const schema = specSchema(kind);
  const fields = stringFields(schema);

  it('has string fields to test', () => {
    expect(fields.length).toBeGreaterThan(0);
  });

  it('writes YAML that reads back as the rendered objects, for every accepted look-alike in every string field, and every random string in one', () => {
    const exercised = new Set<string>();
    const failures: string[] = [];
    const base = sample(kind); // withString changes a copy
    // What the schema refuses (the most of a patterned field's look-alikes) is left out first, one at a
    // time: a check of the resource alone, a fraction of a render.
    const admitted = (field: StringField, value: string) =>
      validateResource(kind.crd, withString(base, field, value, schema)).errors.every((e) =>
        e.message.endsWith(RULES_NOT_CHECKED),
      );
    const values = fields.map((field, index) =>
      valuesFor(index, fields.length).filter((value) => admitted(field, value)),
    );
    /**
     * Renders `base` with every assignment at once and reads it back. A set the schema or the construct
     * refuses, or whose YAML does not read back, is split in halves until the assignments at fault stand
     * alone: refused ones are skipped, and ones that do not read back are the failures.
     */
    const check = (assignments: [StringField, string][]): void => {
      if (assignments.length === 0) return;
      let resource = base;
      for (const [field, value] of assignments) resource = withString(resource, field, value, schema);
      // The children's own checks are not what this test is about (test/synth/child-validation.test.ts).
      // Generated values too: a generated Secret's other keys come from the spec; and a child waiting for
      // an input, its placeholder marked (its other fields come from the spec).
      const { manifests, problems } = renderResources([resource], {
        kinds: [kind],
        validateChildren: false,
        includeGenerated: true,
        placeholders: true,
      });
      const refused = problems.length > 0 || manifests.length === 0;
      const expected = JSON.stringify(manifests);
      const bad = refused
        ? []
        : readBack(toYamlStream(manifests)).flatMap((read, i) =>
            JSON.stringify(read) === expected ? [] : [VERSIONS[i]],
          );
      if (!refused && bad.length === 0) {
        for (const [field] of assignments) exercised.add(field.path.join('.'));
      } else if (assignments.length > 1) {
        const half = Math.ceil(assignments.length / 2);
        check(assignments.slice(0, half));
        check(assignments.slice(half));
      } else if (!refused) {
        const [[field, value]] = assignments;
        failures.push(`${field.path.join('.')} = ${JSON.stringify(value)} (YAML ${bad.join(', ')})`);
      }
    };
    // Round r gives field i its value (i + r): every field takes each of its values once, all fields at once,
    // each in a different value, so a round is one render where field by field it was one per field.
    const rounds = Math.max(0, ...values.map((v) => v.length));
    for (let round = 0; round < rounds; round++) {
      check(
        fields.flatMap((field, i): [StringField, string][] =>
          round < values[i].length ? [[field, values[i][(round + i) % values[i].length]]] : [],
        ),
      );
    }
    expect(failures).toEqual([]);
    // Not vacuous: most string fields took at least one look-alike.
    expect(exercised.size).toBeGreaterThanOrEqual(Math.ceil(fields.length / 2));
  });
});

describe('strings a child would be refused for are refused at the resource (found by string-fields.cluster.test.ts)', () => {
  it.each([
    [
      'Balancer',
      'spec.ports[0].name',
      '0755',
      ['ports', 0, 'name'],
      'must contain at least one letter (a-z)',
    ],
    ['Balancer', 'spec.ports[0].name', 'a--b', ['ports', 0, 'name'], 'no "--"'],
    [
      'DatabaseManager',
      'spec.rootPasswordSecret.name',
      '1_000',
      ['rootPasswordSecret', 'name'],
      'should match',
    ],
  ] as const)('%s: %s = %s', (kindName, field, value, path, message) => {
    const kind = builtinKinds.find((k) => k.kind === kindName)!;
    const { problems } = renderResources([withString(sample(kind), { path }, value, specSchema(kind))], {
      kinds: [kind],
    });
    expect(problems).toEqual([
      expect.objectContaining({ field, message: expect.stringContaining(message) as string }),
    ]);
  });
});
