/**
 * `reconstruct inputs`: its file is the one `reconstruct synth --inputs` reads, values of every awkward
 * YAML shape kept as they are and each input not known a comment; a kind without inputs, or no such kind,
 * is one line and exit 2. (Against a cluster: test/controller/inputs/parity.cluster.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatInputs, inputsCommand } from '../../cli/inputs';
import { readInputsFile } from '../../synth/inputs';
import { capture } from '../support/capture';

const AWKWARD = [
  'yes',
  'no',
  '0x1F',
  '1e3',
  ': x',
  '# not a comment',
  'null',
  '~',
  "it's",
  'ünï – 🎨',
  ' ',
  '',
];

it('writes a file synth --inputs reads back to the same values, and says what is not known', () => {
  const text = formatInputs([
    ...AWKWARD.map((theme, i) => ({
      resource: `WebFront/web/w${i}`,
      values: { theme, replicas: i },
      missing: {},
    })),
    { resource: 'WebFront/web/lone', values: {}, missing: { host: 'Service lone has no status yet' } },
  ]);
  expect(text).toContain('WebFront/web/lone: {}\n  # host: not known: Service lone has no status yet\n');
  const dir = mkdtempSync(join(tmpdir(), 'inputs-'));
  try {
    writeFileSync(join(dir, 'inputs.yaml'), text);
    const read = readInputsFile(join(dir, 'inputs.yaml'));
    if (!('byResource' in read)) throw new Error(read.message);
    AWKWARD.forEach((theme, i) =>
      expect(read.byResource.get(`WebFront/web/w${i}`)).toEqual({ theme, replicas: i }),
    );
    expect(read.byResource.get('WebFront/web/lone')).toEqual({});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('says in one line that a kind declares no inputs, or that there is no such kind', async () => {
  const run = async (args: string[]) => {
    const out = capture();
    const err = capture();
    const code = await inputsCommand(args, out, err);
    return { code, out: out.text(), err: err.text() };
  };
  expect(await run(['memcached'])).toEqual({
    code: 2,
    out: '',
    err: 'reconstruct inputs: Memcached declares no inputs\n',
  });
  const none = await run(['nosuchkind']);
  expect(none.code).toBe(2);
  expect(none.err).toMatch(/^reconstruct inputs: no kind "nosuchkind" among .*\n$/);
});
