/**
 * The app `cdk8s synth` runs (see cdk8s.yaml): every custom resource under samples/ (or the folders in
 * RECONSTRUCT_INPUT, separated by ':') becomes one chart, written to the app's output folder as
 * <kind>-<name>.k8s.yaml. Problems are reported like `reconstruct synth` does and make the command fail
 * after the valid resources are written.
 */
import { App } from 'cdk8s';
import { builtinKinds } from '../constructs/builtin';
import { KindRegistry, resourceChart } from '../constructs/kit';
import { formatProblem } from './problem';
import { readDocuments } from './read';
import { renderAll } from './render';

const inputs = (process.env.RECONSTRUCT_INPUT ?? 'samples').split(':').filter(Boolean);
const { documents, problems: readProblems } = readDocuments(inputs);
// Only custom resources become charts here: any other document is reported, not silently dropped
// (`reconstruct synth` is the command that passes other manifests through).
const { rendered, problems } = renderAll(documents, {
  kinds: new KindRegistry(builtinKinds),
  unknown: 'error',
});

const app = new App();
for (const { kind, resource } of rendered) {
  const id = [resource.metadata.namespace, resource.kind.toLowerCase(), resource.metadata.name]
    .filter(Boolean)
    .join('-');
  resourceChart(app, id, kind, resource, { admitted: true });
}
app.synth();

for (const p of [...readProblems, ...problems]) console.error(formatProblem(p));
if (readProblems.length + problems.length > 0) process.exitCode = 1;
