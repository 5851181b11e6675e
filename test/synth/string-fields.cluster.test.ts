/**
 * The API server reads the renderer's YAML as written: every string field of every built-in kind set to
 * YAML 1.1 look-alikes (`yes`, `on`, `0755`, `1e3`, ...) that are also valid label values, rendered,
 * sent with `kubectl apply --dry-run=server`, and each such string read back unchanged at its place. A
 * look-alike written plain would reach the server as a boolean or a number and be refused or changed.
 */
import { builtinKinds, type Kind, type Manifest } from '../../constructs';
import { renderResources } from '../../synth/render';
import { toYamlStream } from '../../synth/yaml';
import { sample } from '../fixtures/resources';
import { createNamespace, deleteNamespace, kubectl } from '../support/kubectl';
import { specSchema, stringFields, withString } from '../support/string-fields';

jest.setTimeout(300_000);

/** Look-alikes that are also valid label values and DNS-1123 labels where they need to be. */
const VALUES = ['yes', 'no', 'on', 'off', 'y', 'true', 'null', '0755', '1e3', '0x1f', '1_000', '2001-12-14'];

let ns: string;
beforeAll(() => {
  ns = createNamespace('strings');
});
afterAll(() => {
  if (ns) deleteNamespace(ns);
});

/** Every string leaf of `value` equal to one of `wanted`, with its path. */
function leaves(value: unknown, wanted: ReadonlySet<string>, path = ''): [string, string][] {
  if (typeof value === 'string') return wanted.has(value) ? [[path, value]] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, wanted, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [
      ...(wanted.has(k) ? ([[`${path}{${k}}`, k]] as [string, string][]) : []),
      ...leaves(v, wanted, `${path}.${k}`),
    ]);
  }
  return [];
}

// A kind whose sample renders nothing offline (no children, or only a generated Secret, whose stringData the
// API server moves into data) sends no string to check here; string-fields.test.ts reads its YAML back.
const rendering = builtinKinds.filter(
  (k) => renderResources([sample(k)], { kinds: [k] }).manifests.length > 0,
);

describe.each(rendering.map((k) => [k.kind, k] as [string, Kind]))('%s', (_, kind) => {
  it('every look-alike string the renderer writes reaches the API server as the same string', () => {
    const wanted = new Set(VALUES);
    let checked = 0;
    const failures: string[] = [];
    for (const field of stringFields(specSchema(kind))) {
      for (const value of VALUES) {
        const resource = withString(sample(kind), field, value, specSchema(kind));
        resource.metadata.namespace = kind.namespaced ? ns : undefined;
        const { manifests, problems } = renderResources([resource], { kinds: [kind] });
        if (problems.length > 0) continue; // the schema or the construct refuses it
        const ours = manifests.filter((m) => leaves(m, wanted).length > 0);
        if (ours.length === 0) continue; // the field does not reach a child
        const result = kubectl(['apply', '--dry-run=server', '-o', 'json', '-f', '-'], {
          input: toYamlStream(ours),
          allowFail: true,
        });
        const where = `${field.path.join('.')} = ${value}`;
        if (result.code !== 0) {
          failures.push(`${where}: ${result.stderr.trim()}`);
          continue;
        }
        // One object for one document, a List for several.
        const parsed = JSON.parse(result.stdout) as { kind: string; items?: Manifest[] };
        const served: unknown[] = parsed.kind === 'List' ? (parsed.items ?? []) : [parsed];
        ours.forEach((mine, i) => {
          const theirs = new Map(leaves(served[i], wanted));
          for (const [path, text] of leaves(mine, wanted)) {
            checked += 1;
            if (theirs.get(path) !== text)
              failures.push(`${where}: ${mine.kind} ${path} came back as ${String(theirs.get(path))}`);
          }
        });
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });
});
