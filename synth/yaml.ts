/**
 * YAML for manifests that YAML 1.1 readers read back unchanged.
 *
 * `yaml` writes YAML 1.2, whose core schema reads `yes`, `on`, `0755`, `1:20`, `2001-12-14`, `1_000` or `<<` as
 * strings, so it leaves them unquoted. YAML 1.1 readers (go-yaml v2 behind kubectl's sigs.k8s.io/yaml, PyYAML,
 * many GitOps tools) read those as booleans, numbers, timestamps or merge keys, and `kubectl apply` then
 * rejects e.g. `value: yes` for an env var. Here every string, map keys included, that a YAML 1.1 or a YAML 1.2
 * reader would read as anything but itself is written quoted; the layout is otherwise `yaml`'s own.
 */
import { Document, Scalar, Schema, visit } from 'yaml';
import type { ScalarTag } from 'yaml';

/** A tag that never resolves anything: it only makes the library quote the plain strings `test` matches. */
function quoteWhenPlain(test: RegExp): ScalarTag {
  return { tag: '!quote', default: true, test, resolve: (s) => s };
}

/**
 * The library does most of the work: before writing a string plain, it checks it against the tags of both the
 * schema (YAML 1.2 core) and the `compat` schema, and quotes it if one of them would resolve it. Its YAML 1.1
 * schema covers booleans, null, sexagesimal/underscored/binary/octal numbers, timestamps and `<<`. The other
 * entries cover what real readers (checked against PyYAML 6 and kubectl's sigs.k8s.io/yaml) do beyond that.
 */
const compat = [
  ...new Schema({ schema: 'yaml-1.1' }).tags,
  // `=` is the YAML 1.1 value type: PyYAML refuses to load it.
  quoteWhenPlain(/^=$/),
  // PyYAML cannot scan a tab inside a plain scalar.
  quoteWhenPlain(/\t/),
  // go-yaml v2 deletes every `_` from a plain scalar that starts with a digit or a sign, then hands it to
  // Go's strconv, which also takes `0X`, `0o`, `0O` and `0B` prefixes: `0X1F`, `+0o17`, `+_1` and `1e1_0`
  // are numbers to kubectl. Without the `_`s, the pattern is
  // `[-+]?(0[xX]HEX+|0[oO]OCT+|0[bB]BIN+|(\.DEC+|DEC+(\.DEC*)?)([eE][-+]?DEC+)?)`.
  quoteWhenPlain(
    /^(?=[-+0-9])[-+]?_*(?:0_*(?:[xX]_*[0-9a-fA-F][0-9a-fA-F_]*|[oO]_*[0-7][0-7_]*|[bB]_*[01][01_]*)|(?:\._*[0-9][0-9_]*|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE]_*[-+]?_*[0-9][0-9_]*)?)$/,
  ),
];

/**
 * Characters that must be escaped: YAML 1.1 reads NEL, LS and PS as line breaks, and the others are not
 * printable (a BOM only at the start of a stream). The library writes them raw even in double quotes, because
 * `JSON.stringify`, which it builds double-quoted strings from, leaves them alone.
 */
const UNPRINTABLE = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** Strings to write double-quoted rather than as the library chooses. */
function mustDoubleQuote(s: string): boolean {
  if (s.search(UNPRINTABLE) !== -1) return true;
  // Block literals that the library gets wrong (blank lines only: they read back without their blanks) or that
  // go-yaml v2 cannot read (a tab before the text of the first non-blank line).
  return s.includes('\n') && (s.trim() === '' || /^[ \n]*\t/.test(s));
}

/** One YAML document: block style, no line folding, look-alike strings quoted. */
export function toYaml(value: unknown): string {
  // No anchors and aliases for an object met twice: every reader gets plain, repeated YAML.
  const doc = new Document(value, { compat, aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && mustDoubleQuote(node.value)) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  // Those characters now occur only inside double quotes, where `\uXXXX` is an escape in YAML 1.1 and 1.2.
  return doc
    .toString({ lineWidth: 0 })
    .replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Several documents, separated by `---`. */
export function toYamlStream(values: unknown[]): string {
  return values.map(toYaml).join('---\n');
}
