import { toYamlStream } from '../synth/yaml';
import { builtinKinds } from '../constructs/builtin';
import { formatProblem } from '../synth/problem';
import { writeOutputDir } from '../synth/output-dir';
import { readDocuments } from '../synth/read';
import {
  describe,
  isPassed,
  objectsOf,
  omittedMessage,
  renderAll,
  type PassedThrough,
  type Rendered,
} from '../synth/render';
import { KINDS_HELP, commandKinds, parseCommand } from './kinds';

export const SYNTH_HELP = `Usage: reconstruct synth PATH... [-o DIR | -o -] [-n NAMESPACE] [--unknown pass|error]
                       [--include-generated] [--kinds MODULE]

Renders custom resources to the plain Kubernetes manifests the operator would apply, without a
cluster. Built-in kinds: ${builtinKinds.map((k) => k.kind).join(', ')}.

PATH is a YAML file (several documents separated by ---), a folder searched for *.yaml, *.yml and
*.json, or - for standard input. Each resource is checked against its CRD schema, the same schema the
API server enforces, and against its construct's own checks. Documents that are not resources of
these kinds (ordinary manifests beside them) are written out unchanged, in order.

Options:
  -o, --output DIR   write one file per resource (and per document passed through) into DIR
                     (default: dist/); files an earlier render wrote there and this one does not are
                     removed, other files are left alone, each file is replaced whole
  -o -               write one YAML stream to standard output instead
  -n, --namespace NS namespace for namespaced resources that name none (default: none, as in the file)
  --unknown error    report documents that are not resources of these kinds instead of passing them
                     through (a document of one of their API groups is always reported: a typo)
  --include-generated
                     also render the children whose values the controller generates when it creates
                     them (a create-only Secret's password), with freshly generated values; by default
                     they are left out, and said so on standard error
${KINDS_HELP}
  -h, --help         show this help

Every invalid or unknown resource is reported on standard error as
  FILE: KIND/NAME: FIELD: message
and the valid ones are still rendered. The exit status is 0 when everything rendered, 1 when
anything failed, 2 for a usage error.
`;

const sourceOf = (o: Rendered | PassedThrough) => (isPassed(o) ? o.object : o.resource);

/**
 * The file an output is written to: `<kind>.<name>.yaml`, prefixed by the namespace, of the resource (for
 * its children) or of the document passed through.
 */
export function outputFileName(o: Rendered | PassedThrough): string {
  const { kind, metadata } = sourceOf(o);
  return [metadata.namespace, kind.toLowerCase(), metadata.name, 'yaml'].filter(Boolean).join('.');
}

function outputYaml(o: Rendered | PassedThrough): string {
  const { kind, metadata } = sourceOf(o);
  return `# Source: ${o.file} ${kind}/${metadata.name}\n${toYamlStream(objectsOf(o))}`;
}

/** `reconstruct synth`: returns the exit status. */
export async function synthCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
  /** What `-` reads (standard input). */
  stdin?: () => string,
): Promise<number> {
  const io = { out, err };
  const parsed = parseCommand(
    'synth',
    SYNTH_HELP,
    argv,
    {
      output: { type: 'string', short: 'o' },
      namespace: { type: 'string', short: 'n' },
      'include-generated': { type: 'boolean' },
      unknown: { type: 'string' },
    },
    io,
    true,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length === 0) {
    err.write(`reconstruct synth: no PATH given\n\n${SYNTH_HELP}`);
    return 2;
  }
  const unknown = values.unknown ?? 'pass';
  if (unknown !== 'pass' && unknown !== 'error') {
    err.write(`reconstruct synth: --unknown must be pass or error, not ${unknown}\n`);
    return 2;
  }
  const kinds = await commandKinds('synth', values, io);
  if (typeof kinds === 'number') return kinds;
  const { documents, problems: readProblems } = readDocuments(positionals, stdin);
  const { rendered, outputs, problems } = renderAll(documents, {
    kinds,
    namespace: values.namespace,
    includeGenerated: values['include-generated'] === true,
    unknown,
  });
  const allProblems = [...readProblems, ...problems];

  const output = values.output ?? 'dist';
  if (output === '-') {
    out.write(outputs.map(outputYaml).join('---\n'));
  } else {
    const files = new Map<string, string>();
    const from = new Map<string, string>();
    for (const o of outputs) {
      const name = outputFileName(o);
      const what = describe(sourceOf(o));
      if (files.has(name)) {
        allProblems.push({
          file: o.file,
          resource: what,
          message: `${output}/${name} is also written for ${from.get(name)}`,
        });
        continue;
      }
      files.set(name, outputYaml(o));
      from.set(name, `${what} of ${o.file}`);
    }
    try {
      const { removed } = writeOutputDir(output, files);
      const passed = outputs.length - rendered.length;
      if (files.size > 0 || removed.length > 0) {
        err.write(
          `rendered ${rendered.length} resource(s)${passed > 0 ? ` and passed ${passed} document(s) through` : ''} into ${output}/` +
            `${removed.length > 0 ? `, removed ${removed.length} file(s) of an earlier render` : ''}\n`,
        );
      }
    } catch (e) {
      err.write(`reconstruct synth: cannot write ${output}/: ${(e as Error).message}\n`);
      return 1;
    }
  }
  for (const r of rendered) {
    for (const omitted of r.omitted) {
      err.write(`${r.file}: ${r.resource.kind}/${r.resource.metadata.name}: ${omittedMessage(omitted)}\n`);
    }
  }
  for (const p of allProblems) err.write(`${formatProblem(p)}\n`);
  return allProblems.length > 0 ? 1 : 0;
}
