import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toYamlStream } from '../synth/yaml';
import { builtinKinds } from '../constructs/builtin';
import { formatProblem } from '../synth/problem';
import { readDocuments } from '../synth/read';
import { Rendered, renderAll } from '../synth/render';
import { KINDS_HELP, commandKinds, parseCommand } from './kinds';

export const SYNTH_HELP = `Usage: reconstruct synth PATH... [-o DIR | -o -] [-n NAMESPACE] [--include-generated] [--kinds MODULE]

Renders custom resources to the plain Kubernetes manifests the operator would apply, without a
cluster. Built-in kinds: ${builtinKinds.map((k) => k.kind).join(', ')}.

PATH is a YAML file (several documents separated by ---) or a folder searched for *.yaml, *.yml and
*.json. Each resource is checked against its CRD schema, the same schema the API server enforces,
and against its construct's own checks.

Options:
  -o, --output DIR   write one file per resource into DIR (default: dist/)
  -o -               write one YAML stream to standard output instead
  -n, --namespace NS namespace for namespaced resources that name none (default: none, as in the file)
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

/** The file a resource's children are written to: `<kind>.<name>.yaml`, prefixed by the namespace. */
export function outputFileName(r: Rendered): string {
  const { kind, metadata } = r.resource;
  return [metadata.namespace, kind.toLowerCase(), metadata.name, 'yaml'].filter(Boolean).join('.');
}

function renderedYaml(r: Rendered): string {
  const header = `# Source: ${r.file} ${r.resource.kind}/${r.resource.metadata.name}\n`;
  return header + toYamlStream(r.children);
}

/** `reconstruct synth`: returns the exit status. */
export async function synthCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
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
  const kinds = await commandKinds('synth', values, io);
  if (typeof kinds === 'number') return kinds;
  const { documents, problems: readProblems } = readDocuments(positionals);
  const { rendered, problems } = renderAll(documents, {
    kinds,
    namespace: values.namespace,
    includeGenerated: values['include-generated'] === true,
  });
  const allProblems = [...readProblems, ...problems];

  const output = values.output ?? 'dist';
  if (output === '-') {
    out.write(rendered.map(renderedYaml).join('---\n'));
  } else {
    mkdirSync(output, { recursive: true });
    for (const r of rendered) writeFileSync(join(output, outputFileName(r)), renderedYaml(r));
    if (rendered.length > 0) err.write(`rendered ${rendered.length} resource(s) into ${output}/\n`);
  }
  for (const r of rendered) {
    for (const { child, fields } of r.omitted) {
      err.write(
        `${r.file}: ${r.resource.kind}/${r.resource.metadata.name}: left out ${child}: the controller generates ` +
          `${fields.join(', ')} when it creates it in the cluster; --include-generated renders one with a fresh value\n`,
      );
    }
  }
  for (const p of allProblems) err.write(`${formatProblem(p)}\n`);
  return allProblems.length > 0 ? 1 : 0;
}
