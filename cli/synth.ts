import { once } from 'node:events';
import { toYamlStream } from '../synth/yaml';
import { builtinKinds } from '../constructs/builtin';
import { readInputsFile } from '../synth/inputs';
import { formatProblem, type Problem } from '../synth/problem';
import { OutputDir } from '../synth/output-dir';
import { streamDocuments, type StdinSource } from '../synth/read';
import {
  DocumentRenderer,
  describe,
  isPassed,
  objectsOf,
  externalOnlyMessage,
  omittedMessage,
  type PassedThrough,
  type Rendered,
} from '../synth/render';
import { KINDS_HELP, commandKinds, parseCommand } from './kinds';

const SYNTH_HELP = `Usage: reconstruct synth PATH... [-o DIR | -o -] [-n NAMESPACE] [--unknown pass|error]
                       [--include-generated] [--no-validate-children] [--inputs FILE] [--placeholders]
                       [--kinds MODULE]

Renders custom resources to the plain Kubernetes manifests the operator would apply, without a
cluster. Built-in kinds: ${builtinKinds.map((k) => k.kind).join(', ')}.

PATH is a YAML file (several documents separated by ---), a folder searched for *.yaml, *.yml and
*.json, or - for standard input. Each resource is checked against its CRD schema, the same schema the
API server enforces, and against its construct's own checks; each child it renders against the
schema of its kind: for built-in kinds, the OpenAPI schemas of the Kubernetes version the package
targets (shipped with it), for the kinds above, their CRDs. Documents that are not resources of these kinds
(ordinary manifests beside them) are written out unchanged, in order.

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
  --no-validate-children
                     do not check the children against the schemas of their kinds (a resource with
                     a child the API server would refuse is then rendered)
  --inputs FILE      the values of resources' observed inputs (a kind's \`inputs\`: a Service's address,
                     a ConfigMap's key), YAML mapping each resource to its values, as in
                       WebFront/web/shop: { host: lb.example.net, theme: dark }
                     what renders is what the controller applies with those values. A child that waits
                     for an input not given is left out, and said so on standard error
  --placeholders     render a child that waits for an input with the input marked (<input:host>)
${KINDS_HELP}
  -h, --help         show this help

Every invalid or unknown resource is reported on standard error as
  FILE: KIND/NAME: FIELD: message
(a child's problem as FILE: KIND/NAME: CHILD-KIND child-name: FIELD: message) and the valid ones
are still rendered. A resource whose kind works outside Kubernetes (a database on a server) and
renders no object is said so there too. Each document is rendered and written as soon as it is
read, so that memory holds one document at a time; one over 3 MiB is reported and not read. The
exit status is 0 when everything rendered, 1 when anything failed, 2 for a usage error.
`;

const sourceOf = (o: Rendered | PassedThrough) => (isPassed(o) ? o.object : o.resource);

/**
 * The file an output is written to: `<kind>.<name>.yaml`, prefixed by the namespace, of the resource (for
 * its children) or of the document passed through.
 */
function outputFileName(o: Rendered | PassedThrough): string {
  const { kind, metadata } = sourceOf(o);
  return [metadata.namespace, kind.toLowerCase(), metadata.name, 'yaml'].filter(Boolean).join('.');
}

function outputYaml(o: Rendered | PassedThrough): string {
  const { kind, metadata } = sourceOf(o);
  return `# Source: ${o.file} ${kind}/${metadata.name}\n${toYamlStream(objectsOf(o))}`;
}

/** Where the outputs go, one at a time: standard output, or files in a folder renamed into place at the end. */
interface Sink {
  /** Writes one output; a problem when it cannot be written where it belongs. */
  write(o: Rendered | PassedThrough): Promise<Problem | undefined>;
  /** After the last output: the line that says what was written, if any. Throws when it cannot. */
  close(counts: { rendered: number; passed: number }): string | undefined;
  abort(): void;
}

/** The longest file name most file systems take, in bytes. */
const MAX_FILE_NAME_BYTES = 255;

function stdoutSink(out: NodeJS.WritableStream): Sink {
  let first = true;
  return {
    async write(o) {
      const text = `${first ? '' : '---\n'}${outputYaml(o)}`;
      first = false;
      // Waits while the reader is behind, so that output does not pile up in memory.
      if (!out.write(text)) await once(out, 'drain');
      return undefined;
    },
    close: () => undefined,
    abort: () => undefined,
  };
}

function dirSink(dir: OutputDir): Sink {
  return {
    write(o) {
      const name = outputFileName(o);
      const what = describe(sourceOf(o));
      const earlier = dir.writtenFor(name);
      const problem = (message: string) => Promise.resolve({ file: o.file, resource: what, message });
      if (earlier) return problem(`${dir.dir}/${name} is also written for ${earlier}`);
      if (Buffer.byteLength(name) > MAX_FILE_NAME_BYTES) {
        return problem(
          `its file name would be ${Buffer.byteLength(name)} bytes; file systems take at most ${MAX_FILE_NAME_BYTES}`,
        );
      }
      dir.write(name, outputYaml(o), `${what} of ${o.file}`);
      return Promise.resolve(undefined);
    },
    close({ rendered, passed }) {
      const { removed } = dir.commit();
      if (dir.size === 0 && removed.length === 0) return undefined;
      return (
        `rendered ${rendered} resource(s)${passed > 0 ? ` and passed ${passed} document(s) through` : ''} into ${dir.dir}/` +
        `${removed.length > 0 ? `, removed ${removed.length} file(s) of an earlier render` : ''}`
      );
    },
    abort: () => dir.abort(),
  };
}

/** `reconstruct synth`: returns the exit status. */
export async function synthCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
  /** What `-` reads (standard input). */
  stdin?: StdinSource,
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
      'no-validate-children': { type: 'boolean' },
      unknown: { type: 'string' },
      inputs: { type: 'string' },
      placeholders: { type: 'boolean' },
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
  const inputs = values.inputs === undefined ? undefined : readInputsFile(values.inputs);
  if (inputs && 'message' in inputs) {
    err.write(`${formatProblem(inputs)}\n`);
    return 1;
  }
  const renderer = new DocumentRenderer({
    inputs,
    placeholders: values.placeholders === true,
    kinds,
    namespace: values.namespace,
    includeGenerated: values['include-generated'] === true,
    validateChildren: values['no-validate-children'] !== true,
    unknown,
  });

  const output = values.output ?? 'dist';
  let sink: Sink;
  try {
    sink = output === '-' ? stdoutSink(out) : dirSink(new OutputDir(output));
  } catch (e) {
    err.write(`reconstruct synth: cannot write ${output}/: ${(e as Error).message}\n`);
    return 1;
  }
  // Each document is rendered, written and dropped before the next is read; problems are said as they come.
  let problems = 0;
  const report = (p: Problem) => {
    problems++;
    err.write(`${formatProblem(p)}\n`);
  };
  const counts = { rendered: 0, passed: 0 };
  try {
    for await (const item of streamDocuments(positionals, stdin)) {
      if ('problem' in item) {
        report(item.problem);
        continue;
      }
      const { output: o, problems: found } = renderer.render(item.document);
      found.forEach(report);
      if (!o) continue;
      const refused = await sink.write(o);
      if (refused) {
        report(refused);
        continue;
      }
      if (isPassed(o)) counts.passed++;
      else {
        counts.rendered++;
        const resource = `${o.resource.kind}/${o.resource.metadata.name}`;
        const notes = [...o.omitted.map(omittedMessage), ...o.pending, externalOnlyMessage(o)];
        for (const message of notes.filter((m) => m !== undefined)) {
          err.write(`${formatProblem({ file: o.file, resource, message })}\n`);
        }
      }
    }
    const summary = sink.close(counts);
    if (summary) err.write(`${summary}\n`);
  } catch (e) {
    sink.abort();
    err.write(`reconstruct synth: cannot write ${output}/: ${(e as Error).message}\n`);
    return 1;
  }
  return problems > 0 ? 1 : 0;
}
