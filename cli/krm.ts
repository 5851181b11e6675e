import { readFileSync } from 'node:fs';
import { runKrmFunction } from '../synth/krm';
import { KINDS_HELP, commandKinds, parseCommand } from './kinds';

const KRM_HELP = `Usage: reconstruct krm [--include-generated] [--no-validate-children] [--kinds MODULE]

Runs the renderer as a KRM function, as kustomize (an exec transformer) and kpt run it: reads a
ResourceList on standard input and writes one on standard output. Each custom resource of a known
kind among the items becomes its children; every other item is kept as it came, in order. Problems
are results (severity error, with the resource, the field and the file), are printed on standard
error as FILE: KIND/NAME: FIELD: message, and make the exit status 1.

A kustomization runs it through a small executable (kustomize gives exec functions no arguments):

  # render.sh (chmod +x)             # render.yaml, listed under transformers: in kustomization.yaml
  #!/bin/sh                          apiVersion: reconstruct.dev/v1
  exec npx reconstruct krm           kind: Render
                                     metadata:
                                       name: render
                                       annotations:
                                         config.kubernetes.io/function: |
                                           exec:
                                             path: ./render.sh

  kustomize build --enable-alpha-plugins --enable-exec .

Options:
  --include-generated
                     also render the children whose values the controller generates (see synth)
  --no-validate-children
                     do not check the children against the schemas of their kinds (see synth)
${KINDS_HELP}
  -h, --help         show this help
`;

/** `reconstruct krm`: returns the exit status. */
export async function krmCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
  stdin: () => string = () => readFileSync(0, 'utf8'),
): Promise<number> {
  const io = { out, err };
  const parsed = parseCommand(
    'krm',
    KRM_HELP,
    argv,
    { 'include-generated': { type: 'boolean' }, 'no-validate-children': { type: 'boolean' } },
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const kinds = await commandKinds('krm', parsed.values, io);
  if (typeof kinds === 'number') return kinds;
  const { output, failed, problems } = runKrmFunction(stdin(), {
    kinds,
    includeGenerated: parsed.values['include-generated'] === true,
    validateChildren: parsed.values['no-validate-children'] !== true,
  });
  out.write(output);
  for (const line of problems) err.write(`${line}\n`);
  return failed ? 1 : 0;
}
