/**
 * The README of a new project: what it is, its files, and the commands an author runs (test, render,
 * run the controller against the local cluster, install).
 */
import { KINDS_MODULE, KINDS_OPTION as KINDS, sampleName } from './layout';
import type { KindNames } from './names';

/** The README of project `name`, whose first kind is `n`. */
export function readme(name: string, n: KindNames): string {
  return `# ${name}

A Kubernetes operator written as [cdk8s](https://cdk8s.io) constructs with
[cdk8s-reconstruct](https://www.npmjs.com/package/cdk8s-reconstruct): each kind is one \`defineKind\`
definition (a CRD schema and the construct that makes a resource's children), rendered offline or
reconciled in a cluster by \`reconstruct controller\`. Made by \`reconstruct init\`.

\`\`\`sh
npm install
npm test                  # tsc --noEmit, reconstruct gen --check, unit and in-memory reconcile tests
npm run test:cluster      # the in-cluster tests, in a local control plane (Linux; see below)
\`\`\`

The first \`npm test\` writes the snapshots (\`test/**/__snapshots__/\`): commit them; \`npm test -- --ci\`
(as \`.ci/run\` runs it) fails when one is missing.

## Layout

| path | what |
| --- | --- |
| \`src/${n.folder}/schema.ts\` | the CRD schema of ${n.kind}, with its defaults (once) |
| \`src/${n.folder}/${n.folder}.ts\` | the construct: a Deployment and a Service selecting this resource's pods |
| \`src/${n.folder}/index.ts\` | \`defineKind\`: schema, construct, children, status; \`${n.kind}Resource\` |
| \`src/${n.folder}/types.generated.ts\`, \`crds/\` | written by \`npm run gen\` from the definitions; \`npm test\` fails when they drift |
| \`${KINDS_MODULE}\` | the list of kinds every command loads with \`--kinds ${KINDS_MODULE}\` |
| \`samples/${n.folder}.yaml\` | a ${n.kind} (\`${sampleName(n)}\`) |
| \`test/${n.folder}/\` | snapshot and construct tests, in-memory reconcile tests, the in-cluster test |
| \`test/support/cluster.ts\` | the in-cluster tests' helpers (kubectl, polling, the controller) |
| \`Dockerfile\`, \`.ci/run\` | the operator's image; what CI runs |

Edit the schema, then \`npm run gen\`. Everything else a kind can say (its own Ready rule, child policies,
watches, work behind a finalizer) is in the guide that comes with the package,
[node_modules/cdk8s-reconstruct/docs/GUIDE.md](node_modules/cdk8s-reconstruct/docs/GUIDE.md), beside a
worked example (\`examples/static-site/\` there); and in \`npx reconstruct COMMAND --help\`.

## Another kind

\`\`\`sh
npx reconstruct create kind Cache      # src/cache/, samples/cache.yaml, test/cache/, registered in ${KINDS_MODULE}
npm run gen && npm test
\`\`\`

It takes \`--group\` and \`--version\` (default: \`reconstruct.group\` and \`reconstruct.version\` in package.json,
here \`${n.group}\` and \`${n.version}\`), and refuses to overwrite a file unless \`--force\`.

## The dev loop

\`\`\`sh
npm run dev      # reconstruct dev: a local cluster, the controller on your kinds, samples/ applied
\`\`\`

Edit \`src/\` and save: the project is type-checked (an error shows its file and line, and the running
build keeps running), \`reconstruct gen\` runs, a changed CRD is installed when the live objects fit it, and
the new build runs within two seconds or so, printing what it changed in each resource's children and the
live tree with Ready. A save under \`samples/\` applies them. \`npm run dev -- --inspect\` opens a debugger's
port (9229); Ctrl-C leaves the cluster up for the next run (\`npx reconstruct cluster down\` stops it).

## Offline, and in a cluster

\`\`\`sh
npx reconstruct synth samples/ ${KINDS} --no-builtin-kinds -o -   # the samples' children
npm run synth                                                          # the same, into dist/manifests/

npx reconstruct cluster up && export KUBECONFIG=$(npx reconstruct cluster kubeconfig)
npx reconstruct controller ${KINDS} --no-builtin-kinds &
kubectl apply -f samples/ && kubectl get ${n.plural}
npx reconstruct cluster down
\`\`\`

The local control plane (kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok's fake nodes)
is built once from Go modules: it needs Go 1.26 or newer and a few minutes the first time, then it is
cached in \`~/.cache/reconstruct\` (\`RECONSTRUCT_BIN_DIR\` points at binaries you have). Without Go and
without those binaries, \`npm run test:cluster\` fails saying so; \`npm test\` does not need them.

## The image

\`Dockerfile\` builds the operator: \`npm ci\`, the kinds compiled to \`dist/\` (\`npm run build\`), the
production dependencies, run as uid 65532 on \`node:20-alpine\` (\`--build-arg NODE_IMAGE=...\` for another
base). No CI has built it yet (there is no container engine in cdk8s-reconstruct's CI, and \`.ci/run\`
has no image step): build it and try it once by hand:

\`\`\`sh
docker build -t <registry>/${name}:0.1.0 . && docker push <registry>/${name}:0.1.0
npm run build
npx reconstruct install --kinds dist/kinds.js --no-builtin-kinds --image <registry>/${name}:0.1.0 \\
  | kubectl apply --server-side -f -
\`\`\`

\`install\` renders the CRDs, a Namespace, a ServiceAccount with exactly the RBAC these kinds need, and a
Deployment running \`reconstruct controller --kinds dist/kinds.js --no-builtin-kinds\` in the image.
`;
}
